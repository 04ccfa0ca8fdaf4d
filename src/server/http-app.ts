/**
 * The HTTP listener: one edge (src/edge) admits every request and hands it to its face, in this
 * order: the MCP compat routes, MCP, OAuth, A2A (src/bindings/a2a-http/a2a-face.ts); Fastify serves the
 * rest (cards, the registry listing, management, the Novaeden API, OpenAPI, the landing page,
 * JWKS, health) as the fallback face, with the edge's request id, start gate and body reader.
 * Every face lives in src/bindings (ADR 0041); this file only puts them on the listener, in the
 * steps `buildHttpApp` lists. The plain routes are added by ./http-routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:net';
import Fastify, { LogController, type FastifyRequest } from 'fastify';
import { protectedResourceMetadataUrl, publicPathPrefix } from '../auth/oauth-paths.js';
import { createA2AFace } from '../bindings/a2a-http/a2a-face.js';
import { JsonRpcBinding } from '../bindings/a2a-jsonrpc/jsonrpc-binding.js';
import { RestBinding } from '../bindings/a2a-rest/rest-binding.js';
import { refuseBodyWithoutAdmin } from '../bindings/management/body-admission.js';
import { mcpCompatFace } from '../bindings/mcp/compat/compat-routes.js';
import { addWellKnownCors, wellKnownPreflight } from '../bindings/mcp/admission/well-known-cors.js';
import { mcpFace, type McpFace } from '../bindings/mcp/mcp-face.js';
import { isNovaedenA2APath } from '../bindings/novaeden/novaeden-task-api.js';
import { errorReply, sendRest } from '../bindings/routes/error-reply.js';
import { noteRoute } from '../bindings/routes/route-usage.js';
import { withListeningPorts } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';
import { ANONYMOUS } from '../core/authz/principal.js';
import { uuidv7 } from '../core/ids/uuid-v7.js';
import { BodyBudget, type BodyPolicy } from '../edge/body.js';
import { contextOf, createEdge } from '../edge/edge.js';
import type { AnyFace, Face } from '../edge/face.js';
import { createHttpListener } from '../edge/http-listener.js';
import { StartGate } from '../edge/start-gate.js';
import { A2AError } from '../protocol/a2a/errors.js';
import type { BoundPort, HttpApp, HttpAppDeps } from './http-app-deps.js';
import { addPlainRoutes } from './http-routes.js';

export type { HttpAppDeps } from './http-app-deps.js';
import { loadMcpFixtureModule } from './mcp-fixture-module.js';

export function buildHttpApp(d: HttpAppDeps): HttpApp {
  const publicUrl = d.publicUrl ?? (() => d.config.server.publicUrl);
  let app: { server: Pick<Server, 'address'> } | undefined;
  const boundPort: BoundPort = () => {
    const a = app?.server.address();
    return typeof a === 'object' && a ? a : undefined;
  };
  const fastify = fastifyBehindEdge(d, protocolFaces(d, publicUrl, boundPort));
  app = fastify;
  admitRouteRequests(fastify, d, publicUrl);
  addPlainRoutes(fastify, d, publicUrl, boundPort);
  return fastify;
}

/** The faces the edge tries before the plain routes: MCP compat, MCP, A2A. */
interface ProtocolFaces {
  a2a: AnyFace;
  mcp: McpFace;
  mcpCompat: AnyFace;
}

function protocolFaces(d: HttpAppDeps, publicUrl: () => string, boundPort: BoundPort): ProtocolFaces {
  const a2a = createA2AFace({
    registry: d.registry,
    jsonrpc: new JsonRpcBinding({ handler: d.handler, keepAliveMs: d.config.limits.sseKeepAliveMs, log: d.log }),
    rest: new RestBinding({ handler: d.handler, keepAliveMs: d.config.limits.sseKeepAliveMs, log: d.log }),
    auth: d.auth,
    ...(d.policy ? { policy: d.policy } : {}),
    resourceMetadataUrl: (agentId) => protectedResourceMetadataUrl(publicUrl(), `/a2a/${agentId}`),
    // The replaced service's task routes beneath /a2a are Fastify's (bindings/novaeden).
    servedElsewhere: isNovaedenA2APath,
  });
  const skillAnnotations = skillAnnotationsOf(d);
  const mcp = mcpFaceOf(d, publicUrl, skillAnnotations);
  return { a2a, mcp, mcpCompat: mcpCompatFaceOf(d, mcp, boundPort, skillAnnotations) };
}

/**
 * MCP tool hints of a skill: the agent's own (a remote MCP server's tool annotations), each
 * replaced by the one configured in agents[].skills[id].annotations.
 */
function skillAnnotationsOf(d: HttpAppDeps) {
  return (agentId: string, skillId: string) => {
    const own = d.registry.get(agentId)?.definition.toolAnnotations?.(skillId);
    const configured = d.config.agents.find((a) => a.id === agentId)?.skills[skillId]?.annotations;
    return own || configured ? { ...own, ...configured } : undefined;
  };
}

/** MCP at /mcp and /a2a/{id}/mcp (src/bindings/mcp/). */
function mcpFaceOf(d: HttpAppDeps, publicUrl: () => string, skillAnnotations: ReturnType<typeof skillAnnotationsOf>): McpFace {
  const { config } = d;
  return mcpFace({
    registry: d.registry,
    handler: d.handler,
    challenge: (err, o) => d.auth.challenge(err, o),
    log: d.log,
    bodyLimit: config.limits.bodyBytes,
    keepAliveMs: config.limits.sseKeepAliveMs,
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
}

/**
 * The routes clients of the replaced service call (/mcp/tools/list, …, /.well-known/mcp-metadata);
 * their calls run through the MCP face, in process (src/bindings/mcp/compat/).
 */
function mcpCompatFaceOf(d: HttpAppDeps, mcp: McpFace, boundPort: BoundPort, skillAnnotations: ReturnType<typeof skillAnnotationsOf>): AnyFace {
  const { config } = d;
  return mcpCompatFace({
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
}

/** Fastify as the fallback face of one edge; open streams of every face end before the listener closes. */
function fastifyBehindEdge(d: HttpAppDeps, protocol: ProtocolFaces): HttpApp {
  const { config } = d;
  const lifecycle = { closing: false, faces: [] as AnyFace[] };
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
    serverFactory: (handler) => edgeServer(d, protocol, handler, lifecycle),
  });
  // Open streams (MCP subscriptions/listen, legacy sessions) end before the listener closes.
  app.addHook('preClose', async () => {
    lifecycle.closing = true;
    await Promise.all(lifecycle.faces.map((f) => f.close?.()));
  });
  return app;
}

/** The node:http server whose every request goes through the edge; Fastify's handler is the fallback face. */
function edgeServer(d: HttpAppDeps, protocol: ProtocolFaces, handler: (req: IncomingMessage, res: ServerResponse) => void, lifecycle: { closing: boolean; faces: AnyFace[] }) {
  const { config } = d;
  // Fastify is the fallback face: the small JSON routes no other face takes.
  const routes: Face = {
    name: 'routes',
    match: () => true,
    serve: (req, res) => handler(req, res),
    // Not started (Fastify's own answer before the edge: 'The server is starting', HTTP+JSON shape).
    reject: (_req, res, err) => sendRest(res, err.kind === 'Unavailable' ? new A2AError('Unavailable', 'The server is starting') : err),
  };
  const faces = [
    protocol.mcpCompat,
    protocol.mcp,
    // After the compat face, whose `/.well-known/mcp-metadata` preflight names that route's own methods.
    wellKnownPreflight,
    ...(d.oauth ? [d.oauth.endpoint] : []),
    protocol.a2a,
  ];
  lifecycle.faces = [...faces, routes];
  // One budget of body bytes in flight and one read deadline for every face of this listener.
  const bodyPolicy: BodyPolicy = { budget: d.bodyBudget ?? new BodyBudget(config.limits.bodyBytesInFlight), readTimeoutMs: config.limits.bodyReadTimeoutMs };
  const edge = createEdge({
    faces,
    fallback: routes,
    authenticate: (headers, resourcePath) => d.auth.answerFor(headers, resourcePath),
    anonymousAnswer: d.auth.anonymousAnswer,
    body: { limit: config.limits.bodyBytes, policy: bodyPolicy },
    log: d.log,
    gate: d.gate ?? new StartGate(d.started),
    isClosing: () => lifecycle.closing,
    // The discovery documents are read cross-origin by browser-based MCP clients.
    decorate: [addWellKnownCors],
    pathPrefix: publicPathPrefix(config.server.publicUrl),
    ...(d.usageRecorder ? { usage: d.usageRecorder } : {}),
  });
  return createHttpListener({ maxHeaderSize: config.limits.headerBytes, requestTimeout: config.limits.requestTimeoutMs, keepAliveTimeout: 65_000 }, edge);
}

/**
 * What every plain route gets before its handler: bodies read as strings by the shared reader
 * (budget, deadline; each route parses them, so malformed JSON gets its own error shape), its
 * usage record named, the management API's admin check on the headers, and one error shape.
 */
function admitRouteRequests(app: HttpApp, d: HttpAppDeps, publicUrl: () => string): void {
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
  const bodyBytes = d.config.limits.bodyBytes;
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, req, reply) => {
    let a2a: A2AError;
    if (error instanceof A2AError) a2a = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') a2a = new A2AError('PayloadTooLarge', `The request body exceeds ${bodyBytes} bytes`);
    else if (error.statusCode === 400 || error.code?.startsWith('FST_ERR_CTP')) a2a = new A2AError('InvalidRequest', 'The request could not be read');
    else {
      req.log.error({ err: error }, 'unhandled error');
      a2a = new A2AError('Internal');
    }
    return errorReply(reply, a2a);
  });
  app.setNotFoundHandler((req, reply) => errorReply(reply, new A2AError('MethodNotFound', `No route for ${req.method} ${req.url.split('?')[0]}`)));
}
