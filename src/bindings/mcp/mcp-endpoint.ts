/**
 * The MCP face on plain `node:http`: `/mcp` (every agent) and `/a2a/{agentId}/mcp` (one agent),
 * both protocol eras through the SDK's `createMcpHandler` (modern 2026-07-28 stateless, and
 * 2025-era requests through its stateless legacy fallback). In front of the SDK, in this order:
 * CORS preflight (before auth), Host/Origin checks, the body limit, authentication, then the
 * lenient edge (lenient-edge.ts). The node request is bridged to a web `Request` here; closing
 * the connection aborts it, which the SDK turns into cancellation of the tool call.
 *
 * Also here, because they are part of the same face: CORS for `/.well-known/*`, and the pages
 * that Table Expert `url`s open (`GET /a2a/{agentId}/items/{id}`).
 */
import { unknownAgentMessage } from '../../core/agents/unknown-agent.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, InMemoryServerEventBus, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { ApiKeyAuthenticator } from '../../auth/api-key-authenticator.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../core/a2a-handler.js';
import type { Principal } from '../../core/authz/principal.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import { SCOPES } from '../../core/authz/scopes.js';
import { onSurface } from '../../core/authz/surface.js';
import { bearerChallenge } from '../../auth/challenge.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { LEGACY_VERSIONS, normaliseAccept, reconcileVersionHeader } from './lenient-edge.js';
import { serverStreams, wantsServerStream } from './server-stream.js';
import { invalidParamsOf } from './request-params.js';
import { authInfoFor, createMcpServerFactory, InFlightCalls, principalOf, serverInfo, type McpScope } from './mcp-server-factory.js';
import { createSharedTaskStateCodec, createTaskStateCodec } from './input-required.js';
import { callAgentTool, toolName, type AgentToolSpec } from './agent-tools.js';
import { plainToolCallOf, plainToolContext, SERVER_INFO_KEY, tasksRequestOf, type PlainToolCall } from './plain-tool-call.js';
import { declaresTasks, serveTasksMethod, startToolTask, TASKS_EXTENSION } from './mcp-tasks.js';
import { errorResult } from './tool-result.js';
import { discoveryPrincipal, isPublicDiscoveryCall, PUBLIC_DISCOVERY_PRINCIPAL, PUBLIC_SCOPE } from './public-discovery.js';
import { FIXTURE_AGENT_ID } from './conformance-task-agent.js';
import { answerFixtureTaskCall, fixtureTaskCallOf, type FixtureTaskCall } from './conformance-task-tools.js';
import { isElicitingLegacyInitialize, LegacySessions } from './legacy-sessions.js';
import type { SkillAnnotationsLookup } from './agent-tools.js';
import { renderItem } from './item-page.js';
import { tableExpertOf, type TableExpertBinding } from './table-expert-tools.js';
import { bodyRefusal, bodyRefusalHeaders, readLimitedBody } from '../read-limited-body.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';

export interface McpEndpointDeps {
  registry: AgentRegistry;
  handler: A2AHandler;
  auth: ApiKeyAuthenticator;
  log: Logger;
  bodyLimit: number;
  keepAliveMs: number;
  /** the configured public base URL; with port 0 in it, the bound port is not known yet (agents' baseUrl is) */
  publicUrl: string;
  /** the host the listener binds; loopback turns on DNS-rebinding protection */
  bindHost: string;
  version: string;
  /** settles once agents are registered */
  started: Promise<void>;
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
  /** `mcp.conformanceFixtures`: serve the conformance suite's fixtures on `/mcp` (conformance-fixtures.ts) */
  conformanceFixtures?: boolean;
  /** `mcp.publicDiscovery`: discovery calls on `/mcp` without credentials (public-discovery.ts) */
  publicDiscovery?: boolean;
  /** the authorization policy (src/core/authz): who may use MCP, which tools and data each caller sees */
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an MCP endpoint path (`/mcp`, `/a2a/{id}/mcp`), named in 401s */
  resourceMetadataUrl?: (path: string) => string;
}

/** Legacy sessions exist only for clients that take elicitation (legacy-sessions.ts). */
const LEGACY_SESSION_IDLE_MS = 30 * 60_000;
const LEGACY_SESSION_MAX = 1000;

/** The Streamable HTTP transport's methods (besides the CORS preflight). */
const MCP_METHODS: readonly string[] = ['GET', 'POST', 'DELETE'];
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID, X-API-Key, X-Request-Id';
const EXPOSE_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, X-Request-Id';

/** Returns a handler that serves MCP requests and answers false for anything else. */
/** Serves MCP requests (false for anything else); `close()` ends open streams so the listener can stop. */
export type McpEndpoint = ((req: IncomingMessage, res: ServerResponse) => boolean) & { close(): Promise<void> };

export function createMcpEndpoint(d: McpEndpointDeps): McpEndpoint {
  const inFlight = new InFlightCalls();
  // Tool calls and task reads from MCP are authorized under the mcp:tools… scopes.
  const mcpHandler = onSurface(d.handler, 'mcp');
  const subjectOf = (a: Parameters<typeof principalOf>[0]) => principalOf(a).subject;
  const stateCodec = d.requestStateKeys
    ? createSharedTaskStateCodec({ keys: d.requestStateKeys, subjectOf })
    : createTaskStateCodec({ ...(d.requestStateKey ? { key: d.requestStateKey } : {}), subjectOf });
  const handlers = new Map<string, { http: McpHttpHandler; factory: ReturnType<typeof createMcpServerFactory> }>();
  // One bus for every scope's handler: subscriptions/listen streams (modern era) hear list changes.
  const listBus = new InMemoryServerEventBus((err) => d.log.debug({ err }, 'mcp: list-change listener failed'));
  // Handlers dropped on an agent change may still hold subscriptions/listen streams until close().
  const replaced = new Set<McpHttpHandler>();
  const sessions = new LegacySessions({ idleMs: LEGACY_SESSION_IDLE_MS, max: LEGACY_SESSION_MAX, keepAliveMs: d.keepAliveMs, maxRequestBodySize: d.bodyLimit, log: d.log });
  // Agents added or removed after start: the per-scope surfaces are rebuilt on next use, open
  // subscriptions/listen streams hear list_changed, legacy sessions are told and retired.
  d.registry.onChange((change) => {
    for (const h of handlers.values()) replaced.add(h.http);
    handlers.clear();
    listBus.publish({ kind: 'tools_list_changed' });
    listBus.publish({ kind: 'resources_list_changed' });
    sessions.listChanged();
    d.log.debug(change, 'mcp: agents changed; tools and resources list_changed announced');
  });
  const info = serverInfo(d.version);
  const loopback = isLoopbackHost(d.bindHost);
  const publicOrigin = new URL(d.publicUrl).origin;
  const publicHost = new URL(d.publicUrl).host.toLowerCase();

  const tableExpertIn = (agents: McpScope['agents']): TableExpertBinding | undefined => {
    for (const a of agents) {
      const expert = tableExpertOf(a);
      if (expert) return { agentId: a.id, expert, itemUrl: `${a.baseUrl}/items` };
    }
    return undefined;
  };
  /** `PUBLIC_SCOPE`: the surface anonymous discovery calls see (public-discovery.ts): every caller's agents, no policy. */
  const handlerFor = (agentId: string | undefined): { http: McpHttpHandler; factory: ReturnType<typeof createMcpServerFactory> } => {
    const key = agentId ?? '';
    let h = handlers.get(key);
    if (!h) {
      const publicScope = agentId === PUBLIC_SCOPE;
      const agents = publicScope ? d.registry.list().filter((a) => !d.policy || d.policy.seenByEveryone(a.id, 'mcp')) : agentId ? [d.registry.get(agentId)!] : d.registry.list();
      const tableExpert = tableExpertIn(agents);
      const scope: McpScope = { name: agentId ? `/a2a/${agentId}/mcp` : '/mcp', agents, ...(tableExpert ? { tableExpert } : {}) };
      const factory = createMcpServerFactory({ handler: mcpHandler, ...(d.policy && !publicScope ? { policy: d.policy } : {}), inFlight, version: d.version, log: d.log, stateCodec, ...(d.skillAnnotations ? { skillAnnotations: d.skillAnnotations } : {}), genericTools: !!d.genericTools && (!agentId || publicScope), conformanceFixtures: !!d.conformanceFixtures && !agentId, listBus }, scope);
      const http = createMcpHandler(factory, {
        legacy: 'stateless',
        bus: listBus,
        keepAliveMs: d.keepAliveMs,
        maxRequestBodySize: d.bodyLimit,
        onerror: (err) => d.log.debug({ err, scope: scope.name }, 'mcp: request rejected or failed'),
      });
      h = { http, factory };
      handlers.set(key, h);
    }
    return h;
  };

  const streams = serverStreams(listBus, d.keepAliveMs);
  const close = async (): Promise<void> => {
    streams.close();
    // subscriptions/listen streams never end by themselves; without this the listener waits forever.
    const all = [...replaced, ...[...handlers.values()].map((h) => h.http)];
    replaced.clear();
    sessions.close();
    await Promise.all(all.map((h) => h.close().catch((err: unknown) => d.log.debug({ err }, 'mcp: handler close failed'))));
  };

  const endpoint = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.startsWith('/.well-known/')) {
      if (req.method === 'OPTIONS') return preflight(req, res), true;
      if (req.headers.origin) setCors(res, req.headers.origin);
      return false; // Fastify serves the document with these headers
    }
    const route = routeOf(path);
    if (!route) return false;

    if (route.kind === 'mcp' && req.method === 'OPTIONS') return preflight(req, res), true;
    if (route.kind === 'mcp' && !MCP_METHODS.includes(req.method ?? '')) {
      // TRACE, PUT, …: not MCP (Streamable HTTP uses GET, POST, DELETE); 405 with Allow (RFC 9110 §15.5.6).
      res.setHeader('Allow', [...MCP_METHODS, 'OPTIONS'].join(', '));
      sendJsonRpcError(res, 405, -32600, `${req.method} is not allowed on the MCP endpoint`);
      return true;
    }
    const origin = req.headers.origin;
    if (origin) setCors(res, origin);
    const rejected = checkHostAndOrigin(req);
    if (rejected) {
      d.log.debug({ host: req.headers.host, origin }, `mcp: ${rejected}`);
      sendJsonRpcError(res, 403, -32000, rejected);
      return true;
    }
    d.started.then(
      () => {
        const agentId = route.agentId;
        const run = (async () => {
          if (agentId !== undefined && !d.registry.get(agentId)) return sendJsonRpcError(res, 404, -32601, unknownAgentMessage(agentId, d.registry, d.policy, 'mcp'));
          // The hidden-agent rule (core/authz): a caller who may not see the agent gets the answer above.
          const admitted = agentId !== undefined && d.policy ? await d.policy.admitToAgent(agentId, 'mcp', () => d.auth.authenticate(req.headers, { resourcePath: `/a2a/${agentId}/mcp` })) : undefined;
          if (admitted?.unknown) return sendJsonRpcError(res, 404, -32601, unknownAgentMessage(agentId!, d.registry, d.policy, 'mcp'));
          const known = admitted && !admitted.unknown ? admitted.principal : undefined;
          return route.kind === 'mcp' ? serveMcp(req, res, agentId, known) : serveItem(req, res, agentId!, route.itemId!, known);
        })();
        return run.catch((err: unknown) => {
          d.log.error({ err }, 'unhandled error on the MCP endpoint');
          if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
          else res.destroy();
        });
      },
      () => sendJsonRpcError(res, 503, -32603, 'The server failed to start'),
    );
    return true;
  };
  return Object.assign(endpoint, { close });

  function checkHostAndOrigin(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    if (loopback) {
      // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
      const host = (req.headers.host ?? '').toLowerCase();
      if (host !== publicHost && !isLoopbackHost(hostnameOf(host))) return 'Host not allowed';
      if (origin && origin !== 'null' && origin !== publicOrigin && !isLoopbackOrigin(origin)) return 'Origin not allowed';
      if (origin === 'null') return 'Origin not allowed';
    }
    return undefined;
  }

  /**
   * Authentication, then the `use-mcp` decision: the principal, or undefined once a 401 (no or a
   * refused credential) or 403 (no MCP scope) with its challenge was sent (RFC 9728 §5.1: the
   * challenge names the endpoint's protected-resource metadata, which MCP clients start from).
   */
  async function admit(req: IncomingMessage, res: ServerResponse, agentId: string | undefined, known?: Principal): Promise<Principal | undefined> {
    const path = agentId ? `/a2a/${agentId}/mcp` : '/mcp';
    const resourceMetadata = d.resourceMetadataUrl?.(path);
    const challenge = { scope: SCOPES.mcpTools, ...(resourceMetadata ? { resourceMetadata } : {}) };
    let principal: Principal;
    try {
      principal = known ?? (await d.auth.authenticate(req.headers, { resourcePath: path }));
    } catch (e) {
      const err = e instanceof A2AError ? e : new A2AError('Unauthenticated');
      if (err.kind !== 'Unauthenticated') return void sendJsonRpcError(res, err.identity.http, -32603, err.message);
      res.setHeader('WWW-Authenticate', d.auth.challenge(err, challenge));
      return void sendJsonRpcError(res, 401, -32001, 'The credential presented is not valid');
    }
    if (d.policy && !d.policy.allows(principal, 'use-mcp')) {
      const anonymous = !principal.authenticated;
      res.setHeader('WWW-Authenticate', bearerChallenge({ ...challenge, ...(anonymous ? {} : { error: 'insufficient_scope' as const }) }));
      return void (anonymous
        ? sendJsonRpcError(res, 401, -32001, 'Authentication required (scope: mcp:tools)')
        : sendJsonRpcError(res, 403, -32001, 'The credential lacks an MCP scope (mcp:tools or mcp:tools:<usecase>)'));
    }
    if (agentId && d.policy && !d.policy.canSeeAgent(principal, agentId, 'mcp')) {
      return void sendJsonRpcError(res, 404, -32601, unknownAgentMessage(agentId, d.registry, d.policy, 'mcp'));
    }
    return principal;
  }

  async function serveMcp(req: IncomingMessage, res: ServerResponse, agentId: string | undefined, known?: Principal): Promise<void> {
    // mcp.publicDiscovery: the body is read first, so that a discovery call can be told apart.
    let preRead: Awaited<ReturnType<typeof readLimitedBody>> | undefined;
    let discovery = false;
    if (d.publicDiscovery && agentId === undefined && req.method === 'POST' && headerOf(req, 'mcp-session-id') === undefined) {
      preRead = await readLimitedBody(req, d.bodyLimit);
      discovery = typeof preRead === 'string' && isPublicDiscoveryCall(preRead);
    }
    const principal = discovery ? await discoveryPrincipal(() => d.auth.authenticate(req.headers, { resourcePath: '/mcp' }), d.policy) : await admit(req, res, agentId, known);
    if (!principal) return;
    // An anonymous discovery call (or one whose credential was refused or lacks MCP) sees the public surface.
    if (principal === PUBLIC_DISCOVERY_PRINCIPAL) agentId = PUBLIC_SCOPE;
    // A 2025-era client's standalone server stream (server-stream.ts); the 2026 revision has none.
    const version = headerOf(req, 'mcp-protocol-version');
    if (wantsServerStream(req) && (version === undefined || LEGACY_VERSIONS.includes(version))) return streams.open(req, res);

    // A plain record first: web Headers are built only for the SDK path (plain-tool-call.ts skips it).
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || k === 'host' || k === 'connection' || k === 'content-length' || k === 'transfer-encoding') continue;
      fields[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    let body: string | undefined;
    let parsed: unknown;
    if (req.method === 'POST') {
      const read = preRead ?? (await readLimitedBody(req, d.bodyLimit));
      if (typeof read === 'object') {
        for (const [k, v] of Object.entries(bodyRefusalHeaders(read))) res.setHeader(k, v);
        const err = bodyRefusal(read, d.bodyLimit);
        return sendJsonRpcError(res, err.identity.http, err.kind === 'Unavailable' ? -32603 : -32600, err.message);
      }
      body = read;
      // The SDK's validation recurses: a body nested thousands deep would end in its 500.
      if (exceedsJsonDepth(body)) return sendJsonRpcError(res, 400, -32600, `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined; // the SDK answers the parse error
      }
      const invalid = invalidParamsOf(parsed, headerOf(req, 'mcp-protocol-version'));
      if (invalid) return writeJson(res, 200, { jsonrpc: '2.0', ...invalid });
      const accept = normaliseAccept(req.headers.accept);
      if (accept.correction) {
        fields.accept = accept.value;
        d.log.debug({ correction: accept.correction }, 'mcp: lenient edge corrected Accept');
      }
      const version = reconcileVersionHeader(headerOf(req, 'mcp-protocol-version'), parsed);
      if (version.correction) {
        if (version.value === undefined) delete fields['mcp-protocol-version'];
        else fields['mcp-protocol-version'] = version.value;
        d.log.debug({ correction: version.correction }, 'mcp: lenient edge corrected MCP-Protocol-Version');
      }
    }

    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.on('close', onClose);
    const sessionId = headerOf(req, 'mcp-session-id');
    if (req.method === 'POST' && sessionId === undefined) {
      const headers = { get: (name: string) => fields[name] ?? null };
      const tasksRequest = tasksRequestOf(parsed, headers);
      if (tasksRequest) return serveTasksRequest(res, tasksRequest, principal, agentId);
      const fixture = d.conformanceFixtures ? fixtureTaskCallOf(parsed, headers) : undefined;
      if (fixture) return serveFixtureTaskCall(res, fixture, principal, agentId);
      const plain = plainToolCallOf(parsed, headers);
      const spec = plain && handlerFor(agentId).factory.agentTool(plain.name, principal);
      if (plain && spec) return servePlainToolCall(res, plain, spec, principal, abort.signal);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: new Headers(fields),
      ...(body !== undefined ? { body } : {}),
      signal: abort.signal,
    });
    const authInfo = authInfoFor(principal);
    const scopeKey = agentId ?? '';
    if (sessionId !== undefined) {
      const r = await sessions.serve(sessionId, scopeKey, request, authInfo, principal.subject, parsed);
      if (!r) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return writeResponse(res, r, abort.signal);
    }
    const h = handlerFor(agentId);
    if (req.method === 'POST' && isElicitingLegacyInitialize(parsed)) {
      return writeResponse(res, await sessions.open(scopeKey, h.factory, request, authInfo, principal.subject, parsed), abort.signal);
    }
    const response = await h.http.fetch(request, { authInfo, ...(parsed !== undefined ? { parsedBody: parsed } : {}) });
    await writeResponse(res, response, abort.signal);
  }

  /** plain-tool-call.ts: the same call as the SDK path, answered as the SDK would (JSON; modern results carry serverInfo and resultType). */
  async function servePlainToolCall(res: ServerResponse, call: PlainToolCall, spec: AgentToolSpec, principal: Principal, signal: AbortSignal): Promise<void> {
    if (call.tasks) {
      const created = await startToolTask(mcpHandler, spec, call.args, principal).catch((err: unknown) => {
        if (err instanceof A2AError) return { ...errorResult(err.message), resultType: 'complete' };
        throw err;
      });
      return writeJson(res, 200, { result: { ...created, _meta: { [SERVER_INFO_KEY]: info } }, jsonrpc: '2.0', id: call.id });
    }
    const result = await callAgentTool({ handler: mcpHandler, inFlight, log: d.log, stateCodec }, spec, call.args, principal, plainToolContext(call, signal), call.era);
    const out = call.era === 'modern' ? { ...result, _meta: { ...result._meta, [SERVER_INFO_KEY]: info }, resultType: 'complete' } : result;
    if (res.destroyed) return;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ result: out, jsonrpc: '2.0', id: call.id }));
  }

  /** conformance-task-tools.ts: a fixture task tool's handle, MRTR round, or -32021, over the fixture agent's A2A tasks. */
  async function serveFixtureTaskCall(res: ServerResponse, call: FixtureTaskCall, principal: Principal, scopeAgent: string | undefined): Promise<void> {
    const specOf = (name: string) => handlerFor(scopeAgent).factory.agentTool(toolName(FIXTURE_AGENT_ID, name), principal);
    const a = await answerFixtureTaskCall(call, { handler: mcpHandler, specOf, principal });
    writeJson(res, a.status, { jsonrpc: '2.0', id: call.id, ...('error' in a ? { error: a.error } : { result: { ...a.result, _meta: { [SERVER_INFO_KEY]: info } } }) });
  }

  /** mcp-tasks.ts: tasks/get, tasks/update, tasks/cancel for clients that declared the extension. */
  async function serveTasksRequest(res: ServerResponse, r: NonNullable<ReturnType<typeof tasksRequestOf>>, principal: Principal, scopeAgent: string | undefined): Promise<void> {
    // SEP-2243 / SEP-2663 routing headers: an Mcp-Name naming another task is HeaderMismatch, HTTP 400.
    if (!r.nameMatches) return writeJson(res, 400, { jsonrpc: '2.0', id: r.id, error: { code: -32020, message: `The Mcp-Name header must carry params.taskId of ${r.method}` } });
    if (!declaresTasks(r.meta)) {
      // SEP-2575: a request needing a capability the client did not declare is -32021, HTTP 400.
      return writeJson(res, 400, { jsonrpc: '2.0', id: r.id, error: { code: -32021, message: `${r.method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } } });
    }
    const visible = (id: string) => (scopeAgent === undefined || scopeAgent === id) && !!d.registry.get(id) && (!d.policy || d.policy.canSeeAgent(principal, id, 'mcp'));
    const toolOf = (id: string) => toolName(id, d.registry.get(id)?.publicCard.skills[0]?.id ?? id);
    const answer = await serveTasksMethod(mcpHandler, r.method, r.params, principal, visible, toolOf);
    if ('error' in answer) return writeJson(res, answer.status, { jsonrpc: '2.0', id: r.id, error: answer.error });
    writeJson(res, 200, { result: { ...answer.result, _meta: { [SERVER_INFO_KEY]: info } }, jsonrpc: '2.0', id: r.id });
  }

  async function serveItem(req: IncomingMessage, res: ServerResponse, agentId: string, itemId: string, known?: Principal): Promise<void> {
    const agent = d.registry.get(agentId)!;
    const expert = tableExpertOf(agent);
    if (req.method !== 'GET' || !expert) return sendJsonRpcError(res, 404, -32601, 'No such page');
    const principal = await admit(req, res, agentId, known);
    if (!principal) return;
    const usecases = d.policy?.usecases(principal);
    const page = await renderItem(expert, itemId, agent.publicCard.name, req.headers.accept, usecases ? { usecases } : undefined);
    res.writeHead(page.status, { 'Content-Type': page.contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" });
    res.end(page.body);
  }
}

type Route = { kind: 'mcp'; agentId?: string } | { kind: 'item'; agentId: string; itemId: string };

function routeOf(path: string): Route | undefined {
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

function setCors(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
}

function preflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(204, {
    'Access-Control-Allow-Origin': req.headers.origin ?? '*',
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ? `${ALLOW_HEADERS}, ${String(req.headers['access-control-request-headers'])}` : ALLOW_HEADERS,
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
    'Access-Control-Max-Age': '86400',
    Vary: 'Origin',
  });
  res.end();
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

async function writeResponse(res: ServerResponse, response: Response, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  const sse = (headers['content-type'] ?? '').startsWith('text/event-stream');
  if (sse) {
    headers['x-accel-buffering'] = 'no';
    headers['cache-control'] ??= 'no-cache';
  }
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  if (sse) res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => (res.writableEnded || res.destroyed ? resolve() : res.once('drain', resolve).once('close', resolve)));
      if (res.destroyed) break;
    }
  } catch {
    // the client went away mid-stream
  } finally {
    signal.removeEventListener('abort', stop);
    res.end();
  }
}


function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const i = host.lastIndexOf(':');
  return i < 0 ? host : host.slice(0, i);
}

function isLoopbackHost(h: string): boolean {
  const host = h.toLowerCase();
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}
