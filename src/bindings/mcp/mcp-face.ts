/**
 * The MCP face: `/mcp` (every agent) and `/a2a/{agentId}/mcp` (one agent), plus the item pages
 * of `/a2a/{agentId}/items/{id}` (item-route.ts). The edge admits the request (request id, start
 * gate, body policy, lazy authentication); this face, in this order:
 *
 *   edge-checks.ts   CORS preflight, the transport's methods, Host/Origin (DNS rebinding)
 *   admission.ts     the agent of `/a2a/{id}/mcp` (hidden-agent rule), authentication + `use-mcp`
 *   server-stream.ts a 2025-era client's standalone GET stream
 *   sse-transport.ts the 2024-11-05 HTTP+SSE transport: its GET stream and its `?sessionId=` POSTs
 *   `dispatch`       the body through the lenient edge, then the first that takes it:
 *                    tasks-requests.ts, a fixture module's fastPath (fixture-module.ts),
 *                    plain-tool-answer.ts (the fast path),
 *                    legacy-sessions.ts, else the SDK (mcp-scopes.ts, bridged by sdk-bridge.ts)
 *
 * Every step answers with a value (answer.ts), so the compat routes' calls run the same steps in
 * process (`call`) and cannot be admitted or answered differently from a call on `/mcp`.
 */
import { tracingOn } from '../../observability/tracing/index.js';
import { inMcpMetaTrace } from './meta-trace.js';
import { noteMcpCall } from './mcp-usage.js';
import { carryUsage, type UsageDraft } from '../../core/usage/usage-draft.js';
import { usageOf } from '../../edge/call-usage.js';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../core/a2a-handler.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { Principal } from '../../core/authz/principal.js';
import { onSurface } from '../../core/authz/surface.js';
import type { EdgeLog, Face, RequestContext } from '../../edge/face.js';
import type { A2AError } from '../../protocol/a2a/errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { bodyRefusal, bodyRefusalHeaders } from '../../edge/body.js';
import { admit, admitToAgent, isAnswer, type AdmissionDeps, type PrincipalOf } from './admission.js';
import type { SkillAnnotationsLookup } from './agent-tools.js';
import { json, rpcError, sendAnswer, sendJsonRpcError, type Answer } from './answer.js';
import { ALLOW, hostOriginCheck, isMcpMethod, preflight, setCors } from './edge-checks.js';
import type { McpFixtureModule } from './fixture-module.js';
import { createSharedTaskStateCodec, createTaskStateCodec } from './input-required.js';
import { serveItem } from './item-route.js';
import { isElicitingLegacyInitialize, LegacySessions } from './legacy-sessions.js';
import { LEGACY_VERSIONS, normaliseAccept, reconcileVersionHeader } from './lenient-edge.js';
import { authInfoFor, InFlightCalls, principalOf, serverInfo } from './mcp-server-factory.js';
import { McpScopes } from './mcp-scopes.js';
import { startToolTask } from './mcp-tasks.js';
import { answerPlainToolCall } from './plain-tool-answer.js';
import { plainToolCallOf, tasksRequestOf } from './plain-tool-call.js';
import { discoveryPrincipal, isPublicDiscoveryCall, PUBLIC_DISCOVERY_PRINCIPAL, PUBLIC_SCOPE } from './public-discovery.js';
import { invalidParamsOf } from './request-params.js';
import { headerFields, webRequest } from './sdk-bridge.js';
import { serverStreams, wantsServerStream } from './server-stream.js';
import { sessionIdOfQuery, SseTransport } from './sse-transport.js';
import { answerTasksRequest } from './tasks-requests.js';
import { MCP_CODE, mcpRefusal } from './mcp-errors.js';

export interface McpFaceDeps {
  registry: AgentRegistry;
  handler: A2AHandler;
  /** the authenticator's challenge for a refused credential (auth/authenticator.ts) */
  challenge: AdmissionDeps['challenge'];
  log: EdgeLog;
  bodyLimit: number;
  keepAliveMs: number;
  /** the configured public base URL; with port 0 in it, the bound port is not known yet (agents' baseUrl is) */
  publicUrl: string;
  /** the host the listener binds; loopback turns on DNS-rebinding protection */
  bindHost: string;
  version: string;
  /**
   * HMAC key (>= 32 bytes) sealing MRTR `requestState`s; must be the same on every replica that
   * may receive a retry. Absent: a random key per process.
   */
  requestStateKey?: Uint8Array | string;
  /**
   * Keys shared by every replica, newest first (KeyStore.derivedSecrets): MRTR states are sealed
   * with the first and verified against each. Takes precedence over `requestStateKey`.
   */
  requestStateKeys?: () => Promise<Uint8Array[]>;
  /** the configured hints of a skill's tool (`agents[].skills[id].annotations`); absent: defaults only */
  skillAnnotations?: SkillAnnotationsLookup;
  /** `mcp.genericTools`: list_agents, send_message, get_task, cancel_task on `/mcp` (generic-tools.ts) */
  genericTools?: boolean;
  /** `mcp.fixtureModule`, being imported since start: test-only tools, resources and prompts on `/mcp` (fixture-module.ts) */
  fixtureModule?: Promise<McpFixtureModule>;
  /** `mcp.publicDiscovery`: discovery calls on `/mcp` without credentials (public-discovery.ts) */
  publicDiscovery?: boolean;
  /** the authorization policy (src/core/authz): who may use MCP, which tools and data each caller sees */
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an MCP endpoint path (`/mcp`, `/a2a/{id}/mcp`), named in 401s */
  resourceMetadataUrl?: (path: string) => string;
}

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

/** Legacy sessions exist only for clients that take elicitation (legacy-sessions.ts). */
const LEGACY_SESSION_IDLE_MS = 30 * 60_000;
const LEGACY_SESSION_MAX = 1000;

/** What `dispatch` needs of a request whose caller was admitted. */
interface Admitted {
  method: string;
  /** path and query as received */
  url: string;
  host: string | undefined;
  /** header fields by lower-case name (sdk-bridge.ts `headerFields`); the lenient edge corrects them */
  fields: Record<string, string>;
  sessionId: string | undefined;
  body: string | undefined;
  principal: Principal;
  /** the scope served: an agent id, undefined for `/mcp`, or PUBLIC_SCOPE */
  scope: string | undefined;
  signal: AbortSignal;
  usage: UsageDraft | undefined;
  /** a POST of the 2024-11-05 HTTP+SSE transport: never a 2025-era session (its answers go on the stream) */
  sseTransport?: true;
}

export function mcpFace(d: McpFaceDeps): McpFace {
  const inFlight = new InFlightCalls();
  // Tool calls and task reads from MCP are authorized by the core under the mcp:tools… scopes.
  const handler = onSurface(d.handler, 'mcp');
  const subjectOf = (a: Parameters<typeof principalOf>[0]) => principalOf(a).subject;
  const stateCodec = d.requestStateKeys ? createSharedTaskStateCodec({ keys: d.requestStateKeys, subjectOf }) : createTaskStateCodec({ ...(d.requestStateKey ? { key: d.requestStateKey } : {}), subjectOf });
  // A fixture module that failed to load is logged once; `/mcp` then answers as after a failed start.
  let fixtures: McpFixtureModule | undefined;
  const fixturesLoaded = d.fixtureModule?.then((m) => void (fixtures = m));
  fixturesLoaded?.catch((err: unknown) => d.log.error({ err }, 'mcp: the fixture module (mcp.fixtureModule) could not be loaded'));
  const sessions = new LegacySessions({ idleMs: LEGACY_SESSION_IDLE_MS, max: LEGACY_SESSION_MAX, keepAliveMs: d.keepAliveMs, maxRequestBodySize: d.bodyLimit, log: d.log });
  const scopes = new McpScopes({
    registry: d.registry,
    handler,
    ...(d.policy ? { policy: d.policy } : {}),
    inFlight,
    stateCodec,
    log: d.log,
    version: d.version,
    keepAliveMs: d.keepAliveMs,
    bodyLimit: d.bodyLimit,
    ...(d.skillAnnotations ? { skillAnnotations: d.skillAnnotations } : {}),
    ...(d.genericTools ? { genericTools: true } : {}),
    ...(fixturesLoaded ? { fixtureModule: () => fixtures } : {}),
    onListChanged: () => sessions.listChanged(),
  });
  const streams = serverStreams(scopes.listBus, d.keepAliveMs);
  const sse = new SseTransport(scopes.listBus, { keepAliveMs: d.keepAliveMs, max: LEGACY_SESSION_MAX, log: d.log });
  const info = serverInfo(d.version);
  const checkHost = hostOriginCheck(d.publicUrl, d.bindHost);
  const admission: AdmissionDeps = { registry: d.registry, challenge: d.challenge, ...(d.policy ? { policy: d.policy } : {}), ...(d.resourceMetadataUrl ? { resourceMetadataUrl: d.resourceMetadataUrl } : {}) };

  /** The answers of the face's own edge checks, which need nothing from start-up. */
  const edgeAnswer = (req: IncomingMessage, res: ServerResponse, route: McpRoute): boolean => {
    if (route.kind === 'mcp' && req.method === 'OPTIONS') return (preflight(req, res), true);
    if (route.kind === 'mcp' && !isMcpMethod(req.method)) {
      res.setHeader('Allow', ALLOW);
      sendJsonRpcError(res, 405, MCP_CODE.InvalidRequest, `${req.method} is not allowed on the MCP endpoint`);
      return true;
    }
    const origin = req.headers.origin;
    if (origin) setCors(res, origin);
    const rejected = checkHost(req.headers);
    if (rejected) {
      d.log.debug({ host: req.headers.host, origin }, `mcp: ${rejected}`);
      sendJsonRpcError(res, 403, MCP_CODE.ServerError, rejected);
      return true;
    }
    return false;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, ctx: RequestContext, route: McpRoute): Promise<void> => {
    if (edgeAnswer(req, res, route)) return;
    const principalOf: PrincipalOf = (path) => ctx.principal(path);
    if (route.agentId !== undefined) {
      const refused = await admitToAgent(admission, route.agentId, principalOf);
      if (refused) return sendAnswer(res, refused);
    }
    if (route.kind === 'item') return serveItem(admission, req, res, route.agentId, route.itemId, principalOf);
    return serveMcp(req, res, ctx, route.agentId, principalOf);
  };

  async function serveMcp(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, agentId: string | undefined, principalOf: PrincipalOf): Promise<void> {
    const sessionId = headerOf(req, 'mcp-session-id');
    // mcp.publicDiscovery: the body is read first, so that a discovery call can be told apart.
    let preRead: Awaited<ReturnType<RequestContext['body']>> | undefined;
    let discovery = false;
    if (d.publicDiscovery && agentId === undefined && req.method === 'POST' && sessionId === undefined) {
      preRead = await ctx.body();
      discovery = typeof preRead === 'string' && isPublicDiscoveryCall(preRead);
    }
    const principal = discovery ? await discoveryPrincipal(() => principalOf('/mcp'), d.policy) : await admit(admission, agentId, principalOf);
    if (isAnswer(principal)) return sendAnswer(res, principal);
    // An anonymous discovery call (or one whose credential was refused or lacks MCP) sees the public surface.
    const scope = principal === PUBLIC_DISCOVERY_PRINCIPAL ? PUBLIC_SCOPE : agentId;
    // A 2025-era client's standalone server stream (server-stream.ts); the 2026 revision has none.
    const version = headerOf(req, 'mcp-protocol-version');
    if (wantsServerStream(req)) {
      // Before any exchange (no version yet): a client of the 2024-11-05 HTTP+SSE transport.
      if (version === undefined) return sse.open(req, res, scope ?? '', principal.subject);
      if (LEGACY_VERSIONS.includes(version)) return streams.open(req, res);
    }

    let body: string | undefined;
    if (req.method === 'POST') {
      const read = preRead ?? (await ctx.body());
      if (typeof read === 'object') return sendAnswer(res, refusedBody(read.error, read.headers));
      body = read;
    }
    const sseSession = req.method === 'POST' && sessionId === undefined ? sessionIdOfQuery(req.url) : undefined;
    if (sseSession !== undefined && body !== undefined) return postToSseSession(req, res, sseSession, body, principal, scope);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const admitted: Admitted = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      host: req.headers.host,
      fields: headerFields(req.headers),
      sessionId,
      body,
      principal,
      scope,
      signal: abort.signal,
      usage: usageOf(req),
    };
    const answer = await (tracingOn() ? inMcpMetaTrace(body, version, admitted.usage, () => dispatch(admitted)) : dispatch(admitted));
    return sendAnswer(res, answer, abort.signal, admitted.usage);
  }

  /** A POST of the 2024-11-05 transport: its answers go on the session's stream, then 202. */
  async function postToSseSession(req: IncomingMessage, res: ServerResponse, sessionId: string, body: string, principal: Principal, scope: string | undefined): Promise<void> {
    if (!sse.owns(sessionId, scope ?? '', principal.subject)) return sendAnswer(res, rpcError(404, -32001, 'Session not found'));
    const usage = usageOf(req);
    const fields = headerFields(req.headers);
    const run = (b: string, signal: AbortSignal) => {
      const admitted: Admitted = { method: 'POST', url: req.url ?? '/mcp', host: req.headers.host, fields, sessionId: undefined, body: b, principal, scope, signal, usage, sseTransport: true };
      return tracingOn() ? inMcpMetaTrace(b, fields['mcp-protocol-version'], usage, () => dispatch(admitted)) : dispatch(admitted);
    };
    await sse.post(sessionId, body, run, usage);
    if (res.destroyed) return;
    res.writeHead(202, { 'Content-Type': 'text/plain' });
    res.end('Accepted');
  }

  /** The body through the lenient edge, then the first of the fast paths that takes it, else the SDK. */
  async function dispatch(r: Admitted): Promise<Answer> {
    const { fields, scope } = r;
    let principal = r.principal;
    if (
      fixturesLoaded &&
      !(await fixturesLoaded.then(
        () => true,
        () => false,
      ))
    )
      return rpcError(503, MCP_CODE.InternalError, 'The server failed to start');
    let parsed: unknown;
    if (r.body !== undefined) {
      // The SDK's validation recurses: a body nested thousands deep would end in its 500.
      if (exceedsJsonDepth(r.body)) return rpcError(400, MCP_CODE.InvalidRequest, `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        parsed = JSON.parse(r.body);
      } catch {
        parsed = undefined; // the SDK answers the parse error
      }
      const invalid = invalidParamsOf(parsed, fields['mcp-protocol-version']);
      if (invalid) return json(200, { jsonrpc: '2.0', ...invalid });
      const accept = normaliseAccept(fields.accept);
      if (accept.correction) {
        fields.accept = accept.value;
        d.log.debug({ correction: accept.correction }, 'mcp: lenient edge corrected Accept');
      }
      const version = reconcileVersionHeader(fields['mcp-protocol-version'], parsed);
      if (version.correction) {
        if (version.value === undefined) delete fields['mcp-protocol-version'];
        else fields['mcp-protocol-version'] = version.value;
        d.log.debug({ correction: version.correction }, 'mcp: lenient edge corrected MCP-Protocol-Version');
      }
    }

    if (r.usage) {
      noteMcpCall(r.usage, parsed, fields['mcp-protocol-version']);
      // The core takes the draft from the caller: tool calls reach it from inside the SDK.
      if (principal !== PUBLIC_DISCOVERY_PRINCIPAL) principal = carryUsage(principal, r.usage);
    }
    if (r.method === 'POST' && r.sessionId === undefined) {
      const headers = { get: (name: string) => fields[name] ?? null };
      const tasksRequest = tasksRequestOf(parsed, headers);
      if (tasksRequest) return answerTasksRequest({ handler, registry: d.registry, ...(d.policy ? { policy: d.policy } : {}), info }, tasksRequest, principal, scope);
      const fixture = fixtures?.fastPath
        ? await fixtures.fastPath(parsed, headers, {
            principal,
            info,
            agentTool: (name) => scopes.for(scope).factory.agentTool(name, principal),
            startToolTask: (spec, args) => startToolTask(handler, spec, args, principal),
          })
        : undefined;
      if (fixture) return fixture;
      // The plain path asks no one but the core whether this caller may use the tool (plain-tool-answer.ts).
      const plain = plainToolCallOf(parsed, headers);
      const spec = plain && scopes.for(scope).factory.plainTool(plain.name, principal);
      const answer = plain && spec ? await answerPlainToolCall({ handler, inFlight, log: d.log, stateCodec, info }, plain, spec, principal, r.signal) : undefined;
      if (answer) return answer;
    }
    const request = webRequest({ host: r.host, url: r.url, method: r.method, fields, body: r.body, signal: r.signal });
    const authInfo = authInfoFor(principal);
    const scopeKey = scope ?? '';
    if (r.sessionId !== undefined) {
      const response = await sessions.serve(r.sessionId, scopeKey, request, authInfo, principal.subject, parsed);
      return response ? { kind: 'web', response } : rpcError(404, MCP_CODE.TransportRefused, 'Session not found');
    }
    const h = scopes.for(scope);
    if (r.method === 'POST' && !r.sseTransport && isElicitingLegacyInitialize(parsed)) {
      return { kind: 'web', response: await sessions.open(scopeKey, h.factory, request, authInfo, principal.subject, parsed) };
    }
    return { kind: 'web', response: await h.http.fetch(request, { authInfo, ...(parsed !== undefined ? { parsedBody: parsed } : {}) }) };
  }

  /** A body the edge refused, in the JSON-RPC shape: -32603 when the server is busy, else -32600. */
  const refusedBody = (err: A2AError, headers: Record<string, string>): Answer => {
    const { status, code } = mcpRefusal(err);
    return rpcError(status, code, err.message, headers);
  };

  async function call(c: InProcessCall): Promise<Answer> {
    const rejected = checkHost(c.headers);
    if (rejected) return rpcError(403, MCP_CODE.ServerError, rejected);
    if (Buffer.byteLength(c.body) > d.bodyLimit) {
      const problem = { problem: 'too-large' } as const;
      return refusedBody(bodyRefusal(problem, d.bodyLimit), bodyRefusalHeaders(problem));
    }
    const discovery = !!d.publicDiscovery && isPublicDiscoveryCall(c.body);
    const principal = discovery ? await discoveryPrincipal(() => c.principal('/mcp'), d.policy) : await admit(admission, undefined, c.principal);
    if (isAnswer(principal)) return principal;
    const scope = principal === PUBLIC_DISCOVERY_PRINCIPAL ? PUBLIC_SCOPE : undefined;
    return dispatch({ method: 'POST', url: '/mcp', host: c.headers.host, fields: headerFields(c.headers), sessionId: undefined, body: c.body, principal, scope, signal: c.signal, usage: c.usage });
  }

  return {
    name: 'mcp',
    match: (_req, path) => routeOf(path),
    serve,
    // The preflight, a method the transport does not have and a refused Host or Origin are
    // answered at once, as before the server has started.
    ungated: (req, route) => (route.kind === 'mcp' && (req.method === 'OPTIONS' || !isMcpMethod(req.method))) || checkHost(req.headers) !== undefined,
    reject(req, res, err, _route) {
      const { status, code } = mcpRefusal(err);
      if (err.kind === 'Unavailable') {
        if (req.headers.origin && !res.headersSent) setCors(res, req.headers.origin);
        return sendJsonRpcError(res, status, code, 'The server failed to start');
      }
      if (!res.headersSent) sendJsonRpcError(res, status, code, 'Internal error');
      else res.destroy();
    },
    call,
    admits: async (p) => !isAnswer(await admit(admission, undefined, p)),
    async close() {
      streams.close();
      sse.close();
      sessions.close();
      // subscriptions/listen streams never end by themselves; without this the listener waits forever.
      await scopes.close();
    },
  };
}

export function routeOf(path: string): McpRoute | undefined {
  if (path === '/mcp' || path === '/mcp/') return { kind: 'mcp' };
  if (!path.startsWith('/a2a/')) return undefined;
  const seg = path.slice(5).split('/');
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
