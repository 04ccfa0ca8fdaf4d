/**
 * The steps of a start (./start.ts) that open it to the world: the listeners (bound before the
 * agents, so cards carry the real ports), the agents registered, the background work (push
 * delivery, cluster), the separate metrics listener, and the first start's accounts.
 */
import { protectedResourceMetadataUrl } from '../auth/oauth-paths.js';
import type { FirstAdminUser } from '../auth/oauth/first-admin-user.js';
import { createOAuthFaces, type OAuthFaces } from '../auth/oauth/oauth-faces.js';
import { createGrpcServer, type GrpcServer } from '../bindings/a2a-grpc/index.js';
import { LEGACY_PUSH_BODIES } from '../bindings/a2a-legacy/push-bodies.js';
import { listenForMetrics, metricsRoute } from '../bindings/health/metrics-endpoint.js';
import { withListeningPorts, type Config } from '../config/index.js';
import { PushDeliveryWorker } from '../core/push/delivery-worker.js';
import { PushJwtSigner } from '../core/push/push-jwt.js';
import { BodyBudget } from '../edge/body.js';
import { StartGate } from '../edge/start-gate.js';
import type { ServerLoggers } from '../observability/logging/index.js';
import type { Metrics } from '../observability/metrics/index.js';
import type { Store } from '../store/index.js';
import { createFirstAdminKey } from './first-start.js';
import { grpcAuthentication } from './grpc-authentication.js';
import { buildHttpApp, type HttpAppDeps } from './http-app.js';
import type { HttpApp } from './http-app-deps.js';
import { readiness } from './readiness.js';
import type { CallObservers, CallPipeline, PushWorkerSlot } from './start-calls.js';
import { listenFailure } from './start-failure.js';
import type { BackingServices, Callers, Closers, LiveConfig } from './start-services.js';

/** Settles once the agents are registered; requests that arrive earlier wait for it. */
export interface StartSignal {
  started: Promise<void>;
  markStarted(): void;
  markFailed(e: unknown): void;
}

export function startSignal(): StartSignal {
  let markStarted!: () => void;
  let markFailed!: (e: unknown) => void;
  const started = new Promise<void>((resolve, reject) => ((markStarted = resolve), (markFailed = reject)));
  started.catch(() => {});
  return { started, markStarted, markFailed };
}

/** What the start wires into the listeners. */
export interface ListenerParts {
  store: Store;
  services: BackingServices;
  callers: Callers;
  observers: CallObservers;
  pipeline: CallPipeline;
  signal: StartSignal;
  live: LiveConfig;
  dbDir: string | undefined;
  /** the parts the caller of startServer supplies (StartOptions) */
  usage: HttpAppDeps['usage'];
  quotaRemaining: HttpAppDeps['quotaRemaining'];
  /** the built console, when there is one */
  consoleAssets: Pick<NonNullable<HttpAppDeps['console']>, 'assets'>;
}

export interface Listeners {
  grpc: GrpcServer | undefined;
  app: HttpApp;
  oauth: OAuthFaces | undefined;
}

/**
 * Listeners bind before cards are built, so cards carry the real ports (port 0 in tests); once
 * bound, `live.config` has them.
 */
export async function bindListeners(initial: Config, p: ListenerParts, loggers: ServerLoggers, metrics: Metrics | undefined, closers: Closers): Promise<Listeners> {
  // One start gate for both listeners (src/edge/start-gate.ts).
  const gate = new StartGate(p.signal.started);
  // One budget of request bytes being read, for the HTTP and gRPC listeners alike (issue 19 D6).
  // Callers without a credential share a quarter of it (at least one largest body), so they
  // cannot starve authenticated ones (issue 25 D6b); with auth.mode none everyone is anonymous.
  const inFlight = initial.limits.bodyBytesInFlight;
  const bodyBudget = new BodyBudget(inFlight, initial.auth.mode === 'none' ? inFlight : Math.max(initial.limits.bodyBytes, Math.floor(inFlight / 4)));
  const grpc = grpcListener(initial, p, gate, bodyBudget, loggers);
  if (grpc) closers.unshift(() => grpc.close());
  const grpcPort = grpc
    ? await grpc.listen(initial.server.grpc.host, initial.server.grpc.port).catch((error: unknown) => {
        throw listenFailure('gRPC', initial.server.grpc.host, initial.server.grpc.port, error);
      })
    : undefined;
  // RFC 9728 documents, and Agentport's OAuth 2.1 authorization server unless turned off (src/auth/oauth).
  const { registry, auth, revocations, policy } = p.callers;
  const { store, services, live } = p;
  const oauth = createOAuthFaces({
    config: () => live.config,
    store: store.oauth,
    keys: services.keys,
    registry,
    auth,
    revocations,
    log: loggers.module('oauth'),
    isPublicAgent: (id) => policy.isPublicAgent(id),
    audit: services.audit,
  });
  const app = buildHttpApp(httpAppDeps(initial, p, { gate, bodyBudget, oauth }, loggers, metrics));
  closers.unshift(() => app.close());
  // "Listening" is said once, by 'agentport started', when every listener and agent is up.
  const listenTextResolver = (address: string) => `HTTP port bound at ${address}; starting agents`;
  await app.listen({ host: initial.server.host, port: initial.server.port, listenTextResolver }).catch((error: unknown) => {
    throw listenFailure('HTTP', initial.server.host, initial.server.port, error);
  });
  const address = app.server.address();
  const httpPort = typeof address === 'object' && address ? address.port : initial.server.port;
  live.config = withListeningPorts(initial, { http: httpPort, grpc: grpcPort });
  return { grpc, app, oauth };
}

function grpcListener(initial: Config, p: ListenerParts, gate: StartGate, bodyBudget: BodyBudget, loggers: ServerLoggers): GrpcServer | undefined {
  if (!initial.server.grpc.enabled) return undefined;
  const { usageRecorder } = p.observers;
  const { auth, policy } = p.callers;
  return createGrpcServer({
    handler: p.pipeline.handler,
    defaultAgentId: initial.primaryAgent,
    ...(usageRecorder.tracking ? { usage: usageRecorder } : {}),
    ...grpcAuthentication({ auth, policy, gate, resourceMetadataUrl: () => protectedResourceMetadataUrl(p.live.config.server.publicUrl, '/') }),
    maxMessageBytes: initial.limits.bodyBytes,
    bodyBudget,
    bodyReadTimeoutMs: initial.limits.bodyReadTimeoutMs,
    log: loggers.module('grpc'),
  });
}

function httpAppDeps(initial: Config, p: ListenerParts, shared: { gate: StartGate; bodyBudget: BodyBudget; oauth: OAuthFaces | undefined }, loggers: ServerLoggers, metrics: Metrics | undefined): HttpAppDeps {
  const { store, services, callers, observers, pipeline, live } = p;
  const { auth, policy } = callers;
  const { usageRecorder } = observers;
  const { auditLog } = services;
  return {
    ...(shared.oauth ? { oauth: shared.oauth } : {}),
    config: initial,
    registry: callers.registry,
    handler: pipeline.handler,
    auth,
    keys: services.keys,
    log: loggers.module('http'),
    // Storage writability, bus round trip, push outbox backlog (src/server/readiness.ts).
    ready: readiness({ store, bus: services.bus, ...(p.dbDir ? { dbDir: p.dbDir } : {}), ...(initial.push.maxOutboxAge !== undefined ? { maxOutboxAgeMs: initial.push.maxOutboxAge } : {}), log: loggers.root }),
    // A failure only a restart mends (the SQLite commit thread stopped) fails /healthz.
    alive: () => store.restartNeeded?.(),
    started: p.signal.started,
    gate: shared.gate,
    policy,
    apiKeys: store,
    tasks: store,
    ...(p.usage ? { usage: p.usage } : {}),
    ...(usageRecorder.tracking ? { usageRecorder } : {}),
    quotaRemaining: p.quotaRemaining ?? ((principal) => pipeline.quotas.engine.remaining(principal)),
    quotaBook: pipeline.quotas.book,
    publicUrl: () => live.config.server.publicUrl,
    bodyBudget: shared.bodyBudget,
    audit: services.audit,
    // Readable even with audit.enabled false: records written before it was turned off stay.
    auditStore: store.audit,
    ...(auditLog ? { flushAudit: () => auditLog.flush() } : {}),
    console: { sessions: callers.consoleSessions, ...p.consoleAssets },
    ...(callers.remoteConnections ? { remoteConnections: callers.remoteConnections } : {}),
    ...(metrics && !initial.metrics.listen
      ? {
          metricsRoute: metricsRoute(metrics, {
            ...(initial.metrics.token !== undefined ? { token: initial.metrics.token } : {}),
            guard: { auth, policy, resourceMetadataUrl: () => protectedResourceMetadataUrl(live.config.server.publicUrl, '/metrics') },
          }),
        }
      : {}),
  };
}

/** Push delivery, and in distributed mode the cluster's leases and the shared signing keys' reload. */
export function startBackgroundWork(
  config: Config,
  p: { store: Store; services: BackingServices; pipeline: CallPipeline; push: PushWorkerSlot },
  loggers: ServerLoggers,
  metrics: Metrics | undefined,
  closers: Closers,
): void {
  const { store, services, pipeline, push } = p;
  const { keys, cluster } = services;
  const log = loggers.root;
  const worker = new PushDeliveryWorker({
    store,
    guard: services.guard,
    signer: config.push.signJwt ? new PushJwtSigner({ keys, issuer: config.server.publicUrl }) : undefined,
    timeoutMs: config.limits.pushTimeoutMs,
    maxAttempts: config.limits.pushMaxAttempts,
    legacyBodies: LEGACY_PUSH_BODIES,
    ...(metrics ? { metrics } : {}),
    log: loggers.module('push'),
  });
  push.worker = worker;
  worker.start();
  closers.unshift(() => worker.stop());

  closers.unshift(() => pipeline.service.close());
  if (cluster) {
    pipeline.service.startCluster();
    // A rotation on another replica reaches this one's JWKS and signatures within a minute.
    const reloadKeys = setInterval(() => void keys.reload().catch((err) => log.warn({ err }, 'could not reload shared signing keys')), 60_000);
    reloadKeys.unref();
    closers.unshift(async () => clearInterval(reloadKeys));
    log.info({ replicaId: cluster.replicaId, leaseTtlMs: cluster.leaseTtlMs }, 'distributed mode: tasks are leased to this replica while it runs them');
  }
}

/** `metrics.listen`: /metrics on a listener of its own; returns its URL. */
export async function listenForSeparateMetrics(config: Config, metrics: Metrics | undefined, closers: Closers): Promise<string | undefined> {
  if (!metrics || !config.metrics.listen) return undefined;
  const listen = config.metrics.listen;
  const listener = await listenForMetrics(metrics, listen).catch((error: unknown) => {
    const at = listen.lastIndexOf(':');
    throw listenFailure('metrics', listen.slice(0, at), Number(listen.slice(at + 1)), error);
  });
  closers.unshift(() => new Promise<void>((resolve) => listener.server.close(() => resolve())));
  return `http://${listen.slice(0, listen.lastIndexOf(':'))}:${listener.port}/metrics`;
}

/** The first start's admin API key and sign-in user, each shown once on the terminal (never logged). */
export async function createFirstAccounts(
  config: Config,
  store: Store,
  services: BackingServices,
  oauth: OAuthFaces | undefined,
  loggers: ServerLoggers,
  closers: Closers,
): Promise<{ firstAdminKey?: string; firstAdminUser?: FirstAdminUser }> {
  const log = loggers.root;
  const firstAdminKey = await createFirstAdminKey(config, store, services.audit);
  if (firstAdminKey) log.warn('first start: an admin API key was created; it is printed once on the terminal (never logged)');
  let firstAdminUser: FirstAdminUser | undefined;
  if (oauth) {
    const after = await oauth.afterStart();
    closers.unshift(after.stop);
    firstAdminUser = after.firstAdminUser;
    if (firstAdminUser) log.warn('first start: the sign-in user admin was created; its password is printed once on the terminal (never logged)');
  }
  return { ...(firstAdminKey ? { firstAdminKey } : {}), ...(firstAdminUser ? { firstAdminUser } : {}) };
}
