/**
 * Compatibility routes that clients of the service Agentport replaces already call, beside the
 * MCP endpoint proper:
 *
 *   GET  /mcp                     server info and auth type — only without `Accept: text/event-stream`
 *                                 (with it, GET /mcp is the MCP SSE stream: left to the endpoint)
 *   POST /mcp/initialize          an `initialize` answered by /mcp (stateless, no session)
 *   GET|POST /mcp/tools/list      the public tool list (public-tools.ts), no credential needed
 *   POST /mcp/tools/call          `{name, arguments}` → the CallToolResult, run by /mcp
 *   GET  /mcp/resources/list      `resources/list` on /mcp
 *   GET  /mcp/health              liveness and counts
 *   GET  /mcp/validate            the tool surface checked against what clients require
 *   GET  /.well-known/mcp-metadata discovery: server, tools, auth endpoints, ChatGPT/Claude settings
 *
 * Bodies may be the bare params or a JSON-RPC request; a JSON-RPC request gets a JSON-RPC response.
 * Calls run through the MCP face in process (forward-to-mcp.ts) with the caller's credentials, so
 * the authorization is the endpoint's, and bad input gets a JSON-RPC-shaped error, never a stack.
 */
import { usageOf } from '../../../edge/call-usage.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Face, RequestContext } from '../../../edge/face.js';
import type { PrincipalOf } from '../admission/admission.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../json-depth.js';
import { metadataDocument, serverInfoDocument, validate } from './documents.js';
import { forwardToMcp, FORWARD_PROTOCOL_VERSION, type ForwardTarget } from './forward-to-mcp.js';
import { publicToolList, type PublicToolsDeps } from './public-tools.js';
import type { ServerFacts } from './server-facts.js';
import { contributesTool } from '../tools/contributed-tools.js';
import { MCP_CODE, mcpRefusal } from '../mcp-errors.js';

export interface McpCompatDeps extends PublicToolsDeps, ForwardTarget {
  /** the public base URL (read per request: with port 0 it is known only once bound) */
  publicUrl: () => string;
  authMode: 'required' | 'none';
  oauthEnabled: boolean;
  /** the MCP face (mcp-face.ts): the calls run through it, and routes that run calls ask it first whether it admits the caller */
  mcp: ForwardTarget['mcp'] & { admits(principal: PrincipalOf): Promise<boolean> };
}

type Route = 'info' | 'initialize' | 'tools/list' | 'tools/call' | 'resources/list' | 'health' | 'validate' | 'metadata';

const ROUTES: Record<string, { route: Route; methods: readonly string[] }> = {
  '/mcp/initialize': { route: 'initialize', methods: ['POST'] },
  '/mcp/tools/list': { route: 'tools/list', methods: ['GET', 'POST'] },
  '/mcp/tools/call': { route: 'tools/call', methods: ['POST'] },
  '/mcp/resources/list': { route: 'resources/list', methods: ['GET'] },
  '/mcp/health': { route: 'health', methods: ['GET'] },
  '/mcp/validate': { route: 'validate', methods: ['GET'] },
  '/.well-known/mcp-metadata': { route: 'metadata', methods: ['GET'] },
};

const METADATA_PATH = '/.well-known/mcp-metadata';

type JsonRpcId = string | number | null;

/** A compat route the face took: the route, and the methods it allows (none for `GET /mcp`'s info, which is MCP's path). */
export interface CompatRoute {
  route: Route;
  methods?: readonly string[];
}

/** The compatibility routes as a face of the one edge (src/edge/face.ts). */
export function mcpCompatFace(d: McpCompatDeps): Face<CompatRoute> {
  const tools = publicToolList(d);
  // These documents are public: hidden agents are not counted or described (they do not exist here).
  const publicAgents = () => d.registry.list().filter((a) => !d.isPublicAgent || d.isPublicAgent(a.id));
  const facts = (): ServerFacts => ({
    publicUrl: d.publicUrl(),
    version: d.version,
    authMode: d.authMode,
    oauthEnabled: d.oauthEnabled,
    searchAndFetch: publicAgents().some((a) => contributesTool(a, 'search') && contributesTool(a, 'fetch')),
    agentCount: publicAgents().length,
  });

  return {
    name: 'mcp-compat',
    match(req, rawPath) {
      // Asked for every request the edge routes (an A2A call too): a path outside the routes' two
      // roots is refused before the trailing slash is trimmed and the table is searched.
      if (!rawPath.startsWith('/mcp') && !rawPath.startsWith(METADATA_PATH)) return undefined;
      const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
      if (path === '/mcp') {
        // GET /mcp with Accept: text/event-stream is the MCP SSE stream; every other method is MCP.
        if (req.method !== 'GET' || (req.headers.accept ?? '').includes('text/event-stream')) return undefined;
        return { route: 'info' };
      }
      const r = ROUTES[path];
      return r ? { route: r.route, methods: r.methods } : undefined;
    },
    // The preflight and a method the route does not have are answered as before start-up finished.
    ungated: (req, r) => r.methods !== undefined && (req.method === 'OPTIONS' || !r.methods.includes(req.method ?? '')),
    serve(req, res, ctx, r) {
      if (req.headers.origin) cors(res, req.headers.origin);
      if (r.methods) {
        if (req.method === 'OPTIONS') return preflight(req, res, r.methods);
        if (!r.methods.includes(req.method ?? '')) {
          res.setHeader('Allow', r.methods.join(', '));
          return sendJson(res, 405, rpcError(null, MCP_CODE.InvalidRequest, `${req.method} is not allowed here; use ${r.methods.join(' or ')}`));
        }
      }
      return serve(r.route, req, res, ctx);
    },
    // A failed start and a throw alike: 500 -32603 (the edge logs the cause).
    reject(_req, res) {
      if (!res.headersSent) sendJson(res, 500, rpcError(null, MCP_CODE.InternalError, 'Internal error'));
      else res.destroy();
    },
  };

  async function serve(route: Route, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    // Authenticated by the edge at most once per request, whoever asks (the admission check, the call).
    const principal: PrincipalOf = (resourcePath) => ctx.principal(resourcePath);
    switch (route) {
      case 'info':
        return sendJson(res, 200, serverInfoDocument(facts(), req.headers.origin), { Vary: 'Origin' });
      case 'health':
        return sendJson(res, 200, { status: 'ok', version: d.version, agents: publicAgents().length, tools: (await tools()).length });
      case 'validate':
        return sendJson(res, 200, validate(facts(), await tools()));
      case 'metadata':
        return sendJson(res, 200, metadataDocument(facts(), await tools(), req.headers.origin), { 'Cache-Control': 'public, max-age=300', Vary: 'Origin' });
      case 'tools/list': {
        const body = req.method === 'POST' ? await readJson(ctx, res) : { ok: true as const, value: undefined };
        if (!body.ok) return;
        const rpc = asJsonRpc(body.value);
        const result = { tools: await tools() };
        return sendJson(res, 200, rpc ? { jsonrpc: '2.0', id: rpc.id, result } : result, { 'Cache-Control': 'public, max-age=60' });
      }
      case 'resources/list':
        return forward(req, res, principal, 'resources/list', {}, undefined);
      case 'initialize': {
        if (await refusedByMcp(req, res, principal, 'initialize')) return;
        const body = await readJson(ctx, res);
        if (!body.ok) return;
        const rpc = asJsonRpc(body.value);
        const given = rpc ? rpc.params : body.value;
        const params = {
          protocolVersion: FORWARD_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'agentport-compat-client', version: '0' },
          ...(isObject(given) ? given : {}),
        };
        return forward(req, res, principal, 'initialize', params, rpc);
      }
      case 'tools/call': {
        if (await refusedByMcp(req, res, principal, 'tools/call')) return;
        const body = await readJson(ctx, res);
        if (!body.ok) return;
        const rpc = asJsonRpc(body.value);
        const given = rpc ? rpc.params : body.value;
        if (!isObject(given) || typeof given.name !== 'string' || given.name === '') {
          return sendJson(res, 400, rpcError(rpc?.id ?? null, MCP_CODE.InvalidParams, 'The body must be {"name": "<tool>", "arguments": {...}}'));
        }
        if (given.arguments !== undefined && !isObject(given.arguments)) {
          return sendJson(res, 400, rpcError(rpc?.id ?? null, MCP_CODE.InvalidParams, '"arguments" must be an object'));
        }
        return forward(req, res, principal, 'tools/call', { name: given.name, arguments: given.arguments ?? {} }, rpc);
      }
    }
  }

  /** Runs `method` on /mcp; a JSON-RPC caller gets the envelope, any other the bare result. */
  async function forward(req: IncomingMessage, res: ServerResponse, principal: PrincipalOf, method: string, params: Record<string, unknown>, rpc: { id: JsonRpcId } | undefined): Promise<void> {
    const r = await forwardToMcp(d, req.headers, principal, method, params, rpc?.id ?? 1, usageOf(req));
    const id = rpc?.id ?? null;
    if (r.status !== 200 || !r.message) {
      // Refused at the endpoint's edge (401 with its challenge, 403, 413, …): its answer, as is.
      const challenge = r.headers['www-authenticate'];
      const extra: Record<string, string> = challenge ? { 'WWW-Authenticate': challenge } : {};
      const status = r.status === 200 ? 502 : r.status;
      return sendJson(res, status, r.message?.error ? rpcError(id, r.message.error.code, r.message.error.message) : rpcError(id, MCP_CODE.InternalError, 'The MCP endpoint did not answer'), extra);
    }
    if (r.message.error) return sendJson(res, rpc ? 200 : 400, rpcError(id, r.message.error.code, r.message.error.message));
    return sendJson(res, 200, rpc ? { jsonrpc: '2.0', id, result: r.message.result } : r.message.result, { 'Cache-Control': 'no-store' });
  }

  /** True once /mcp's refusal (401/403 with its challenge) was passed on, the body left unread. */
  async function refusedByMcp(req: IncomingMessage, res: ServerResponse, principal: PrincipalOf, method: string): Promise<boolean> {
    if (await d.mcp.admits(principal)) return false;
    await forward(req, res, principal, method, {}, undefined);
    return true;
  }

  async function readJson(ctx: RequestContext, res: ServerResponse): Promise<{ ok: true; value: unknown } | { ok: false }> {
    const read = await ctx.body();
    if (typeof read === 'object') {
      const err = read.error;
      const refusal = mcpRefusal(err);
      sendJson(res, refusal.status, rpcError(null, refusal.code, err.message), read.headers);
      return { ok: false };
    }
    if (read.trim() === '') return { ok: true, value: undefined };
    if (exceedsJsonDepth(read)) {
      sendJson(res, 400, rpcError(null, MCP_CODE.InvalidRequest, `The request body nests deeper than ${MAX_JSON_DEPTH} levels`));
      return { ok: false };
    }
    try {
      return { ok: true, value: JSON.parse(read) as unknown };
    } catch {
      sendJson(res, 400, rpcError(null, MCP_CODE.ParseError, 'Parse error: the body is not JSON'));
      return { ok: false };
    }
  }
}

function asJsonRpc(v: unknown): { id: JsonRpcId; params: unknown } | undefined {
  if (!isObject(v) || v.jsonrpc !== '2.0' || typeof v.method !== 'string') return undefined;
  const id = typeof v.id === 'string' || typeof v.id === 'number' ? v.id : null;
  return { id, params: v.params };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rpcError(id: JsonRpcId, code: number, message: string) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

function cors(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate, X-Request-Id');
}

function preflight(req: IncomingMessage, res: ServerResponse, methods: readonly string[]): void {
  res.writeHead(204, {
    'Access-Control-Allow-Origin': req.headers.origin ?? '*',
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, X-API-Key, X-Request-Id',
    'Access-Control-Max-Age': '86400',
    Vary: 'Origin',
  });
  res.end();
}
