/**
 * Real MCP servers on loopback for the MCP→A2A tests: a modern one on the v2 SDK
 * (`@modelcontextprotocol/server`, `createMcpHandler`, serves 2026-07-28 and stateless 2025) and a
 * legacy one on the v1 SDK (`@modelcontextprotocol/sdk`, stateful Streamable HTTP sessions, so
 * `notifications/tools/list_changed` reaches the client on its GET stream). Both offer the same
 * tools and record what they saw (Authorization headers, cancellations).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, fromJsonSchema, McpServer as V2Server, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface RemoteRecord {
  authorization: Array<string | undefined>;
  /** tool calls whose abort signal fired (cancellation reached the remote) */
  cancelled: string[];
  /** tool calls that started */
  started: string[];
  /** every tool called, by name */
  calls: string[];
  /** the POSTs: JSON-RPC method and Authorization, in order (recorded when the array is given) */
  requests?: Array<{ method: string; authorization: string | undefined }>;
}

export interface RemoteServer {
  url: string;
  port: number;
  record: RemoteRecord;
  /** adds a tool (legacy: announced with notifications/tools/list_changed) */
  addTool(name: string): void;
  close(): Promise<void>;
}

type Result = { content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

/** 1x1 PNG */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function tools(record: RemoteRecord) {
  return {
    add: {
      title: 'Add numbers',
      description: 'Adds a and b.',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      schema: { type: 'object', properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } }, required: ['a', 'b'] },
      zod: { a: z.number(), b: z.number() },
      run: async (args: { a: number; b: number }): Promise<Result> => ({ content: [{ type: 'text', text: String(args.a + args.b) }], structuredContent: { sum: args.a + args.b } }),
    },
    shout: {
      title: 'Shout',
      description: 'Upper-cases the text.',
      schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      zod: { text: z.string() },
      run: async (args: { text: string }): Promise<Result> => ({ content: [{ type: 'text', text: args.text.toUpperCase() }] }),
    },
    picture: {
      title: 'Picture',
      description: 'Returns a tiny image.',
      schema: { type: 'object', properties: {} },
      zod: {},
      run: async (): Promise<Result> => ({
        content: [
          { type: 'text', text: 'a dot' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
        ],
      }),
    },
    slow: {
      title: 'Slow',
      description: 'Waits ms milliseconds unless cancelled.',
      schema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      zod: { ms: z.number() },
      run: async (args: { ms: number }, signal: AbortSignal): Promise<Result> => {
        const id = randomUUID();
        record.started.push(`slow:${id}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, args.ms);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            record.cancelled.push(`slow:${id}`);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: `waited ${args.ms}` }] };
      },
    },
    broken: {
      title: 'Broken',
      description: 'Always fails.',
      schema: { type: 'object', properties: {} },
      zod: {},
      run: async (): Promise<Result> => ({ content: [{ type: 'text', text: 'the widget is jammed' }], isError: true }),
    },
  };
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The v2 SDK server (modern 2026-07-28 + stateless legacy), on `port` (0 = any). */
export async function startModernRemote(port = 0, record: RemoteRecord = { authorization: [], cancelled: [], started: [], calls: [] }): Promise<RemoteServer> {
  const defs = tools(record);
  const extra: string[] = [];
  const handler = createMcpHandler(
    () => {
      const server = new V2Server({ name: 'modern-remote', title: 'Modern Remote', version: '2.0.0' }, { capabilities: { tools: {} } });
      for (const [name, t] of Object.entries(defs)) {
        server.registerTool(
          name,
          { title: t.title, description: t.description, inputSchema: fromJsonSchema(t.schema as never) as StandardSchemaWithJSON, ...('annotations' in t ? { annotations: t.annotations } : {}) },
          (args, ctx) => {
            record.calls.push(name);
            return (t.run as (a: unknown, s: AbortSignal) => Promise<Result>)(args, ctx.mcpReq.signal);
          },
        );
      }
      // Reports two steps as progress notifications before answering (modern remote only).
      server.registerTool('steps', { title: 'Steps', description: 'Reports progress twice.', inputSchema: fromJsonSchema({ type: 'object', properties: {} } as never) as StandardSchemaWithJSON }, async (_args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        for (const [i, message] of ['step one', 'step two'].entries()) {
          if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i + 1, total: 2, message } });
          await new Promise((r) => setTimeout(r, 20));
        }
        return { content: [{ type: 'text', text: 'done' }] };
      });
      for (const name of extra)
        server.registerTool(name, { description: `late tool ${name}`, inputSchema: fromJsonSchema({ type: 'object', properties: {} } as never) as StandardSchemaWithJSON }, async () => ({
          content: [{ type: 'text', text: name }],
        }));
      return server;
    },
    { legacy: 'stateless' },
  );
  const http = createServer(async (req, res) => {
    record.authorization.push(req.headers.authorization);
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (body !== undefined) record.requests?.push({ method: String(JSON.parse(body)?.method), authorization: req.headers.authorization });
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'host' && k !== 'content-length' && k !== 'connection') headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const response = await handler.fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(body !== undefined ? { body } : {}), signal: abort.signal }));
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(response.status, out);
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // client went away
    }
    res.end();
  });
  const bound = await listen(http, port);
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    record,
    addTool: (name) => void extra.push(name),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The v1 SDK server: legacy era only, with sessions. */
export async function startLegacyRemote(port = 0, record: RemoteRecord = { authorization: [], cancelled: [], started: [], calls: [] }): Promise<RemoteServer> {
  const defs = tools(record);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: V1Server }>();
  const extra: string[] = [];
  const build = (): V1Server => {
    const server = new V1Server({ name: 'legacy-remote', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    for (const [name, t] of Object.entries(defs)) {
      server.registerTool(name, { title: t.title, description: t.description, inputSchema: t.zod, ...('annotations' in t ? { annotations: t.annotations } : {}) }, ((args: unknown, extraInfo: { signal: AbortSignal }) => {
        record.calls.push(name);
        return (t.run as (a: unknown, s: AbortSignal) => Promise<Result>)(args, extraInfo.signal);
      }) as never);
    }
    for (const name of extra) registerLate(server, name);
    return server;
  };
  const http = createServer(async (req, res) => {
    record.authorization.push(req.headers.authorization);
    const sid = req.headers['mcp-session-id'] as string | undefined;
    const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
    if (body !== undefined) record.requests?.push({ method: String(body?.method), authorization: req.headers.authorization });
    let entry = sid ? sessions.get(sid) : undefined;
    if (!entry) {
      if (sid || req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: sid ? 'Session not found' : 'Bad request' } }));
      }
      const server = build();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      entry = { transport, server };
    }
    await entry.transport.handleRequest(req, res, body);
  });
  const bound = await listen(http, port);
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    record,
    addTool: (name) => {
      extra.push(name);
      for (const { server } of sessions.values()) registerLate(server, name);
    },
    close: async () => {
      for (const { transport } of sessions.values()) await transport.close().catch(() => {});
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

function registerLate(server: V1Server, name: string): void {
  server.registerTool(name, { description: `late tool ${name}`, inputSchema: {} }, async () => ({ content: [{ type: 'text' as const, text: name }] }));
}
