/**
 * The HTTP listener: one edge (src/edge) admits every request and hands it to its face, in this
 * order: the MCP compat routes, MCP, OAuth, A2A (src/bindings/a2a-http/a2a-face.ts); Fastify serves the
 * rest (cards, the registry listing, management, the Novaeden API, OpenAPI, the landing page,
 * JWKS, health) as the fallback face, with the edge's request id, start gate and body reader.
 */
import { connectRoutes } from './connect-routes.js';
import { connectionsRoutes } from './management/connections-routes.js';
import type { RemoteConnectionsSetup } from './remote-connections-setup.js';
import type { UsageRecorder } from '../core/usage/usage-recorder.js';
import { noteRoute } from './route-usage.js';
import { createServer, type ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import { JsonRpcBinding } from '../bindings/a2a-jsonrpc/jsonrpc-binding.js';
import { RestBinding, restErrorBody } from '../bindings/a2a-rest/rest-binding.js';
import type { Config } from '../config/index.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import type { A2AHandler } from '../core/a2a-handler.js';
import type { KeyStore } from '../core/keys/key-store.js';
import { cardRepresentation, conditionalCardResponse } from '../protocol/a2a/card/card-http.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { createA2AFace } from '../bindings/a2a-http/a2a-face.js';
import { cardVersionFor, v03CardOf } from '../bindings/a2a-legacy/v03/cards.js';
import { mcpFace } from '../bindings/mcp/mcp-face.js';
import { addWellKnownCors, wellKnownPreflight } from '../bindings/mcp/well-known-cors.js';
import { mcpCompatFace } from '../bindings/mcp/compat/compat-routes.js';
import { loadMcpFixtureModule } from './mcp-fixture-module.js';
import { withListeningPorts } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';
import { protectedResourceMetadataUrl, publicPathPrefix } from '../auth/oauth-paths.js';
import type { AuthorizationPolicy } from '../core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../core/authz/principal.js';
import { keyRoutes, type ApiKeyAdmin } from './management/keys-routes.js';
import { quotaRoutes } from './management/quota-routes.js';
import type { QuotaBook } from '../core/quotas/quota-book.js';
import { auditRoutes } from './management/audit-routes.js';
import { auditOriginOf } from '../auth/audit-origin.js';
import type { AuditSink } from '../core/audit/audit-event.js';
import type { AuditStore } from '../store/audit-store.js';
import { sendError } from './management/admin-guard.js';
import { landingPage } from './landing-page.js';
import { admitToAgentPath } from '../core/authz/agent-lookup.js';
import { settingsRoute } from './management/settings-route.js';
import { taskEventsRoute, type TaskEventLog } from './management/task-events-route.js';
import { taskRoutes, type TaskAdmin } from './management/task-routes.js';
import { taskListRoute, type TaskSearch } from './management/task-list-route.js';
import { usageRoutes, type UsageRouteDeps } from './management/usage-routes.js';
import { BodyBudget, BODY_BUSY_RETRY_AFTER_SECONDS, type BodyPolicy } from '../edge/body.js';
import { contextOf, createEdge } from '../edge/edge.js';
import type { AnyFace, Face } from '../edge/face.js';
import { StartGate } from '../edge/start-gate.js';
import { uuidv7 } from '../core/ids/uuid-v7.js';
import { refuseBodyWithoutAdmin } from './management/body-admission.js';
import { isNovaedenA2APath, novaedenTaskApi } from './compat/novaeden-task-api.js';
import { novaedenAgentCards } from './compat/novaeden-agent-list.js';
import { openApiRoutes } from './openapi/openapi-routes.js';
import { routeCaller } from './route-caller.js';
import type { ConsoleSessions } from '../auth/sessions/console-sessions.js';
import { consoleUrlOf } from '../auth/sessions/console-sessions.js';
import { consoleAssetRoutes, type ConsoleAssets } from './console/console-assets.js';
import { consoleSessionRoutes } from './console/console-session-routes.js';

export interface HttpAppDeps {
  /** per-user OAuth to remotes: the connect pages and /api/v1/connections (ADR 0035) */
  remoteConnections?: RemoteConnectionsSetup;
  /** usage records on: every call's record is opened at the edge (src/core/usage) */
  usageRecorder?: UsageRecorder;
  config: Config;
  registry: AgentRegistry;
  handler: A2AHandler;
  auth: Authenticator;
  keys?: KeyStore;
  log: Logger;
  /** readiness of each backing service: 'ok' or why not in fixed words (no path, host or URL), and the figures behind it */
  ready: () => Promise<{ checks: Record<string, string>; measures?: object }>;
  /**
   * Settles once the agents are registered. The listener binds earlier (cards carry the bound
   * port), so requests that arrive in between wait for it instead of finding no agents.
   */
  started: Promise<void>;
  /** the start gate of `started`, when shared with another listener (gRPC); default: its own */
  gate?: StartGate;
  /** RFC 9728 documents, and with auth.oauth.enabled the authorization server and user/client management (src/auth/oauth) */
  oauth?: import('../auth/oauth/oauth-faces.js').OAuthFaces;
  /** the one authorization policy (src/core/authz): hidden agents, the management API */
  policy?: AuthorizationPolicy;
  /** stored API keys, for the management API (`/api/v1/keys`) */
  apiKeys?: ApiKeyAdmin;
  /** the quotas in force, for the management API (`/api/v1/quotas`) */
  quotaBook?: QuotaBook;
  /** where security and administration events go (src/core/audit); default none */
  audit?: AuditSink;
  /** the audit log, for `GET /api/v1/audit` */
  auditStore?: AuditStore;
  /** writes this replica's queued audit records (a reader sees its own replica's events) */
  flushAudit?: () => Promise<void>;
  /** any subject's task, for administrators (`/api/v1/agents/{id}/tasks/{taskId}`) */
  tasks?: TaskAdmin & TaskSearch & TaskEventLog;
  /** usage records, for the analytics API (`/api/v1/usage`) */
  usage?: UsageRouteDeps['usage'];
  /** what remains of the caller's quotas, reported by `/api/v1/usage` */
  quotaRemaining?: UsageRouteDeps['quotaRemaining'];
  /** the public URL once the listener is bound (port 0); default config.server.publicUrl */
  publicUrl?: () => string;
  /** the budget of body bytes in flight, when shared with another listener (gRPC); default: its own */
  bodyBudget?: BodyBudget;
  /** the web console's sessions (the same instance the Authenticator asks); absent: no /console */
  console?: { sessions: ConsoleSessions; assets?: ConsoleAssets };
  /** GET /metrics on this listener (src/server/metrics-endpoint.ts); absent: metrics off or on their own listener */
  metricsRoute?: FastifyPluginAsync;
}

/** Errors of the non-A2A routes (cards, registry, keys, health): the HTTP+JSON error shape. */
function errorReply(reply: FastifyReply, err: A2AError): FastifyReply {
  const { status, body } = restErrorBody(err);
  return reply.code(status).headers(errorHeaders(err)).type('application/json').send(body);
}

/** The same error shape, written before or beside Fastify (the edge's refusals of the fallback face). */
function sendRest(res: ServerResponse, err: A2AError): void {
  const { status, body } = restErrorBody(err);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), ...errorHeaders(err) });
  res.end(body);
}

/** What an error answer of these routes carries besides its body. */
function errorHeaders(err: A2AError): Record<string, string> {
  if (err.kind === 'Unavailable') return { 'Retry-After': String(BODY_BUSY_RETRY_AFTER_SECONDS) };
  // A body too large or too slow is not waited for: the connection closes after the answer.
  if (err.kind === 'PayloadTooLarge' || err.kind === 'RequestTimeout') return { Connection: 'close' };
  return {};
}

export function buildHttpApp(d: HttpAppDeps) {
  const { config } = d;
  const publicUrl = d.publicUrl ?? (() => config.server.publicUrl);
  const keepAliveMs = config.limits.sseKeepAliveMs;
  // One budget of body bytes in flight and one read deadline for every face of this listener.
  const bodyPolicy: BodyPolicy = { budget: d.bodyBudget ?? new BodyBudget(config.limits.bodyBytesInFlight), readTimeoutMs: config.limits.bodyReadTimeoutMs };
  const a2a = createA2AFace({
    registry: d.registry,
    jsonrpc: new JsonRpcBinding({ handler: d.handler, keepAliveMs, log: d.log }),
    rest: new RestBinding({ handler: d.handler, keepAliveMs, log: d.log }),
    auth: d.auth,
    ...(d.policy ? { policy: d.policy } : {}),
    resourceMetadataUrl: (agentId) => protectedResourceMetadataUrl(publicUrl(), `/a2a/${agentId}`),
    // The replaced service's task routes beneath /a2a are Fastify's (server/compat/).
    servedElsewhere: isNovaedenA2APath,
  });
  // MCP tool hints of a skill: the agent's own (a remote MCP server's tool annotations), each
  // replaced by the one configured in agents[].skills[id].annotations.
  const skillAnnotations = (agentId: string, skillId: string) => {
    const own = d.registry.get(agentId)?.definition.toolAnnotations?.(skillId);
    const configured = config.agents.find((a) => a.id === agentId)?.skills[skillId]?.annotations;
    return own || configured ? { ...own, ...configured } : undefined;
  };
  // MCP at /mcp and /a2a/{id}/mcp (src/bindings/mcp/).
  const mcp = mcpFace({
    registry: d.registry,
    handler: d.handler,
    challenge: (err, o) => d.auth.challenge(err, o),
    log: d.log,
    bodyLimit: config.limits.bodyBytes,
    keepAliveMs,
    publicUrl: config.server.publicUrl,
    bindHost: config.server.host,
    version: packageVersion(),
    ...(d.policy ? { policy: d.policy } : {}),
    resourceMetadataUrl: (path) => protectedResourceMetadataUrl(publicUrl(), path),
    // Per-skill tool hints from the config (agents[].skills[id].annotations).
    skillAnnotations,
    genericTools: config.mcp.genericTools,
    ...(config.mcp.fixtureModule ? { fixtureModule: loadMcpFixtureModule(config.mcp.fixtureModule) } : {}),
    publicDiscovery: config.mcp.publicDiscovery,
    // MRTR requestStates verify on every replica: their key derives from the shared signing keys.
    ...(d.keys ? { requestStateKeys: () => d.keys!.derivedSecrets('mcp-request-state') } : {}),
  });
  // The routes clients of the replaced service call (/mcp/tools/list, …, /.well-known/mcp-metadata);
  // their calls run through the MCP face above, in process (src/bindings/mcp/compat/).
  const boundPort = () => {
    const a = app.server.address();
    return typeof a === 'object' && a ? a : undefined;
  };
  const mcpCompat = mcpCompatFace({
    registry: d.registry,
    handler: d.handler,
    version: packageVersion(),
    log: d.log,
    skillAnnotations,
    genericTools: config.mcp.genericTools,
    publicUrl: () => withListeningPorts(config, { http: boundPort()?.port ?? config.server.port }).server.publicUrl,
    timeoutMs: config.limits.requestTimeoutMs,
    authMode: config.auth.mode,
    oauthEnabled: config.auth.oauth.enabled,
    // Hidden agents' tools are not published (their cards are not either).
    ...(d.policy ? { isPublicAgent: (agentId: string) => d.policy!.canSeeAgent(ANONYMOUS, agentId, 'mcp') } : {}),
    // The calls run through the MCP face in process, admitted as on /mcp (src/bindings/mcp/mcp-face.ts).
    mcp,
  });
  let closing = false;
  const gate = d.gate ?? new StartGate(d.started);
  let edgeFaces: AnyFace[] = [];
  const app = Fastify({
    loggerInstance: d.log,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    bodyLimit: config.limits.bodyBytes,
    // The edge's id (already on the answer); a request injected past the edge gets its own.
    genReqId: (req) => contextOf(req)?.requestId ?? uuidv7(),
    return503OnClosing: true,
    // URLs the router rejects (bad percent-encoding, over-long segments) still get the binding's error shape.
    frameworkErrors: (error, req, reply) => {
      req.log.debug({ err: error }, 'request rejected by the router');
      return errorReply(reply, new A2AError('InvalidRequest', 'The request URL is not valid'));
    },
    routerOptions: { maxParamLength: 512, ignoreTrailingSlash: true },
    serverFactory: (handler) => {
      // Fastify is the fallback face: the small JSON routes no other face takes.
      const routes: Face = {
        name: 'routes',
        match: () => true,
        serve: (req, res) => handler(req, res),
        // Not started (Fastify's own answer before the edge: 'The server is starting', HTTP+JSON shape).
        reject: (_req, res, err) => sendRest(res, err.kind === 'Unavailable' ? new A2AError('Unavailable', 'The server is starting') : err),
      };
      const faces = [
        mcpCompat,
        mcp,
        // After the compat face, whose `/.well-known/mcp-metadata` preflight names that route's own methods.
        wellKnownPreflight,
        ...(d.oauth ? [d.oauth.endpoint] : []),
        a2a,
      ];
      edgeFaces = [...faces, routes];
      const edge = createEdge({
        faces,
        fallback: routes,
        authenticate: (headers, resourcePath) => d.auth.authenticate(headers, resourcePath === undefined ? undefined : { resourcePath }),
        body: { limit: config.limits.bodyBytes, policy: bodyPolicy },
        log: d.log,
        gate,
        isClosing: () => closing,
        // The discovery documents are read cross-origin by browser-based MCP clients.
        decorate: [addWellKnownCors],
        pathPrefix: publicPathPrefix(config.server.publicUrl),
        ...(d.usageRecorder ? { usage: d.usageRecorder } : {}),
      });
      return createServer({ maxHeaderSize: config.limits.headerBytes, requestTimeout: config.limits.requestTimeoutMs, keepAliveTimeout: 65_000 }, edge);
    },
  });
  // Open streams (MCP subscriptions/listen, legacy sessions) end before the listener closes.
  app.addHook('preClose', async () => {
    closing = true;
    await Promise.all(edgeFaces.map((f) => f.close?.()));
  });

  // Bodies are read as strings, by the shared reader (budget, deadline); each route parses them so
  // that malformed JSON gets its own error shape.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (req: FastifyRequest) => {
    const ctx = contextOf(req.raw);
    if (!ctx) throw new A2AError('Internal');
    const read = await ctx.body();
    if (typeof read === 'string') return read;
    throw read.error;
  });
  // A route's usage record names its route pattern (never ids) and the API it belongs to.
  if (d.usageRecorder) app.addHook('onRequest', async (req) => noteRoute(req.raw, req.method, req.routeOptions.url));
  // The management API needs an admin credential: checked on the headers, before a body is read.
  if (d.policy) {
    const policy = d.policy;
    const guard = { auth: d.auth, policy, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') };
    app.addHook('onRequest', async (req, reply) => {
      if (await refuseBodyWithoutAdmin(guard, req, reply)) return reply;
    });
  }

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, req, reply) => {
    let a2a: A2AError;
    if (error instanceof A2AError) a2a = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') a2a = new A2AError('PayloadTooLarge', `The request body exceeds ${config.limits.bodyBytes} bytes`);
    else if (error.statusCode === 400 || error.code?.startsWith('FST_ERR_CTP')) a2a = new A2AError('InvalidRequest', 'The request could not be read');
    else {
      req.log.error({ err: error }, 'unhandled error');
      a2a = new A2AError('Internal');
    }
    return errorReply(reply, a2a);
  });

  app.setNotFoundHandler((req, reply) => errorReply(reply, new A2AError('MethodNotFound', `No route for ${req.method} ${req.url.split('?')[0]}`)));

  // ---- Cards, registry, keys, health.
  /** The caller of a route, authenticated once per request by the edge. */
  const callerOfRoute = (req: FastifyRequest): Promise<Principal> => routeCaller(d.auth, req.raw);
  const cardMaxAge = config.cards.maxAgeSeconds;
  const sendCard = (req: FastifyRequest, reply: FastifyReply, card: object, scope: 'public' | 'private', vary?: string[]) => {
    const r = conditionalCardResponse(req.headers, cardRepresentation(card), { maxAgeSeconds: cardMaxAge, cacheScope: scope, vary });
    reply.code(r.status).headers(r.headers);
    return reply.send(r.body ?? '');
  };
  // Negotiated by `A2A-Version` (src/server/agent-cards.ts cardVersionFor); `agent.json` is v0.3.
  const serveCard = async (req: FastifyRequest, reply: FastifyReply, agentId: string, path: 'agent-card.json' | 'agent.json' = 'agent-card.json') => {
    // A hidden agent's card is read with a2a:discover; to anyone else (a refused credential too) it does not exist.
    const admitted = await admitToAgentPath(d.registry, d.policy, agentId, 'a2a', () => callerOfRoute(req), { publicDocument: true });
    if (admitted.unknown) return errorReply(reply, new A2AError('TaskNotFound', admitted.message));
    const agent = d.registry.get(agentId)!;
    const hidden = d.policy !== undefined && !d.policy.isPublicAgent(agentId);
    const cacheScope = hidden ? 'private' : 'public';
    // The v0.2 path is read by v0.3-era clients only, whatever version they announce (a2a-js 1.x
    // `legacyCompat` fetches it with `A2A-Version: 1.0`), so it always has the v0.3 shape.
    if (path === 'agent.json') return sendCard(req, reply, v03CardOf(agent.publicCard), cacheScope);
    const version = cardVersionFor(req.headers['a2a-version']);
    const card = version === 'both' ? (agent.headerlessCard ?? agent.publicCard) : version === '0.3' ? v03CardOf(agent.publicCard) : agent.publicCard;
    return sendCard(req, reply, card, cacheScope, ['A2A-Version']);
  };
  /** The caller of a discovery route; a refused credential gets its 401 here (undefined returned). */
  const callerOf = async (req: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> => {
    try {
      return await callerOfRoute(req);
    } catch (e) {
      const err = e instanceof A2AError ? e : new A2AError('Unauthenticated');
      if (err.kind === 'Unauthenticated') reply.header('WWW-Authenticate', d.auth.challenge(err, { scope: 'a2a:discover' }));
      sendError(reply, err);
      return undefined;
    }
  };
  app.get('/.well-known/agent-card.json', (req, reply) => serveCard(req, reply, d.registry.primaryId));
  app.get<{ Params: { agentId: string } }>('/a2a/:agentId/.well-known/agent-card.json', (req, reply) => serveCard(req, reply, req.params.agentId));
  app.get('/.well-known/agent.json', (req, reply) => serveCard(req, reply, d.registry.primaryId, 'agent.json'));
  app.get<{ Params: { agentId: string } }>('/a2a/:agentId/.well-known/agent.json', (req, reply) => serveCard(req, reply, req.params.agentId, 'agent.json'));
  app.get('/api/v1/agents', async (req, reply) => {
    // Hidden agents are listed only to callers who may see them (a2a:discover).
    const principal = d.policy ? await callerOf(req, reply) : ANONYMOUS;
    if (!principal) return reply;
    const visible = d.registry.list().filter((a) => !d.policy || d.policy.canSeeAgent(principal, a.id));
    // Per caller whenever authorization is on: caching only filtered answers would tell that something was filtered.
    if (d.policy?.enforcing || principal.authenticated) reply.header('Cache-Control', 'private, no-store');
    // `?view=cards`: the replaced service's answer, a list of cards (src/server/compat/).
    if ((req.query as { view?: string }).view === 'cards') return novaedenAgentCards(d.registry, d.policy, principal);
    return {
      agents: visible.map((a) => ({
        id: a.id,
        name: a.publicCard.name,
        description: a.publicCard.description,
        url: a.baseUrl,
        cardUrl: `${a.baseUrl}/.well-known/agent-card.json`,
        primary: a.id === d.registry.primaryId,
      })),
    };
  });
  if (d.policy && d.apiKeys) {
    app.register(
      keyRoutes({
        auth: d.auth,
        policy: d.policy,
        store: d.apiKeys,
        resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
        ...(d.audit ? { audit: d.audit, auditOrigin: auditOriginOf(config.auth.oauth.trustedProxies) } : {}),
      }),
    );
  }
  if (d.policy && d.auditStore) {
    app.register(
      auditRoutes({
        auth: d.auth,
        policy: d.policy,
        store: d.auditStore,
        resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
        ...(d.flushAudit ? { flush: d.flushAudit } : {}),
      }),
    );
  }
  if (d.policy) {
    // The ports the listener bound (port 0 in the file becomes the real one).
    const running = () => withListeningPorts(config, { http: boundPort()?.port ?? config.server.port });
    app.register(settingsRoute({ auth: d.auth, policy: d.policy, config: running, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
  }
  if (d.policy && d.quotaBook) {
    app.register(quotaRoutes({ auth: d.auth, policy: d.policy, book: d.quotaBook, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
  }
  if (d.policy && d.tasks) {
    app.register(taskRoutes({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
    app.register(taskListRoute({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
    app.register(taskEventsRoute({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
  }
  if (d.policy && d.usage) {
    app.register(
      usageRoutes({
        auth: d.auth,
        policy: d.policy,
        usage: d.usage,
        ...(d.quotaRemaining ? { quotaRemaining: d.quotaRemaining } : {}),
        resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
      }),
    );
  }
  app.register(novaedenTaskApi({ registry: d.registry, handler: d.handler, auth: d.auth, ...(d.policy ? { policy: d.policy } : {}), resourceMetadataUrl: (path) => protectedResourceMetadataUrl(publicUrl(), path) }));
  app.register(openApiRoutes({ version: packageVersion() }));
  app.get<{ Params: { id: string } }>('/api/v1/agents/:id/card', (req, reply) => serveCard(req, reply, req.params.id));
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return d.keys ? d.keys.jwks() : { keys: [] };
  });
  if (d.oauth) app.register(d.oauth.adminRoutes);
  if (d.remoteConnections) {
    const rc = d.remoteConnections;
    app.register(
      connectRoutes({
        connections: rc.connections,
        log: d.log,
        onConnected: rc.onConnected,
        onRefused: rc.onRefused,
        publicUrl,
        ...(d.console ? { sessions: d.console.sessions } : {}),
        // The console signs the browser in and then opens the link again (console/src/connect-return.ts).
        ...(d.console?.assets && d.oauth !== undefined && config.auth.oauth.enabled ? { signInUrl: (returnTo: string) => `${consoleUrlOf(publicUrl())}#connect=${encodeURIComponent(returnTo)}` } : {}),
      }),
    );
    if (d.policy) {
      app.register(
        connectionsRoutes({
          auth: d.auth,
          policy: d.policy,
          vault: rc.vault,
          remotes: rc.remotes,
          resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1'),
          connectUrl: (subject, remote) => rc.connections.connectUrl(subject, remote),
          onDisconnected: rc.onDisconnected,
        }),
      );
    }
  }
  // The web console (src/server/console, docs/console.md): its files and its session.
  const consoleDeps = d.console;
  if (consoleDeps) {
    app.register(consoleAssetRoutes(consoleDeps.assets, (reply, message) => errorReply(reply, new A2AError('MethodNotFound', message))));
    app.register(
      consoleSessionRoutes({
        sessions: consoleDeps.sessions,
        auth: d.auth,
        publicUrl,
        signIn: d.oauth !== undefined && config.auth.oauth.enabled,
        open: config.auth.mode === 'none',
        // The connections API exists (it is registered with the policy, above).
        connections: d.remoteConnections !== undefined && d.policy !== undefined,
        ...(d.audit ? { audit: d.audit } : {}),
      }),
    );
  }
  app.register(
    landingPage({
      registry: d.registry,
      ...(d.policy ? { policy: d.policy } : {}),
      publicUrl,
      version: packageVersion(),
      authRequired: config.auth.mode === 'required',
      oauth: d.oauth !== undefined && config.auth.oauth.enabled && config.auth.mode === 'required',
      ...(consoleDeps?.assets ? { consoleUrl: () => consoleUrlOf(publicUrl()) } : {}),
    }),
  );
  if (d.metricsRoute) app.register(d.metricsRoute);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const { checks, measures } = await d.ready().catch(() => ({ checks: { server: 'readiness check failed' }, measures: undefined }));
    const ok = Object.values(checks).every((v) => v === 'ok');
    reply.header('Cache-Control', 'no-store');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks, ...(measures ? { measures } : {}) });
  });

  return app;
}
