/**
 * Builds and starts everything from one resolved Config: storage, event bus, task engine, push
 * delivery, the HTTP listener and the gRPC listener. Returns a handle that drains and stops it all.
 * `startAll` reads as the list of its steps; each is a function of ./start-preflight.ts,
 * ./start-services.ts, ./start-calls.ts, ./start-listeners.ts or this file.
 */
import { loadAgentDefinition } from '../agents/load-agent.js';
import { loadConsoleAssets } from '../bindings/console/console-assets.js';
import type { AgentConfig, Config } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';
import type { AgentDefinition } from '../core/agents/agent-definition.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import type { AuditSink } from '../core/audit/audit-event.js';
import { KeyStoreCallerIdentity } from '../core/keys/caller-identity.js';
import type { FirstAdminUser } from '../auth/oauth/first-admin-user.js';
import { configSecrets, createServerLoggers, type ServerLoggers } from '../observability/logging/index.js';
import { Metrics } from '../observability/metrics/index.js';
import { registerAgent } from './agent-cards.js';
import { agentLoadFailure } from './agent-load-failure.js';
import { closeAll, FAILED_START_CLOSE_MS } from './close-all.js';
import { routeGrpcLibraryLog } from './grpc-library-log.js';
import type { HttpAppDeps } from './http-app.js';
import { buildCallPipeline, startCallObservers, type CallPipeline, type PushWorkerSlot } from './start-calls.js';
import { toStartFailure } from './start-failure.js';
import { bindListeners, createFirstAccounts, listenForSeparateMetrics, startBackgroundWork, startSignal, type Listeners, type StartSignal } from './start-listeners.js';
import { callersOf, openBackingServices, openStorage, type BackingServices, type Callers, type Closers, type LiveConfig } from './start-services.js';
import { checkBeforeOpening } from './start-preflight.js';
import type { Store } from '../store/index.js';

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
  /** told the store once it is open (embedding; tests that end the SQLite commit thread under a running server) */
  storeOpened?: (store: Store) => void;
  /** ports and directories were probed just before (start-preflight.ts's preflightStart, as `agentport serve` runs it): not probed again */
  probed?: boolean;
  /** what `agentport serve` chose for the heap (heap-settings.ts's applyHeapSettings): logged at debug level */
  heapNotes?: readonly string[];
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
  routeGrpcLibraryLog(loggers.module('grpc'));
  for (const note of options.heapNotes ?? []) loggers.root.debug(note);
  const { dbDir } = await checkBeforeOpening(initial, loggers.root, { probed: options.probed === true });
  // Prometheus metrics (src/observability/metrics); off, no part of the server gets any.
  const metrics = initial.metrics.enabled ? new Metrics({ version: packageVersion(), replica: initial.cluster.replicaId }) : undefined;
  const { store, lock } = await openStorage(initial, loggers);
  options.storeOpened?.(store);
  // Stopped in this order by close(): the task service first (ends streams, fails cut-off tasks,
  // flushes commits), then the listeners, the push worker, the bus and last the store (and its lock).
  const closers: Closers = [() => store.close().finally(() => lock?.release())];
  try {
    const live: LiveConfig = { config: initial };
    const services = await openBackingServices(initial, store, closers, loggers, metrics);
    const callers = callersOf(initial, store, services, live, metrics);
    const observers = await startCallObservers(initial, store, callers.registry, live, closers, loggers, metrics);
    const push: PushWorkerSlot = {};
    const pipeline = await buildCallPipeline(initial, store, { services, callers, observers, push, live }, loggers, metrics, closers);
    const signal = startSignal();
    const listenerParts = { store, services, callers, observers, pipeline, signal, live, dbDir, usage: options.usage ?? store.usage, quotaRemaining: options.quotaRemaining, consoleAssets: consoleAssetsIfBuilt() };
    const listeners = await bindListeners(initial, listenerParts, loggers, metrics, closers);
    const config = live.config;
    // `iss` of a signed caller identity is read per call: the public URL is final only once bound.
    const callerIdentity = new KeyStoreCallerIdentity({ keys: services.keys, issuer: () => live.config.server.publicUrl });
    await startAgents(initial, { store, services, callers, pipeline, signal, live, callerIdentity }, loggers, closers);
    startBackgroundWork(config, { store, services, pipeline, push }, loggers, metrics, closers);
    const metricsUrl = await listenForSeparateMetrics(config, metrics, closers);
    const firsts = await createFirstAccounts(config, store, services, listeners.oauth, loggers, closers);
    loggers.root.info({ http: config.server.publicUrl, grpc: listeners.grpc ? config.server.grpc.publicUrl : undefined, agents: callers.registry.list().map((a) => a.id) }, 'agentport started: listening');
    return runningServer({ live, services, callers, listeners, callerIdentity, metricsUrl, firsts, closers });
  } catch (e) {
    await closeAll(closers, FAILED_START_CLOSE_MS).catch(() => {});
    throw e;
  }
}

/**
 * Every configured agent loaded and registered (a remote MCP server's tool changes re-register
 * it), then on SQLite the tasks a crash cut off resumed or failed; then requests are let in.
 */
async function startAgents(
  initial: Config,
  p: { store: Store; services: BackingServices; callers: Callers; pipeline: CallPipeline; signal: StartSignal; live: LiveConfig; callerIdentity: KeyStoreCallerIdentity },
  loggers: ServerLoggers,
  closers: Closers,
): Promise<void> {
  const { registry, remoteCredentials } = p.callers;
  const config = p.live.config;
  const log = loggers.root;
  try {
    for (const [index, agentConfig] of config.agents.entries()) {
      const fail = (error: unknown): never => {
        throw agentLoadFailure(agentConfig, index, error);
      };
      const def = await loadAgentDefinition(agentConfig, config, {
        log: loggers.module('agents'),
        version: packageVersion(),
        callerIdentity: p.callerIdentity,
        ...(remoteCredentials ? { remoteCredentials } : {}),
      }).catch(fail);
      if (def.close) closers.push(() => def.close!());
      const signWith = config.cards.sign || config.push.signJwt ? p.services.keys : undefined;
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
      const recovered = await p.pipeline.service.recoverOrphanedTasks();
      if (recovered) log.warn({ recovered }, 'tasks cut off by the last shutdown were resumed (resumable agents) or marked FAILED');
    }
    p.signal.markStarted();
  } catch (e) {
    p.signal.markFailed(e);
    throw e;
  }
}

/** The handle startServer returns. */
function runningServer(p: {
  live: LiveConfig;
  services: BackingServices;
  callers: Callers;
  listeners: Listeners;
  callerIdentity: KeyStoreCallerIdentity;
  metricsUrl: string | undefined;
  firsts: { firstAdminKey?: string; firstAdminUser?: FirstAdminUser };
  closers: Closers;
}): RunningServer {
  const { live, services, callers, listeners, metricsUrl, closers } = p;
  const { registry } = callers;
  const { keys, audit, auditLog } = services;
  const config = live.config;
  return {
    urls: { http: config.server.publicUrl, ...(listeners.grpc ? { grpc: config.server.grpc.publicUrl } : {}), ...(metricsUrl ? { metrics: metricsUrl } : {}) },
    agents: registry.list().map((a) => ({ id: a.id, url: a.baseUrl })),
    registry,
    agentSlots: {
      get config() {
        return live.config;
      },
      put: async (agentConfig, def) => {
        const agent = await registerAgent(live.config, agentConfig, def, live.config.cards.sign || live.config.push.signJwt ? keys : undefined);
        if (registry.get(agent.id)) registry.replace(agent);
        else registry.add(agent);
      },
      remove: (agentId) => registry.remove(agentId),
      callerIdentity: p.callerIdentity,
    },
    audit: { record: (e) => audit.record(e), flush: () => auditLog?.flush() ?? Promise.resolve() },
    ...p.firsts,
    close: () => closeAll(closers),
  };
}

/** The built console (dist/console), when there is one: `npm run build` makes it. */
function consoleAssetsIfBuilt() {
  const assets = loadConsoleAssets();
  return assets ? { assets } : {};
}
