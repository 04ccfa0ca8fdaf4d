/**
 * The first steps of a start (./start.ts), after the checks of ./start-preflight.ts: the
 * store with its lock, the services beside it (event bus, group commit, signing keys, outbound
 * guard, audit log), and who is calling (the authorization policy and the authenticator).
 */
import { Authenticator } from '../auth/authenticator.js';
import { TokenRevocations } from '../auth/oauth/token-revocations.js';
import { ConsoleSessions } from '../auth/sessions/console-sessions.js';
import { InProcessEventBus, openRedisEventBus, type EventBus } from '../bus/index.js';
import type { Config } from '../config/index.js';
import { AgentRegistry } from '../core/agents/agent-registry.js';
import { NO_AUDIT, type AuditSink } from '../core/audit/audit-event.js';
import { AuditLog } from '../core/audit/audit-log.js';
import { AuditWebhookForwarder } from '../core/audit/audit-webhook.js';
import { AuthorizationPolicy } from '../core/authz/policy.js';
import { KeyStore } from '../core/keys/key-store.js';
import { SsrfGuard } from '../net/index.js';
import type { ServerLoggers } from '../observability/logging/index.js';
import type { Metrics } from '../observability/metrics/index.js';
import { toA2AError } from '../protocol/a2a/errors.js';
import { GroupCommitter, lockDataDir, type DataDirLock, type Store } from '../store/index.js';
import { openStore } from './open-store.js';
import { remoteConnectionsOf, type RemoteConnectionsSetup } from './remote-connections-setup.js';
import { remoteCredentialsOf } from './remote-credentials-setup.js';
import type { RemoteCredentials } from '../core/vault/index.js';
import { StartFailure } from './start-failure.js';

/** What close() stops, first to last; each step adds its own where it belongs. */
export type Closers = Array<() => Promise<void>>;

/** The configuration as it runs: `initial` until the listeners are bound, then with their ports. */
export interface LiveConfig {
  config: Config;
}

/**
 * One server per embedded database (issue 25 L1), decided before the database is opened: a
 * second server would mark this one's running tasks as cut off. Replicas on PostgreSQL share by design.
 */
export async function openStorage(initial: Config, loggers: ServerLoggers): Promise<{ store: Store; lock: DataDirLock | undefined }> {
  const lock: DataDirLock | undefined = initial.storage.driver === 'sqlite' && initial.storage.file !== ':memory:' ? lockDataDir(initial.server.dataDir) : undefined;
  const store = await openStore(initial, loggers.module('store')).catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  return { store, lock };
}

/** What sits beside the store for the whole run. */
export interface BackingServices {
  bus: EventBus;
  /** the cluster settings when the store is shared with other replicas (PostgreSQL) */
  cluster: Config['cluster'] | undefined;
  committer: GroupCommitter;
  keys: KeyStore;
  /** the outbound policy of push deliveries (push.allowlist, push.allowHttp) */
  guard: SsrfGuard;
  auditLog: AuditLog | undefined;
  audit: AuditSink;
}

export async function openBackingServices(initial: Config, store: Store, closers: Closers, loggers: ServerLoggers, metrics: Metrics | undefined): Promise<BackingServices> {
  const bus = await openEventBus(initial, store, loggers, metrics);
  closers.unshift(() => bus.close());
  // A replica alone on a shared store answers most idempotency lookups from the keys it knows (ADR 0095).
  if (bus.aloneSpell && store.trustMessageIdsWhileAlone) store.trustMessageIdsWhileAlone(() => bus.aloneSpell!());
  // A store shared with other replicas: tasks are leased, and orphans of dead replicas recovered.
  const cluster = initial.storage.driver === 'postgres' ? initial.cluster : undefined;
  if (cluster && initial.bus.driver !== 'redis') {
    loggers.root.warn('storage is PostgreSQL with the in-process bus: run one replica only, or set `bus:` to a redis:// URL so streams see events committed by other replicas');
  }
  // Distributed mode: a database restart is ridden out by holding commits (issue 19 C2).
  const committer = new GroupCommitter(store, {
    ...(cluster ? { retryUnavailableMs: cluster.commitRetryMs, isUnavailable: (err: unknown) => toA2AError(err).kind === 'Unavailable', log: loggers.module('store') } : {}),
    ...(metrics ? { metrics } : {}),
  });
  // Replicas sign with the same keys, so any replica's JWKS verifies any replica's cards.
  const keys = new KeyStore(initial.storage.driver === 'postgres' ? { shared: store } : { dataDir: initial.server.dataDir });
  const guard = new SsrfGuard({ allow: initial.push.allowlist, allowHttp: initial.push.allowHttp });
  const auditLog = openAuditLog(initial, store, loggers);
  if (auditLog) closers.unshift(() => auditLog.close());
  return { bus, cluster, committer, keys, guard, auditLog, audit: auditLog ?? NO_AUDIT };
}

function openEventBus(initial: Config, store: Store, loggers: ServerLoggers, metrics: Metrics | undefined): Promise<EventBus> | EventBus {
  if (initial.bus.driver !== 'redis') return new InProcessEventBus();
  return openRedisEventBus({
    url: initial.bus.url,
    prefix: initial.bus.prefix,
    replicaId: initial.cluster.replicaId,
    readEvents: (taskId, afterSeq, limit) => store.readEvents(taskId, afterSeq, limit),
    log: loggers.module('bus'),
    ...(metrics ? { metrics } : {}),
  }).catch((error: unknown) => {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^event bus: /, '');
    throw new StartFailure('the Redis event bus (bus.url)', `is unreachable: ${reason}`, 'check bus.url and that Redis is up and reachable from here', 'environment', { cause: error });
  });
}

/**
 * The audit log (src/core/audit): written in batches, closed (flushed) just before the store.
 * Its webhook goes through the same outbound policy as push (push.allowlist, push.allowHttp).
 */
function openAuditLog(initial: Config, store: Store, loggers: ServerLoggers): AuditLog | undefined {
  if (!initial.audit.enabled) return undefined;
  return new AuditLog({
    store: store.audit,
    replica: initial.cluster.replicaId,
    log: loggers.module('audit'),
    ...(initial.audit.webhook
      ? {
          webhook: new AuditWebhookForwarder({
            url: initial.audit.webhook.url,
            headers: initial.audit.webhook.headers,
            guard: new SsrfGuard({ allow: initial.push.allowlist, allowHttp: initial.push.allowHttp, label: 'audit webhook URL' }),
            log: loggers.module('audit'),
          }),
        }
      : {}),
  });
}

/** The agents, who may see them, and who is calling. */
export interface Callers {
  registry: AgentRegistry;
  policy: AuthorizationPolicy;
  revocations: TokenRevocations;
  consoleSessions: ConsoleSessions;
  auth: Authenticator;
  remoteConnections: RemoteConnectionsSetup | undefined;
  /** what agents call a remote with as their caller: the vault's OAuth tokens or an exchange (ADR 0039) */
  remoteCredentials: RemoteCredentials | undefined;
}

export function callersOf(initial: Config, store: Store, services: BackingServices, live: LiveConfig, metrics: Metrics | undefined): Callers {
  const { keys, audit } = services;
  const registry = new AgentRegistry(initial.primaryAgent);
  // One authorization policy under every binding (src/core/authz).
  const policy = AuthorizationPolicy.fromConfig(initial, audit);
  // Own tokens carry the public URL as `iss`; with port 0 it is known only after listen, and
  // every request waits for `started`, so it is read per request.
  // Revocation of Agentport-issued tokens, asked by the Authenticator and told by the OAuth server.
  const revocations = new TokenRevocations(store.oauth);
  // The web console's sessions: a request with no other credential may carry one (src/auth/sessions/console-sessions.ts).
  const consoleSessions = new ConsoleSessions(store.oauth, revocations);
  const auth = new Authenticator({ config: initial.auth, publicUrl: () => live.config.server.publicUrl, keys, apiKeys: store, revocations, sessions: consoleSessions });
  // Per-user OAuth to remotes (ADR 0035): the vault and the connect flow, when a remote has auth: oauth.
  const remoteConnections = remoteConnectionsOf(initial, store, () => live.config.server.publicUrl, audit, metrics);
  const remoteCredentials = remoteCredentialsOf(initial, keys, () => live.config.server.publicUrl, remoteConnections);
  return { registry, policy, revocations, consoleSessions, auth, remoteConnections, remoteCredentials };
}
