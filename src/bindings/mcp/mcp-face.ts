/**
 * The MCP face: `/mcp` (every agent) and `/a2a/{agentId}/mcp` (one agent), plus the item pages
 * of `/a2a/{agentId}/items/{id}` (pages/item-route.ts). The edge admits the request (request id,
 * start gate, body policy, lazy authentication); this face, in this order:
 *
 *   admission/edge-checks.ts    CORS preflight, the transport's methods, Host/Origin (DNS rebinding)
 *   admission/admission.ts      the agent of `/a2a/{id}/mcp` (hidden-agent rule), authentication + `use-mcp`
 *   transport/server-stream.ts  a 2025-era client's standalone GET stream
 *   transport/sse-transport.ts  the 2024-11-05 HTTP+SSE transport: its GET stream and its `?sessionId=` POSTs
 *   mcp-dispatch.ts             the body through the lenient edge, then the first that takes it:
 *                               tasks/tasks-requests.ts, a fixture module's fastPath (surface/fixture-module.ts),
 *                               tools/plain-tool-answer.ts (the fast path),
 *                               transport/legacy-sessions.ts, else the SDK (surface/mcp-scopes.ts,
 *                               bridged by transport/sdk-bridge.ts)
 *
 * What the face builds once at start is in mcp-face-state.ts. Every step answers with a value
 * (answer.ts), so the compat routes' calls run the same steps in process (`call`) and cannot be
 * admitted or answered differently from a call on `/mcp`.
 */
import { tracingOn } from '../../observability/tracing/index.js';
import { inMcpMetaTrace } from './meta-trace.js';
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import { usageOf } from '../../edge/call-usage.js';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/authz/principal.js';
import type { Face, RequestContext } from '../../edge/face.js';
import type { A2AError } from '../../protocol/a2a/errors.js';
import { bodyRefusal, bodyRefusalHeaders } from '../../edge/body.js';
import { admit, admitToAgent, isAnswer, type PrincipalOf } from './admission/admission.js';
import { rpcError, sendAnswer, sendJsonRpcError, type Answer } from './answer.js';
import { ALLOW, isMcpMethod, preflight, setCors } from './admission/edge-checks.js';
import { serveItem } from './pages/item-route.js';
import { LEGACY_VERSIONS } from './admission/lenient-edge.js';
import { discoveryPrincipal, isPublicDiscoveryCall, PUBLIC_DISCOVERY_PRINCIPAL, PUBLIC_SCOPE } from './admission/public-discovery.js';
import { headerFields } from './transport/sdk-bridge.js';
import { ResponseClose } from './transport/response-close.js';
import { wantsServerStream } from './transport/server-stream.js';
import { sessionIdOfQuery } from './transport/sse-transport.js';
import { MCP_CODE, mcpRefusal } from './mcp-errors.js';
import { buildMcpFaceState, type McpFaceState, type McpFaceDeps } from './mcp-face-state.js';
import { dispatch, type Admitted } from './mcp-dispatch.js';

export type { McpFaceDeps } from './mcp-face-state.js';

export type McpRoute = { kind: 'mcp'; agentId?: string } | { kind: 'item'; agentId: string; itemId: string };

/** One JSON-RPC request to `/mcp` from inside the process (the compat routes, compat/forward-to-mcp.ts). */
export interface InProcessCall {
  /** the header fields the request carries (credentials, Host and Origin of the caller, the MCP ones) */
  headers: IncomingHttpHeaders;
  /** the caller, authenticated on its own request's headers */
  principal: PrincipalOf;
  body: string;
  signal: AbortSignal;
  /** the usage draft of the request the call is made for */
  usage?: UsageDraft | undefined;
}

export interface McpFace extends Face<McpRoute> {
  /** Runs one POST to `/mcp` in process, through the same checks, admission and dispatch. */
  call(c: InProcessCall): Promise<Answer>;
  /** Whether `/mcp` would admit this caller (authenticated, with an MCP scope): asked by the compat routes before they read a body. */
  admits(principal: PrincipalOf): Promise<boolean>;
  close(): Promise<void>;
}

export function mcpFace(d: McpFaceDeps): McpFace {
  const s = buildMcpFaceState(d);
  return {
    name: 'mcp',
    match: (_req, path) => routeOf(path),
    serve: (req, res, ctx, route) => serve(s, req, res, ctx, route),
    // The preflight, a method the transport does not have and a refused Host or Origin are
    // answered at once, as before the server has started.
    ungated: (req, route) => (route.kind === 'mcp' && (req.method === 'OPTIONS' || !isMcpMethod(req.method))) || s.checkHost(req.headers) !== undefined,
    reject,
    // A POST's JSON answer puts the id in its one-array head (answer.ts); other answers set it at once (serve).
    writesRequestId: true,
    call: (c) => call(s, c),
    admits: async (p) => !isAnswer(await admit(s.admission, undefined, p)),
    close: () => close(s),
  };
}

async function serve(s: McpFaceState, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, route: McpRoute): Promise<void> {
  // The request id (the face writes it: Face.writesRequestId). A POST to an MCP endpoint without
  // an Origin (no CORS headers go before its answer) is answered by `sendAnswer` or a 202, which
  // take `headId`: a JSON answer's head is then one array with the id first (ADR 0066). Every
  // other request (streams, pages, preflights, CORS) has it set now, before any other header.
  const headId = route.kind === 'mcp' && req.method === 'POST' && !req.headers.origin ? ctx.requestId : undefined;
  if (headId === undefined) res.setHeader('X-Request-Id', ctx.requestId);
  if (edgeAnswer(s, req, res, route, headId)) return;
  const principalOf: PrincipalOf = (path) => ctx.principal(path);
  if (route.agentId !== undefined) {
    const refused = await admitToAgent(s.admission, route.agentId, principalOf);
    if (refused) return sendAnswer(res, refused, undefined, undefined, headId);
  }
  if (route.kind === 'item') return serveItem(s.admission, req, res, route.agentId, route.itemId, principalOf);
  return serveMcp(s, req, res, ctx, route.agentId, principalOf, headId);
}

/** The answers of the face's own edge checks, which need nothing from start-up. */
function edgeAnswer(s: McpFaceState, req: IncomingMessage, res: ServerResponse, route: McpRoute, headId: string | undefined): boolean {
  if (route.kind === 'mcp' && req.method === 'OPTIONS') return (preflight(req, res), true);
  if (route.kind === 'mcp' && !isMcpMethod(req.method)) {
    res.setHeader('Allow', ALLOW);
    sendJsonRpcError(res, 405, MCP_CODE.InvalidRequest, `${req.method} is not allowed on the MCP endpoint`);
    return true;
  }
  const origin = req.headers.origin;
  if (origin) setCors(res, origin);
  const rejected = s.checkHost(req.headers);
  if (rejected) {
    s.d.log.debug({ host: req.headers.host, origin }, `mcp: ${rejected}`);
    if (headId !== undefined) res.setHeader('X-Request-Id', headId);
    sendJsonRpcError(res, 403, MCP_CODE.ServerError, rejected);
    return true;
  }
  return false;
}

async function serveMcp(s: McpFaceState, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, agentId: string | undefined, principalOf: PrincipalOf, headId: string | undefined): Promise<void> {
  const { d } = s;
  const sessionId = headerOf(req, 'mcp-session-id');
  // mcp.publicDiscovery: the body is read first, so that a discovery call can be told apart.
  let preRead: Awaited<ReturnType<RequestContext['body']>> | undefined;
  let discovery = false;
  if (d.publicDiscovery && agentId === undefined && req.method === 'POST' && sessionId === undefined) {
    preRead = await ctx.body();
    discovery = typeof preRead === 'string' && isPublicDiscoveryCall(preRead);
  }
  const principal = discovery ? await discoveryPrincipal(() => principalOf('/mcp'), d.policy) : await admit(s.admission, agentId, principalOf);
  if (isAnswer(principal)) return sendAnswer(res, principal, undefined, undefined, headId);
  // An anonymous discovery call (or one whose credential was refused or lacks MCP) sees the public surface.
  const scope = principal === PUBLIC_DISCOVERY_PRINCIPAL ? PUBLIC_SCOPE : agentId;
  // A 2025-era client's standalone server stream (server-stream.ts); the 2026 revision has none.
  const version = headerOf(req, 'mcp-protocol-version');
  if (wantsServerStream(req)) {
    // Before any exchange (no version yet): a client of the 2024-11-05 HTTP+SSE transport.
    if (version === undefined) return s.sse.open(req, res, scope ?? '', principal.subject);
    if (LEGACY_VERSIONS.includes(version)) return s.streams.open(req, res);
  }

  let body: string | undefined;
  if (req.method === 'POST') {
    const read = preRead ?? (await ctx.body());
    if (typeof read === 'object') return sendAnswer(res, refusedBody(read.error, read.headers), undefined, undefined, headId);
    body = read;
  }
  const sseSession = req.method === 'POST' && sessionId === undefined ? sessionIdOfQuery(req.url) : undefined;
  if (sseSession !== undefined && body !== undefined) return postToSseSession(s, req, res, sseSession, body, principal, scope, headId);
  const close = new ResponseClose(res);
  const admitted: Admitted = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    host: req.headers.host,
    fields: headerFields(req.headers),
    sessionId,
    body,
    principal,
    scope,
    // An AbortSignal only when the SDK path (or a streamed answer) asks for one.
    signal: close,
    usage: usageOf(req),
  };
  const answer = await (tracingOn() ? inMcpMetaTrace(body, version, admitted.usage, () => dispatch(s, admitted)) : dispatch(s, admitted));
  return sendAnswer(res, answer, answer.kind === 'web' ? close.signal : undefined, admitted.usage, headId);
}

/** A POST of the 2024-11-05 transport: its answers go on the session's stream, then 202. */
async function postToSseSession(s: McpFaceState, req: IncomingMessage, res: ServerResponse, sessionId: string, body: string, principal: Principal, scope: string | undefined, headId: string | undefined): Promise<void> {
  if (!s.sse.owns(sessionId, scope ?? '', principal.subject)) return sendAnswer(res, rpcError(404, -32001, 'Session not found'), undefined, undefined, headId);
  const usage = usageOf(req);
  const fields = headerFields(req.headers);
  const run = (b: string, signal: AbortSignal) => {
    const admitted: Admitted = { method: 'POST', url: req.url ?? '/mcp', host: req.headers.host, fields, sessionId: undefined, body: b, principal, scope, signal, usage, sseTransport: true };
    return tracingOn() ? inMcpMetaTrace(b, fields['mcp-protocol-version'], usage, () => dispatch(s, admitted)) : dispatch(s, admitted);
  };
  await s.sse.post(sessionId, body, run, usage);
  if (res.destroyed) return;
  if (headId !== undefined) res.setHeader('X-Request-Id', headId);
  res.writeHead(202, { 'Content-Type': 'text/plain' });
  res.end('Accepted');
}

/** A body the edge refused, in the JSON-RPC shape: -32603 when the server is busy, else -32600. */
function refusedBody(err: A2AError, headers: Record<string, string>): Answer {
  const { status, code } = mcpRefusal(err);
  return rpcError(status, code, err.message, headers);
}

/** One POST to `/mcp` from inside the process: the same checks, admission and dispatch. */
async function call(s: McpFaceState, c: InProcessCall): Promise<Answer> {
  const { d } = s;
  const rejected = s.checkHost(c.headers);
  if (rejected) return rpcError(403, MCP_CODE.ServerError, rejected);
  if (Buffer.byteLength(c.body) > d.bodyLimit) {
    const problem = { problem: 'too-large' } as const;
    return refusedBody(bodyRefusal(problem, d.bodyLimit), bodyRefusalHeaders(problem));
  }
  const discovery = !!d.publicDiscovery && isPublicDiscoveryCall(c.body);
  const principal = discovery ? await discoveryPrincipal(() => c.principal('/mcp'), d.policy) : await admit(s.admission, undefined, c.principal);
  if (isAnswer(principal)) return principal;
  const scope = principal === PUBLIC_DISCOVERY_PRINCIPAL ? PUBLIC_SCOPE : undefined;
  return dispatch(s, { method: 'POST', url: '/mcp', host: c.headers.host, fields: headerFields(c.headers), sessionId: undefined, body: c.body, principal, scope, signal: c.signal, usage: c.usage });
}

function reject(req: IncomingMessage, res: ServerResponse, err: A2AError): void {
  const { status, code } = mcpRefusal(err);
  if (err.kind === 'Unavailable') {
    if (req.headers.origin && !res.headersSent) setCors(res, req.headers.origin);
    sendJsonRpcError(res, status, code, 'The server failed to start');
    return;
  }
  if (!res.headersSent) sendJsonRpcError(res, status, code, 'Internal error');
  else res.destroy();
}

async function close(s: McpFaceState): Promise<void> {
  s.streams.close();
  s.sse.close();
  s.sessions.close();
  // subscriptions/listen streams never end by themselves; without this the listener waits forever.
  await s.scopes.close();
}

export function routeOf(path: string): McpRoute | undefined {
  if (path === '/mcp' || path === '/mcp/') return { kind: 'mcp' };
  if (!path.startsWith('/a2a/')) return undefined;
  const rest = path.slice(5);
  // One segment (`/a2a/{agent}`, the A2A endpoints): none of the routes below. Every request asks.
  if (!rest.includes('/')) return undefined;
  const seg = rest.split('/');
  if (seg[seg.length - 1] === '') seg.pop();
  try {
    if (seg.length === 2 && seg[1] === 'mcp') return { kind: 'mcp', agentId: decodeURIComponent(seg[0]!) };
    if (seg.length === 3 && seg[1] === 'items') return { kind: 'item', agentId: decodeURIComponent(seg[0]!), itemId: decodeURIComponent(seg[2]!) };
  } catch {
    return undefined;
  }
  return undefined;
}

function headerOf(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
