/**
 * Builds and starts everything from one resolved Config: storage, event bus, task engine, push
 * delivery, the HTTP listener and the gRPC listener. Returns a handle that drains and stops it all.
 */
import { UsageMonthlySpend } from '../core/usage/usage-spend.js';
import { UsageRecorder } from '../core/usage/usage-recorder.js';
import path from 'node:path';
import { AccessLog, configSecrets, createServerLoggers, type ServerLoggers } from '../observability/logging/index.js';
import { loadAgentDefinition } from '../agents/load-agent.js';
import { Authenticator } from '../auth/authenticator.js';
import { createOAuthFaces } from '../auth/oauth/oauth-faces.js';
import { TokenRevocations } from '../auth/oauth/token-revocations.js';
import { createGrpcServer } from '../bindings/a2a-grpc/index.js';
import { InProcessEventBus, openRedisEventBus, type EventBus } from '../bus/index.js';
import { withListeningPorts, type AgentConfig, type Config } from '../config/index.js';
import type { AgentDefinition } from '../core/agents/agent-definition.js';
import { AgentRegistry } from '../core/agents/agent-registry.js';
import { KeyStore } from '../core/keys/key-store.js';
import { KeyStoreCallerIdentity } from '../core/keys/caller-identity.js';
import { PushDeliveryWorker } from '../core/push/delivery-worker.js';
import { LEGACY_PUSH_BODIES } from '../bindings/a2a-legacy/push-bodies.js';
import { PushJwtSigner } from '../core/push/push-jwt.js';
import { SsrfGuard } from '../net/index.js';
import { NO_AUDIT, type AuditSink } from '../core/audit/audit-event.js';
import { AuditLog } from '../core/audit/audit-log.js';
import { AuditWebhookForwarder } from '../core/audit/audit-webhook.js';
import { TaskService } from '../core/tasks/task-service.js';
import type { A2AHandler } from '../core/a2a-handler.js';
import type { UsageDraft } from '../core/usage/usage-draft.js';
import { GroupCommitter, lockDataDir, type DataDirLock } from '../store/index.js';
import { toA2AError } from '../protocol/a2a/errors.js';
import { registerAgent } from './agent-cards.js';
import { buildHttpApp, type HttpAppDeps } from './http-app.js';
import { ConsoleSessions } from '../auth/sessions/console-sessions.js';
import { loadConsoleAssets } from './console/console-assets.js';
import { AuthorizationPolicy } from '../core/authz/policy.js';
import { authorizeStage } from '../core/authz/authorizing-handler.js';
import { resolveStage } from '../core/authz/resolve.js';
import { compose } from '../core/pipeline.js';
import { quotaStage } from '../core/quotas/quota-handler.js';
import { protectedResourceMetadataUrl } from '../auth/oauth-paths.js';
import { checkAuthMode, checkTokenAutoApprove } from './auth-mode.js';
import { createFirstAdminKey } from './first-start.js';
import type { FirstAdminUser } from '../auth/oauth/first-admin-user.js';
import { packageVersion } from '../config/package-version.js';
import { StartFailure, directoryFailure, listenFailure, toStartFailure } from './start-failure.js';
import { checkPortsFree } from './port-preflight.js';
import { agentLoadFailure } from './agent-load-failure.js';
import { ensureWritableDir } from './storage-writable.js';
import { readiness } from './readiness.js';
import { routeGrpcLibraryLog } from './grpc-library-log.js';
import { grpcAuthentication } from './grpc-authentication.js';
import { BodyBudget } from '../edge/body.js';
import { StartGate } from '../edge/start-gate.js';
import { openQuotas } from './quotas.js';
import { CallMetrics, Metrics } from '../observability/metrics/index.js';
import { httpStatusOfReason, listenForMetrics, metricsRoute } from './metrics-endpoint.js';
import { startServerTracing } from './server-tracing.js';
import { openStore } from './open-store.js';
import { closeAll, FAILED_START_CLOSE_MS } from './close-all.js';
import { remoteConnectionsOf, type RemoteConnectionsSetup } from './remote-connections-setup.js';

export interface RunningServer {
  /** the admin API key created by this (first) start, to be shown once; never logged */
  firstAdminKey?: string;
  /** the sign-in user created by this (first) start, to be shown once; never logged */
  firstAdminUser?: FirstAdminUser;
  /** metrics: the URL of the separate /metrics listener, when `metrics.listen` is set */
  urls: { http: string; grpc?: string; metrics?: string };
  agents: Array<{ id: string; url: string }>;
  /** the live agent registry (faces announce its changes; tests add and remove agents through it) */
  registry: AgentRegistry;
  /** swaps agents in place without a restart (agentport dev: src/server/dev-reload.ts) */
  agentSlots: AgentSlots;
  /** where security and administration events go (audit.enabled false: nowhere); flush() writes what is queued */
  audit: AuditSink & { flush(): Promise<void> };
  close(): Promise<void>;
}

export interface AgentSlots {
  /** the configuration as it runs (listening ports filled in) */
  readonly config: Config;
  /** registers `def` as the agent `agentConfig.id`: added when new, else replacing the running one */
  put(agentConfig: AgentConfig, def: AgentDefinition): Promise<void>;
  /** false when there was no such agent; the primary agent cannot be removed */
  remove(agentId: string): boolean;
  /** signs caller identities for agents reloaded with `remote.auth` (AgentLoadContext.callerIdentity) */
  readonly callerIdentity?: KeyStoreCallerIdentity;
}

/**
 * Services the server takes from its caller instead of building them (embedding, and tests that
 * need to hold one end of a seam).
 */
export interface StartOptions {
  /** the usage records `/api/v1/usage` reads; default: the store's */
  usage?: HttpAppDeps['usage'];
  /** what remains of a caller's quotas, reported by `/api/v1/usage` */
  quotaRemaining?: HttpAppDeps['quotaRemaining'];
  /** where log lines go instead of stdout (embedding; tests that read the log) */
  logDestination?: { write(line: string): void };
}

/**
 * Rejects only with a StartFailure (src/server/start-failure.ts), after closing whatever it had
 * opened: the caller can print it and exit.
 */
export async function startServer(initial: Config, options: StartOptions = {}): Promise<RunningServer> {
  // Per-module levels (logging.levels) and secrets scrubbed from every line (docs/observability.md#logs).
  const loggers = createServerLoggers({ level: initial.server.logLevel, logging: initial.logging, secrets: configSecrets(initial), ...(options.logDestination ? { destination: options.logDestination } : {}) });
  const log = loggers.root;
  try {
    return await startAll(initial, loggers, options);
  } catch (error) {
    log.debug({ err: error }, 'start failed');
    throw toStartFailure(error, initial);
  }
}

async function startAll(initial: Config, loggers: ServerLoggers, options: StartOptions): Promise<RunningServer> {
  const log = loggers.root;
  const moduleLog = loggers.module;
  routeGrpcLibraryLog(moduleLog('grpc'));
  // Configuration checks first: a refused configuration opens nothing.
  checkAuthMode(initial, log);
  checkTokenAutoApprove(initial, log);
  if (initial.bus.driver === 'redis' && initial.storage.driver !== 'postgres') {
    throw new StartFailure('bus (redis)', 'joins replicas that share one PostgreSQL store, but storage is not PostgreSQL', 'set `storage:` to a postgres:// URL (or remove `bus:` for a single server)', 'configuration');
  }
  // Every taken port at once, before anything opens (port-preflight.ts).
  await checkPortsFree(initial);
  // Named here, by path: SQLite would open a database it cannot write read-only, and fail later.
  const dataDir = initial.server.dataDir;
  await ensureWritableDir(dataDir).catch((error: unknown) => {
    throw directoryFailure('the data directory', dataDir, error);
  });
  const dbDir = initial.storage.driver === 'sqlite' && initial.storage.file !== ':memory:' ? path.dirname(initial.storage.file) : undefined;
  if (dbDir && dbDir !== path.resolve(dataDir)) {
    await ensureWritableDir(dbDir).catch((error: unknown) => {
      throw directoryFailure("the database's directory", dbDir, error);
    });
  }
  // One server per embedded database (issue 25 L1), decided before the database is opened: a
  // second server would mark this one's running tasks as cut off. Replicas on PostgreSQL share by design.
  const lock: DataDirLock | undefined = initial.storage.driver === 'sqlite' && initial.storage.file !== ':memory:' ? lockDataDir(dataDir) : undefined;
  // Prometheus metrics (src/observability/metrics); off, no part of the server gets any.
  const metrics = initial.metrics.enabled ? new Metrics({ version: packageVersion(), replica: initial.cluster.replicaId }) : undefined;
  const store = await openStore(initial, moduleLog('store')).catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  // Stopped in this order by close(): the task service first (ends streams, fails cut-off tasks,
  // flushes commits), then the listeners, the push worker, the bus and last the store (and its lock).
  const closers: Array<() => Promise<void>> = [() => store.close().finally(() => lock?.release())];
  try {
    const bus: EventBus =
      initial.bus.driver === 'redis'
        ? await openRedisEventBus({
            url: initial.bus.url,
            prefix: initial.bus.prefix,
            replicaId: initial.cluster.replicaId,
            readEvents: (taskId, afterSeq, limit) => store.readEvents(taskId, afterSeq, limit),
            log: moduleLog('bus'),
            ...(metrics ? { metrics } : {}),
          }).catch((error: unknown) => {
            const reason = (error instanceof Error ? error.message : String(error)).replace(/^event bus: /, '');
            throw new StartFailure('the Redis event bus (bus.url)', `is unreachable: ${reason}`, 'check bus.url and that Redis is up and reachable from here', 'environment', { cause: error });
          })
        : new InProcessEventBus();
    closers.unshift(() => bus.close());
    // A store shared with other replicas: tasks are leased, and orphans of dead replicas recovered.
    const cluster = initial.storage.driver === 'postgres' ? initial.cluster : undefined;
    if (cluster && initial.bus.driver !== 'redis') {
      log.warn('storage is PostgreSQL with the in-process bus: run one replica only, or set `bus:` to a redis:// URL so streams see events committed by other replicas');
    }
    // Distributed mode: a database restart is ridden out by holding commits (issue 19 C2).
    const committer = new GroupCommitter(store, {
      ...(cluster ? { retryUnavailableMs: cluster.commitRetryMs, isUnavailable: (err: unknown) => toA2AError(err).kind === 'Unavailable', log: moduleLog('store') } : {}),
      ...(metrics ? { metrics } : {}),
    });
    // Replicas sign with the same keys, so any replica's JWKS verifies any replica's cards.
    const keys = new KeyStore(initial.storage.driver === 'postgres' ? { shared: store } : { dataDir: initial.server.dataDir });
    const guard = new SsrfGuard({ allow: initial.push.allowlist, allowHttp: initial.push.allowHttp });
    // The audit log (src/core/audit): written in batches, closed (flushed) just before the store.
    // Its webhook goes through the same outbound policy as push (push.allowlist, push.allowHttp).
    const auditLog = initial.audit.enabled
      ? new AuditLog({
          store: store.audit,
          replica: initial.cluster.replicaId,
          log: moduleLog('audit'),
          ...(initial.audit.webhook
            ? {
                webhook: new AuditWebhookForwarder({
                  url: initial.audit.webhook.url,
                  headers: initial.audit.webhook.headers,
                  guard: new SsrfGuard({ allow: initial.push.allowlist, allowHttp: initial.push.allowHttp, label: 'audit webhook URL' }),
                  log: moduleLog('audit'),
                }),
              }
            : {}),
        })
      : undefined;
    if (auditLog) closers.unshift(() => auditLog.close());
    const audit: AuditSink = auditLog ?? NO_AUDIT;
    const registry = new AgentRegistry(initial.primaryAgent);
    // One authorization policy under every binding (src/core/authz).
    const policy = AuthorizationPolicy.fromConfig(initial, audit);
    // Own tokens carry the public URL as `iss`; with port 0 it is known only after listen, and
    // every request waits for `started`, so it is read per request.
    // Revocation of Agentport-issued tokens, asked by the Authenticator and told by the OAuth server.
    const revocations = new TokenRevocations(store.oauth);
    // The web console's sessions: a request with no other credential may carry one (src/auth/sessions/console-sessions.ts).
    const consoleSessions = new ConsoleSessions(store.oauth, revocations);
    const auth = new Authenticator({ config: initial.auth, publicUrl: () => config.server.publicUrl, keys, apiKeys: store, revocations, sessions: consoleSessions });
    // Per-user OAuth to remotes (ADR 0035): the vault and the connect flow, when a remote has auth: oauth.
    const remoteConnections: RemoteConnectionsSetup | undefined = remoteConnectionsOf(initial, store, () => config.server.publicUrl, audit, metrics);

    // Usage records (src/core/usage): a task's in its own commits, other calls queued and written in batches.
    // An LLM agent's price table (agents[].llm.price) prices its tasks whatever skill they name.
    const skillCost = (agentId: string, skill: string | undefined) => {
      const agent = config.agents.find((a) => a.id === agentId);
      return (skill === undefined ? undefined : agent?.skills[skill]?.cost) ?? agent?.llm?.price;
    };
    const usageRecorder = new UsageRecorder({ store: store.usage, replica: initial.cluster.replicaId, config: initial.usage, log: moduleLog('usage'), cost: skillCost, isAgent: (id) => registry.get(id) !== undefined });
    // Observers of every call's end (metrics, the access log) register here, before the listeners are built.
    if (metrics) {
      // Configured agents are label values from the start, so their failures are never 'other'.
      metrics.labels.agent.seed(initial.agents.map((a) => a.id));
      usageRecorder.observe(new CallMetrics(metrics, { statusOf: httpStatusOfReason }));
    }
    // The access log only when on and its logger writes info: otherwise no draft is opened for it.
    if (initial.logging.accessLog && moduleLog('access').isLevelEnabled('info')) usageRecorder.observe(new AccessLog(moduleLog('access')));
    if (usageRecorder.enabled) {
      usageRecorder.start();
      // Stopped after the listeners and the task service: the last answers' records are written.
      closers.splice(closers.length - 1, 0, () => usageRecorder.close());
    }
    // Traces (issue 14): the SDK is loaded only when tracing is on; exported last, after the store closes.
    const tracing = await startServerTracing(initial, usageRecorder, moduleLog('tracing'));
    if (tracing) closers.push(() => tracing.close());

    let worker: PushDeliveryWorker | undefined;
    // Agents calling other agents (AgentContext.agents) go through the outer handler, built below.
    let outerHandler: A2AHandler | undefined;
    const service = new TaskService({
      hostedAgents: {
        handler: () => outerHandler,
        ...(usageRecorder.tracking ? { usage: { open: (face: string) => usageRecorder.open(face), finish: (d: UsageDraft, end: { status: number; latencyMs: number }) => usageRecorder.finish(d, end) } } : {}),
      },
      registry,
      store,
      committer,
      bus,
      limits: {
        blockingSendTimeoutMs: initial.limits.blockingSendTimeoutMs,
        maxHistoryLength: initial.limits.maxHistoryLength,
        maxConcurrentStreamsPerTask: initial.limits.maxConcurrentStreamsPerTask,
        deduplicateMessageIds: initial.limits.deduplicateMessageIds,
      },
      log: moduleLog('tasks'),
      pushGuard: guard,
      onOutbox: () => worker?.kick(),
      ...(cluster ? { cluster } : {}),
      ...(usageRecorder.enabled ? { usage: { replica: initial.cluster.replicaId, cost: skillCost } } : {}),
      ...(metrics ? { metrics } : {}),
    });
    if (metrics) metrics.sources.outbox = () => store.outboxBacklog();
    // Quotas (issue 13): the usage store's MonthlySpend and the audit sink are wired in by their own work.
    const quotas = await openQuotas(initial, store.quotas, { log: moduleLog('quotas'), spend: new UsageMonthlySpend(store.usage), audit, ...(metrics ? { metrics } : {}) });
    closers.unshift(() => quotas.close());
    // The call pipeline (core/pipeline.ts): every A2A operation from every face passes these
    // stages in this order; an MCP face puts its surface stage in front (core/authz/surface.ts).
    const handler = compose(
      [
        ...(tracing ? [tracing.stage] : []),
        resolveStage(registry, policy),
        authorizeStage(policy, {
          // A hidden agent has no public RFC 9728 document (it would tell that it exists): its
          // challenges name the server's own, for the root resource.
          resourceMetadataUrl: (agentId, surface) => protectedResourceMetadataUrl(config.server.publicUrl, surface === 'mcp' ? '/mcp' : policy.isPublicAgent(agentId) ? `/a2a/${agentId}` : '/'),
        }),
        quotaStage(quotas.engine, service),
      ],
      service,
    );
    outerHandler = handler;

    // Listeners bind before cards are built, so cards carry the real ports (port 0 in tests).
    // Settles once agents are registered; requests that arrive earlier wait for it.
    let markStarted!: () => void;
    let markFailed!: (e: unknown) => void;
    const started = new Promise<void>((resolve, reject) => ((markStarted = resolve), (markFailed = reject)));
    started.catch(() => {});
    // One start gate for both listeners (src/edge/start-gate.ts).
    const gate = new StartGate(started);
    // One budget of request bytes being read, for the HTTP and gRPC listeners alike (issue 19 D6).
    // Callers without a credential share a quarter of it (at least one largest body), so they
    // cannot starve authenticated ones (issue 25 D6b); with auth.mode none everyone is anonymous.
    const inFlight = initial.limits.bodyBytesInFlight;
    const bodyBudget = new BodyBudget(inFlight, initial.auth.mode === 'none' ? inFlight : Math.max(initial.limits.bodyBytes, Math.floor(inFlight / 4)));
    const grpc = initial.server.grpc.enabled
      ? createGrpcServer({
          handler,
          defaultAgentId: initial.primaryAgent,
          ...(usageRecorder.tracking ? { usage: usageRecorder } : {}),
          ...grpcAuthentication({ auth, policy, gate, resourceMetadataUrl: () => protectedResourceMetadataUrl(config.server.publicUrl, '/') }),
          maxMessageBytes: initial.limits.bodyBytes,
          bodyBudget,
          bodyReadTimeoutMs: initial.limits.bodyReadTimeoutMs,
          log: moduleLog('grpc'),
        })
      : undefined;
    if (grpc) closers.unshift(() => grpc.close());
    const grpcPort = grpc
      ? await grpc.listen(initial.server.grpc.host, initial.server.grpc.port).catch((error: unknown) => {
          throw listenFailure('gRPC', initial.server.grpc.host, initial.server.grpc.port, error);
        })
      : undefined;

    let config = initial;
    // Storage writability, bus round trip, push outbox backlog (src/server/readiness.ts).
    const ready = readiness({ store, bus, ...(dbDir ? { dbDir } : {}), ...(initial.push.maxOutboxAge !== undefined ? { maxOutboxAgeMs: initial.push.maxOutboxAge } : {}), log });
    // RFC 9728 documents, and Agentport's OAuth 2.1 authorization server unless turned off (src/auth/oauth).
    const oauth = createOAuthFaces({ config: () => config, store: store.oauth, keys, registry, auth, revocations, log: moduleLog('oauth'), isPublicAgent: (id) => policy.isPublicAgent(id), audit });
    const usage = options.usage ?? store.usage;
    const app = buildHttpApp({
      ...(oauth ? { oauth } : {}),
      config,
      registry,
      handler,
      auth,
      keys,
      log: moduleLog('http'),
      ready,
      started,
      gate,
      policy,
      apiKeys: store,
      tasks: store,
      ...(usage ? { usage } : {}),
      ...(usageRecorder.tracking ? { usageRecorder } : {}),
      quotaRemaining: options.quotaRemaining ?? ((p) => quotas.engine.remaining(p)),
      quotaBook: quotas.book,
      publicUrl: () => config.server.publicUrl,
      bodyBudget,
      audit,
      // Readable even with audit.enabled false: records written before it was turned off stay.
      auditStore: store.audit,
      ...(auditLog ? { flushAudit: () => auditLog.flush() } : {}),
      console: { sessions: consoleSessions, ...consoleAssetsIfBuilt() },
      ...(remoteConnections ? { remoteConnections } : {}),
      ...(metrics && !initial.metrics.listen
        ? {
            metricsRoute: metricsRoute(metrics, {
              ...(initial.metrics.token !== undefined ? { token: initial.metrics.token } : {}),
              guard: { auth, policy, resourceMetadataUrl: () => protectedResourceMetadataUrl(config.server.publicUrl, '/metrics') },
            }),
          }
        : {}),
    });
    closers.unshift(() => app.close());
    // "Listening" is said once, by 'agentport started', when every listener and agent is up.
    const listenTextResolver = (address: string) => `HTTP port bound at ${address}; starting agents`;
    await app.listen({ host: initial.server.host, port: initial.server.port, listenTextResolver }).catch((error: unknown) => {
      throw listenFailure('HTTP', initial.server.host, initial.server.port, error);
    });
    const address = app.server.address();
    const httpPort = typeof address === 'object' && address ? address.port : initial.server.port;
    config = withListeningPorts(initial, { http: httpPort, grpc: grpcPort });

    // `iss` of a signed caller identity is read per call: the public URL is final only once bound.
    const callerIdentity = new KeyStoreCallerIdentity({ keys, issuer: () => config.server.publicUrl });
    try {
      for (const [index, agentConfig] of config.agents.entries()) {
        const fail = (error: unknown): never => {
          throw agentLoadFailure(agentConfig, index, error);
        };
        const def = await loadAgentDefinition(agentConfig, config, {
          log: moduleLog('agents'),
          version: packageVersion(),
          callerIdentity,
          ...(remoteConnections ? { remoteCredentials: remoteConnections.connections } : {}),
        }).catch(fail);
        if (def.close) closers.push(() => def.close!());
        const signWith = config.cards.sign || config.push.signJwt ? keys : undefined;
        registry.add(await registerAgent(config, agentConfig, def, signWith).catch(fail));
        // A remote MCP server's tools changed: new card, new skills, new MCP tools.
        def.onCardChange?.(
          () =>
            void registerAgent(config, agentConfig, def, signWith)
              .then((a) => registry.replace(a))
              .catch((err: unknown) => log.warn({ err, agent: agentConfig.id }, 'could not re-register an agent whose card changed')),
        );
      }
      if (initial.storage.driver === 'sqlite') {
        // Before any request is let in (they wait for `started`): every SUBMITTED/WORKING task now
        // is one a crash cut off. After the agents register, so resumable ones resume.
        const recovered = await service.recoverOrphanedTasks();
        if (recovered) log.warn({ recovered }, 'tasks cut off by the last shutdown were resumed (resumable agents) or marked FAILED');
      }
      markStarted();
    } catch (e) {
      markFailed(e);
      throw e;
    }

    worker = new PushDeliveryWorker({
      store,
      guard,
      signer: config.push.signJwt ? new PushJwtSigner({ keys, issuer: config.server.publicUrl }) : undefined,
      timeoutMs: config.limits.pushTimeoutMs,
      maxAttempts: config.limits.pushMaxAttempts,
      legacyBodies: LEGACY_PUSH_BODIES,
      ...(metrics ? { metrics } : {}),
      log: moduleLog('push'),
    });
    worker.start();
    const pushWorker = worker;
    closers.unshift(() => pushWorker.stop());

    closers.unshift(() => service.close());
    if (cluster) {
      service.startCluster();
      // A rotation on another replica reaches this one's JWKS and signatures within a minute.
      const reloadKeys = setInterval(() => void keys.reload().catch((err) => log.warn({ err }, 'could not reload shared signing keys')), 60_000);
      reloadKeys.unref();
      closers.unshift(async () => clearInterval(reloadKeys));
      log.info({ replicaId: cluster.replicaId, leaseTtlMs: cluster.leaseTtlMs }, 'distributed mode: tasks are leased to this replica while it runs them');
    }

    let metricsUrl: string | undefined;
    if (metrics && config.metrics.listen) {
      const listener = await listenForMetrics(metrics, config.metrics.listen).catch((error: unknown) => {
        const at = config.metrics.listen!.lastIndexOf(':');
        throw listenFailure('metrics', config.metrics.listen!.slice(0, at), Number(config.metrics.listen!.slice(at + 1)), error);
      });
      closers.unshift(() => new Promise<void>((resolve) => listener.server.close(() => resolve())));
      metricsUrl = `http://${config.metrics.listen.slice(0, config.metrics.listen.lastIndexOf(':'))}:${listener.port}/metrics`;
    }

    const firstAdminKey = await createFirstAdminKey(config, store, audit);
    if (firstAdminKey) log.warn('first start: an admin API key was created; it is printed once on the terminal (never logged)');
    let firstAdminUser: FirstAdminUser | undefined;
    if (oauth) {
      const after = await oauth.afterStart();
      closers.unshift(after.stop);
      firstAdminUser = after.firstAdminUser;
      if (firstAdminUser) log.warn('first start: the sign-in user admin was created; its password is printed once on the terminal (never logged)');
    }
    log.info({ http: config.server.publicUrl, grpc: grpc ? config.server.grpc.publicUrl : undefined, agents: registry.list().map((a) => a.id) }, 'agentport started: listening');
    return {
      urls: { http: config.server.publicUrl, ...(grpc ? { grpc: config.server.grpc.publicUrl } : {}), ...(metricsUrl ? { metrics: metricsUrl } : {}) },
      agents: registry.list().map((a) => ({ id: a.id, url: a.baseUrl })),
      registry,
      agentSlots: {
        get config() {
          return config;
        },
        put: async (agentConfig, def) => {
          const agent = await registerAgent(config, agentConfig, def, config.cards.sign || config.push.signJwt ? keys : undefined);
          if (registry.get(agent.id)) registry.replace(agent);
          else registry.add(agent);
        },
        remove: (agentId) => registry.remove(agentId),
        callerIdentity,
      },
      audit: { record: (e) => audit.record(e), flush: () => auditLog?.flush() ?? Promise.resolve() },
      ...(firstAdminKey ? { firstAdminKey } : {}),
      ...(firstAdminUser ? { firstAdminUser } : {}),
      close: () => closeAll(closers),
    };
  } catch (e) {
    await closeAll(closers, FAILED_START_CLOSE_MS).catch(() => {});
    throw e;
  }
}

/** The built console (dist/console), when there is one: `npm run build` makes it. */
function consoleAssetsIfBuilt() {
  const assets = loadConsoleAssets();
  return assets ? { assets } : {};
}
