/**
 * The HTTP listener. A2A JSON-RPC and HTTP+JSON requests go to the plain node:http endpoint of
 * src/server/a2a-endpoint.ts; cards, the registry listing, JWKS and health are Fastify routes.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';
import { JsonRpcBinding } from '../bindings/a2a-jsonrpc/jsonrpc-binding.js';
import { RestBinding, restErrorBody } from '../bindings/a2a-rest/rest-binding.js';
import type { Config } from '../config/index.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import type { A2AHandler } from '../core/a2a-handler.js';
import type { KeyStore } from '../core/keys/key-store.js';
import { cardRepresentation, conditionalCardResponse } from '../protocol/a2a/card/card-http.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { createA2AEndpoint } from './a2a-endpoint.js';
import { cardVersionFor, v03CardOf } from './agent-cards.js';
import { createMcpEndpoint } from '../bindings/mcp/mcp-endpoint.js';
import { createMcpCompatRoutes } from '../bindings/mcp/compat/compat-routes.js';
import { withListeningPorts } from '../config/index.js';
import { packageVersion } from '../cli/version.js';
import { protectedResourceMetadataUrl } from '../auth/oauth-paths.js';
import type { AuthorizationPolicy } from '../core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../core/authz/principal.js';
import { keyRoutes, type ApiKeyAdmin } from './management/keys-routes.js';
import { sendError } from './management/admin-guard.js';
import { landingPage } from './landing-page.js';
import { unknownAgentMessage } from '../core/agents/unknown-agent.js';
import { taskRoutes, type TaskAdmin } from './management/task-routes.js';
import { admitBody, BodyBudget, bodyRefusal, readLimitedBody, BODY_BUSY_RETRY_AFTER_SECONDS, type BodyPolicy } from '../bindings/read-limited-body.js';
import { refuseBodyWithoutAdmin } from './management/body-admission.js';
import { isNovaedenA2APath, novaedenTaskApi } from './compat/novaeden-task-api.js';
import { novaedenAgentCards } from './compat/novaeden-agent-list.js';
import { openApiRoutes } from './openapi/openapi-routes.js';

export interface HttpAppDeps {
  config: Config;
  registry: AgentRegistry;
  handler: A2AHandler;
  auth: ApiKeyAuthenticator;
  keys?: KeyStore;
  log: Logger;
  /** readiness of each backing service: 'ok' or why not (never a secret: URLs are not included) */
  ready: () => Promise<Record<string, string>>;
  /**
   * Settles once the agents are registered. The listener binds earlier (cards carry the bound
   * port), so requests that arrive in between wait for it instead of finding no agents.
   */
  started: Promise<void>;
  /** RFC 9728 documents, and with auth.oauth.enabled the authorization server and user/client management (src/auth/oauth) */
  oauth?: import('../auth/oauth/oauth-faces.js').OAuthFaces;
  /** the one authorization policy (src/core/authz): hidden agents, the management API */
  policy?: AuthorizationPolicy;
  /** stored API keys, for the management API (`/api/v1/keys`) */
  apiKeys?: ApiKeyAdmin;
  /** any subject's task, for administrators (`/api/v1/agents/{id}/tasks/{taskId}`) */
  tasks?: TaskAdmin;
  /** the public URL once the listener is bound (port 0); default config.server.publicUrl */
  publicUrl?: () => string;
  /** the budget of body bytes in flight, when shared with another listener (gRPC); default: its own */
  bodyBudget?: BodyBudget;
}

/** Errors of the non-A2A routes (cards, registry, keys, health): the HTTP+JSON error shape. */
function errorReply(reply: FastifyReply, err: A2AError): FastifyReply {
  const { status, body } = restErrorBody(err);
  if (err.kind === 'Unavailable') reply.header('Retry-After', String(BODY_BUSY_RETRY_AFTER_SECONDS));
  // A body too large or too slow is not waited for: the connection closes after the answer.
  if (err.kind === 'PayloadTooLarge' || err.kind === 'RequestTimeout') reply.header('Connection', 'close');
  return reply.code(status).type('application/json').send(body);
}

export function buildHttpApp(d: HttpAppDeps) {
  const { config } = d;
  const publicUrl = d.publicUrl ?? (() => config.server.publicUrl);
  const keepAliveMs = config.limits.sseKeepAliveMs;
  // One budget of body bytes in flight and one read deadline for every face of this listener.
  const bodyPolicy: BodyPolicy = { budget: d.bodyBudget ?? new BodyBudget(config.limits.bodyBytesInFlight), readTimeoutMs: config.limits.bodyReadTimeoutMs };
  const a2a = createA2AEndpoint({
    registry: d.registry,
    jsonrpc: new JsonRpcBinding({ handler: d.handler, keepAliveMs, log: d.log }),
    rest: new RestBinding({ handler: d.handler, keepAliveMs, log: d.log }),
    auth: d.auth,
    log: d.log,
    bodyLimit: config.limits.bodyBytes,
    started: d.started,
    ...(d.policy ? { policy: d.policy } : {}),
    resourceMetadataUrl: (agentId) => protectedResourceMetadataUrl(publicUrl(), `/a2a/${agentId}`),
  });
  // MCP tool hints of a skill: the agent's own (a remote MCP server's tool annotations), each
  // replaced by the one configured in agents[].skills[id].annotations.
  const skillAnnotations = (agentId: string, skillId: string) => {
    const own = d.registry.get(agentId)?.definition.toolAnnotations?.(skillId);
    const configured = config.agents.find((a) => a.id === agentId)?.skills[skillId]?.annotations;
    return own || configured ? { ...own, ...configured } : undefined;
  };
  // MCP at /mcp and /a2a/{id}/mcp (src/bindings/mcp/); also CORS for /.well-known/*.
  const mcp = createMcpEndpoint({
    registry: d.registry,
    handler: d.handler,
    auth: d.auth,
    log: d.log,
    bodyLimit: config.limits.bodyBytes,
    keepAliveMs,
    publicUrl: config.server.publicUrl,
    bindHost: config.server.host,
    version: packageVersion(),
    started: d.started,
    ...(d.policy ? { policy: d.policy } : {}),
    resourceMetadataUrl: (path) => protectedResourceMetadataUrl(publicUrl(), path),
    // Per-skill tool hints from the config (agents[].skills[id].annotations).
    skillAnnotations,
    genericTools: config.mcp.genericTools,
    conformanceFixtures: config.mcp.conformanceFixtures,
    publicDiscovery: config.mcp.publicDiscovery,
    // MRTR requestStates verify on every replica: their key derives from the shared signing keys.
    ...(d.keys ? { requestStateKeys: () => d.keys!.derivedSecrets('mcp-request-state') } : {}),
  });
  // The routes clients of the replaced service call (/mcp/tools/list, …, /.well-known/mcp-metadata);
  // their calls run through the MCP endpoint above over loopback (src/bindings/mcp/compat/).
  const boundPort = () => {
    const a = app.server.address();
    return typeof a === 'object' && a ? a : undefined;
  };
  const mcpCompat = createMcpCompatRoutes({
    registry: d.registry,
    handler: d.handler,
    version: packageVersion(),
    log: d.log,
    skillAnnotations,
    genericTools: config.mcp.genericTools,
    publicUrl: () => withListeningPorts(config, { http: boundPort()?.port ?? config.server.port }).server.publicUrl,
    selfUrl: () => {
      const a = boundPort();
      const host = !a || a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '[::1]' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
      return `http://${host}:${a?.port ?? config.server.port}`;
    },
    timeoutMs: config.limits.requestTimeoutMs,
    bodyLimit: config.limits.bodyBytes,
    authMode: config.auth.mode,
    oauthEnabled: config.auth.oauth.enabled,
    // Hidden agents' tools are not published (their cards are not either).
    ...(d.policy ? { isPublicAgent: (agentId: string) => d.policy!.canSeeAgent(ANONYMOUS, agentId, 'mcp') } : {}),
    started: d.started,
    // What /mcp admits (src/bindings/mcp/mcp-endpoint.ts), asked before a compat route reads a body.
    mayUseMcp: async (headers) => {
      try {
        const principal = await d.auth.authenticate(headers, { resourcePath: '/mcp' });
        return !d.policy || d.policy.allows(principal, 'use-mcp');
      } catch {
        return false;
      }
    },
  });
  let closing = false;
  const app = Fastify({
    loggerInstance: d.log,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    bodyLimit: config.limits.bodyBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // URLs the router rejects (bad percent-encoding, over-long segments) still get the binding's error shape.
    frameworkErrors: (error, req, reply) => {
      req.log.debug({ err: error }, 'request rejected by the router');
      return errorReply(reply, new A2AError('InvalidRequest', 'The request URL is not valid'));
    },
    routerOptions: { maxParamLength: 512, ignoreTrailingSlash: true },
    // A2A requests go straight to the bindings (src/server/a2a-endpoint.ts); the rest to Fastify.
    serverFactory: (handler) =>
      createServer({ maxHeaderSize: config.limits.headerBytes, requestTimeout: config.limits.requestTimeoutMs, keepAliveTimeout: 65_000 }, (req, res) => {
        // Closing: the answer ends its keep-alive connection. Requests that bypass Fastify (A2A, MCP)
        // would otherwise keep busy connections open, and the listener would never finish closing
        // under load (seen as a SIGTERM ending in SIGKILL in the chaos test).
        if (closing) res.setHeader('Connection', 'close');
        admitBody(req, bodyPolicy);
        // A handler that stops reading a body midway (oidc-provider past its own 56 KiB limit, the
        // body budget) leaves the rest unread, and the next request on the connection would never
        // be parsed: the remainder is discarded once the answer is out (found by the fuzz suite).
        res.once('finish', () => {
          if (!req.complete) req.resume();
        });
        if (!mcpCompat(req, res) && !mcp(req, res) && !d.oauth?.endpoint(req, res) && (isNovaedenA2APath(req) || !a2a(req, res))) handler(req, res);
      }),
  });

  let started = false;
  d.started.then(
    () => (started = true),
    () => {},
  );
  // Open MCP streams (subscriptions/listen, legacy sessions) end before the listener closes.
  app.addHook('preClose', () => ((closing = true), mcp.close()));
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    if (started) return done();
    d.started.then(
      () => done(),
      () => done(new A2AError('Unavailable', 'The server is starting')),
    );
  });

  // Bodies are read as strings, by the shared reader (budget, deadline); each route parses them so
  // that malformed JSON gets its own error shape.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (req: FastifyRequest) => {
    const read = await readLimitedBody(req.raw, config.limits.bodyBytes);
    if (typeof read === 'string') return read;
    throw bodyRefusal(read, config.limits.bodyBytes);
  });
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

  app.setNotFoundHandler((req, reply) =>
    errorReply(reply, new A2AError('MethodNotFound', `No route for ${req.method} ${req.url.split('?')[0]}`)),
  );


  // ---- Cards, registry, keys, health.
  const cardMaxAge = config.cards.maxAgeSeconds;
  const sendCard = (req: FastifyRequest, reply: FastifyReply, card: object, scope: 'public' | 'private', vary?: string[]) => {
    const r = conditionalCardResponse(req.headers, cardRepresentation(card), { maxAgeSeconds: cardMaxAge, cacheScope: scope, vary });
    reply.code(r.status).headers(r.headers);
    return reply.send(r.body ?? '');
  };
  // Negotiated by `A2A-Version` (src/server/agent-cards.ts cardVersionFor); `agent.json` is v0.3.
  const serveCard = async (req: FastifyRequest, reply: FastifyReply, agentId: string, path: 'agent-card.json' | 'agent.json' = 'agent-card.json') => {
    const agent = d.registry.get(agentId);
    const noAgent = () => errorReply(reply, new A2AError('TaskNotFound', unknownAgentMessage(agentId, d.registry, d.policy)));
    if (!agent) return noAgent();
    // A hidden agent's card is read with a2a:discover; to anyone else (a refused credential too) it does not exist.
    const hidden = d.policy !== undefined && !d.policy.isPublicAgent(agentId);
    if (hidden && (await d.policy!.admitToAgent(agentId, 'a2a', () => d.auth.authenticate(req.headers))).unknown) return noAgent();
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
      return await d.auth.authenticate(req.headers);
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
    return { agents: visible.map((a) => ({
      id: a.id,
      name: a.publicCard.name,
      description: a.publicCard.description,
      url: a.baseUrl,
      cardUrl: `${a.baseUrl}/.well-known/agent-card.json`,
      primary: a.id === d.registry.primaryId,
    })) };
  });
  if (d.policy && d.apiKeys) {
    app.register(keyRoutes({ auth: d.auth, policy: d.policy, store: d.apiKeys, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
  }
  if (d.policy && d.tasks) {
    app.register(taskRoutes({ auth: d.auth, policy: d.policy, store: d.tasks, resourceMetadataUrl: () => protectedResourceMetadataUrl(publicUrl(), '/api/v1') }));
  }
  app.register(novaedenTaskApi({ registry: d.registry, handler: d.handler, auth: d.auth, ...(d.policy ? { policy: d.policy } : {}), resourceMetadataUrl: (path) => protectedResourceMetadataUrl(publicUrl(), path) }));
  app.register(openApiRoutes({ version: packageVersion() }));
  app.get<{ Params: { id: string } }>('/api/v1/agents/:id/card', (req, reply) => serveCard(req, reply, req.params.id));
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return d.keys ? d.keys.jwks() : { keys: [] };
  });
  if (d.oauth) app.register(d.oauth.adminRoutes);
  app.register(landingPage({ registry: d.registry, ...(d.policy ? { policy: d.policy } : {}), publicUrl, version: packageVersion(), authRequired: config.auth.mode === 'required', oauth: d.oauth !== undefined && config.auth.oauth.enabled && config.auth.mode === 'required' }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const checks = await d.ready().catch(() => ({ server: 'readiness check failed' }));
    const ok = Object.values(checks).every((v) => v === 'ok');
    reply.header('Cache-Control', 'no-store');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks });
  });

  return app;
}

