/**
 * The 2024-11-05 HTTP+SSE transport beside Streamable HTTP (src/bindings/mcp/transport/sse-transport.ts),
 * driven by the MCP SDK 1.x `SSEClientTransport` (a real client of the old transport) against a
 * real server with authentication on: it connects on the printed `/mcp` URL and on an agent's
 * `/a2a/{id}/mcp`, lists and calls tools with progress, is authorized like `/mcp` (401 without a
 * credential, another caller's session is not found), its calls are usage records like `/mcp`'s,
 * and `notifications/cancelled` stops a running call. 2025-era clients keep their transport.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';

const ALICE = 'k-sse-alice-0123456789abcdef';
const BOB = 'k-sse-bob-0123456789abcdef01';
const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));

async function sseClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'agentport-test-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** A raw stream of the old transport: its `endpoint` event, then its `message` events one by one. */
async function openStream(url: string, key: string, signal: AbortSignal): Promise<{ status: number; type: string | null; endpoint: string; next(): Promise<any> }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` }, signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const event = async (name: string): Promise<string> => {
    for (;;) {
      const m = new RegExp(`event: ${name}\ndata: (.*)\n\n`).exec(text);
      if (m) {
        text = text.slice(m.index + m[0].length);
        return m[1]!;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended before a ${name} event: ${text}`);
      text += decoder.decode(value);
    }
  };
  const endpoint = await event('endpoint');
  return { status: res.status, type: res.headers.get('content-type'), endpoint, next: async () => JSON.parse(await event('message')) };
}

describe('MCP HTTP+SSE transport (2024-11-05) with the SDK 1.x SSEClientTransport', () => {
  let s: TestServer;
  let stopped = false;

  beforeAll(async () => {
    s = await startTestServer(
      {
        auth: {
          mode: 'required',
          apiKeys: [
            { key: ALICE, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] },
            { key: BOB, subject: 'bob', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] },
          ],
        },
        agents: [
          { id: 'echo', builtin: 'echo' },
          { id: 'probe', module: PROBE },
        ],
      },
      { keepData: true },
    );
  });
  afterAll(async () => {
    if (!stopped) await s?.stop();
    if (s) await rm(s.dataDir, { recursive: true, force: true });
  });

  it('connects on /mcp, negotiates 2024-11-05, lists and calls a tool, with progress', async () => {
    const client = await sseClient(`${s.http}/mcp`, ALICE);
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo_echo');
      const result = await client.callTool({ name: 'echo_echo', arguments: { message: 'over the old transport' } });
      expect(JSON.stringify(result.content)).toContain('over the old transport');
      expect(result.isError).toBeFalsy();
      // A task's status updates arrive as notifications/progress on the stream, before the result.
      const progress: number[] = [];
      const ticks = await client.callTool({ name: 'probe_probe', arguments: { message: 'ticks 3 20' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
      expect(ticks.isError).toBeFalsy();
      expect(progress.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("connects on one agent's /a2a/{id}/mcp and sees that agent's tools only", async () => {
    const client = await sseClient(`${s.http}/a2a/echo/mcp`, ALICE);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.some((n) => n.startsWith('probe'))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('announces the POST endpoint relative to the stream URL; answers go on the stream, the POST is 202; 2024-11-05 is agreed', async () => {
    const ac = new AbortController();
    const stream = await openStream(`${s.http}/a2a/echo/mcp`, ALICE, ac.signal);
    expect(stream.status).toBe(200);
    expect(stream.type).toBe('text/event-stream');
    const post = new URL(stream.endpoint, `${s.http}/a2a/echo/mcp`);
    expect(stream.endpoint).toMatch(/^mcp\?sessionId=/);
    expect(post.pathname).toBe('/a2a/echo/mcp');
    expect(post.searchParams.get('sessionId')).toMatch(/^[0-9a-f-]{36}$/);
    const init = await fetch(post, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(202);
    const answer = await stream.next();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, result: { protocolVersion: '2024-11-05' } });
    // A body that is not JSON is answered on the stream too (a parse error), not dropped.
    const bad = await fetch(post, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` }, body: '{not json' });
    expect(bad.status).toBe(202);
    expect((await stream.next()).error.code).toBe(-32700);
    ac.abort();
  });

  it('is authorized like /mcp: 401 with the challenge without a credential; a POST to another caller’s session or an unknown one is 404', async () => {
    const anon = await fetch(`${s.http}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const ac = new AbortController();
    const post = new URL((await openStream(`${s.http}/mcp`, ALICE, ac.signal)).endpoint, `${s.http}/mcp`);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const asBob = await fetch(post, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${BOB}` }, body });
    expect(asBob.status).toBe(404);
    const noKey = await fetch(post, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(noKey.status).toBe(401);
    const unknown = await fetch(`${s.http}/mcp?sessionId=00000000-0000-4000-8000-000000000000`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` }, body });
    expect(unknown.status).toBe(404);
    // The same session on another scope (an agent's endpoint) is not found either.
    const elsewhere = await fetch(`${s.http}/a2a/echo/mcp${post.search}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` }, body });
    expect(elsewhere.status).toBe(404);
    ac.abort();
  });

  it('notifications/cancelled stops the running call and cancels its task', async () => {
    const client = await sseClient(`${s.http}/mcp`, ALICE);
    try {
      const ac = new AbortController();
      // The SDK sends notifications/cancelled when a request's signal aborts.
      const call = client.callTool({ name: 'probe_probe', arguments: { message: 'hold' } }, undefined, { signal: ac.signal }).catch((e: unknown) => e);
      let taskId: string | undefined;
      for (let i = 0; i < 200 && !taskId; i++) {
        const l = await rpc(`${s.http}/a2a/probe`, 'ListTasks', { status: 'TASK_STATE_WORKING' }, { authorization: `Bearer ${ALICE}` });
        taskId = l.body.result.tasks[0]?.id;
        if (!taskId) await new Promise((r) => setTimeout(r, 25));
      }
      expect(taskId).toBeDefined();
      ac.abort('user stopped');
      expect(String(await call)).toMatch(/abort|cancel|user stopped/i);
      let state: string | undefined;
      for (let i = 0; i < 200 && state !== 'TASK_STATE_CANCELED'; i++) {
        state = (await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: taskId }, { authorization: `Bearer ${ALICE}` })).body.result.status.state;
        if (state !== 'TASK_STATE_CANCELED') await new Promise((r) => setTimeout(r, 25));
      }
      expect(state).toBe('TASK_STATE_CANCELED');
    } finally {
      await client.close();
    }
  });

  it('a 2025-era client (SDK 1.x Streamable HTTP) on the same /mcp keeps its own transport', async () => {
    const c = new Client({ name: 'streamable', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${s.http}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
    try {
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('echo_echo');
    } finally {
      await c.close();
    }
  });

  it('records each call like /mcp: the MCP method as the operation, the subject, the tool call as its task', async () => {
    const client = await sseClient(`${s.http}/mcp`, BOB);
    await client.callTool({ name: 'echo_echo', arguments: { message: 'billed' } });
    await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
    await client.close();
    await s.stop();
    stopped = true;
    const db = new Database(path.join(s.dataDir, 'agentport.db'), { readonly: true });
    const rows = db.prepare("select * from usage_records_all where subject = 'bob'").all() as Array<{ kind: string; operation: string; tool: string | null; outcome: string; face: string }>;
    db.close();
    expect(rows.find((r) => r.kind === 'task' && r.operation === 'tools/call')).toMatchObject({ tool: 'echo_echo', outcome: 'TASK_STATE_COMPLETED' });
    expect(rows.find((r) => r.kind === 'call' && r.operation === 'tools/call')).toMatchObject({ tool: 'no_such_tool', outcome: 'INVALID_PARAMS' });
    expect(rows.some((r) => r.operation === 'initialize' && r.face.startsWith('mcp'))).toBe(true);
  });
});
