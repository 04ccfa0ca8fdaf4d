/**
 * The storage seam. The core depends on this interface only; `sqlite/` and `postgres/` implement it
 * over the same Kysely migrations, and test/store/contract.ts pins its behaviour for both.
 *
 * A task's projection and the events that produced it are written in one transaction (`commit`),
 * so the event log is always a complete history of the projection (ARCHITECTURE principle 3).
 */
import type { StreamResponse, Task, TaskPushNotificationConfig, TaskState } from '../protocol/a2a/types.js';
import type { TaskEventRecord } from './task-event-record.js';

export type { TaskEventPayload, TaskEventRecord } from './task-event-record.js';

/**
 * Which replica may run a task's executor, until when (distributed mode). Taking a lease bumps the
 * task's version, so a replica that lost its lease can no longer commit to the task (fencing); a
 * commit carrying a lease is also refused unless the stored lease is its writer's (released, or
 * held by another replica: ADR 0070).
 */
export interface TaskLease {
  /** replica id */
  owner: string;
  /** epoch ms */
  expiresAt: number;
}

export interface OutboxBacklog {
  pending: number;
  /** epoch ms the oldest pending entry was queued; absent when none is pending */
  oldestCreatedAt?: number;
}

/** Where a task stands in the oldest-first order of findTasksInStates. */
export interface TaskPosition {
  createdAt: number;
  id: string;
}

export interface StoredTask {
  /** the agent the task belongs to; acts as the A2A tenant */
  agentId: string;
  /** the principal that created the task; only it may see the task */
  owner: string;
  task: Task;
  /** last event seq applied to the projection */
  seq: number;
  /** optimistic-concurrency version, incremented by each commit */
  version: number;
  /** epoch ms */
  createdAt: number;
  /** epoch ms of task.status.timestamp, the ListTasks sort key */
  statusTime: number;
  /** absent when no replica holds or held one (embedded mode, or released) */
  lease?: TaskLease;
  /** W3C traceparent of the span the task was created in (tracing was on then) */
  traceParent?: string;
  /** JSON of the caller a resumable run acts for when it calls other agents (core/execution/hosted-agent-calls.ts) */
  caller?: string;
}

/** A task an orphan sweep claimed, with the lease it took over (absent: no replica held one). */
export interface ClaimedTask extends StoredTask {
  previousLease?: TaskLease;
}

export interface OutboxEntry {
  id: number;
  taskId: string;
  configId: string;
  /** the event seq this delivery carries */
  seq: number;
  /** the HTTP+JSON StreamResponse body */
  payload: StreamResponse;
  attempts: number;
  /** epoch ms */
  nextAttemptAt: number;
}

/** A push delivery still owed (queued, or waiting to be retried), as the management API shows it. */
export interface PendingDelivery {
  configId: string;
  seq: number;
  attempts: number;
  /** epoch ms */
  nextAttemptAt: number;
  lastError?: string;
  /** epoch ms */
  queuedAt: number;
}

export interface NewOutboxEntry {
  taskId: string;
  configId: string;
  seq: number;
  payload: StreamResponse;
}

/** One task's changes in one transaction. */
export interface TaskCommit {
  agentId: string;
  owner: string;
  task: Task;
  /** version the writer read; 0 when the task is new. A mismatch fails the commit (ConcurrentUpdateError). */
  expectedVersion: number;
  seq: number;
  events: TaskEventRecord[];
  outbox: NewOutboxEntry[];
  createdAt: number;
  /**
   * Written with the projection when present (the committing replica holds the task): an update is
   * then refused (ConcurrentUpdateError) unless the stored lease is this owner's (ADR 0070). Absent
   * leaves the lease as it is and checks the version alone.
   */
  lease?: TaskLease;
  /**
   * New tasks only: the messageId of the message that created the task. A second task with the same
   * (agentId, owner, messageId) is refused like a concurrent create (ConcurrentUpdateError).
   */
  originMessageId?: string;
  /** New tasks only: the W3C traceparent of the span creating the task (docs/observability.md). */
  traceParent?: string;
  /** New tasks only: the caller a resumable run acts for, JSON (StoredTask.caller). */
  caller?: string;
  /**
   * The task's usage record (kind 'task', id = the task id), written into the task's own row by
   * this commit (migration 0023; its agent, context and outcome are the task's): on the
   * task's first commit, when it reaches an interrupted or terminal state, and when LLM usage was
   * reported since its last write. On a row that exists: outcome, error, final, time and durationMs
   * take the new values; promptTokens, completionTokens and cost are ADDED (the commit carries what
   * accrued since the last write); model, ttfbMs, latencyMs, bytesIn, bytesOut take the new value
   * when given; every other column keeps the first write's value. The timing fields go to the
   * record's timing row (task_usage_timing), like a later UsageAmend.
   */
  usage?: import('./usage-record.js').UsageRecord;
}

export interface StoredPushConfig {
  agentId: string;
  owner: string;
  taskId: string;
  config: TaskPushNotificationConfig & { id: string; taskId: string };
  createdAt: number;
}

export interface ListTasksQuery {
  agentId: string;
  owner: string;
  contextId?: string;
  status?: TaskState;
  /** epoch ms; tasks whose status time is >= this */
  statusTimeAfter?: number;
  pageSize: number;
  /** opaque cursor returned by a previous page, already validated by decodeCursor */
  after?: { statusTime: number; taskId: string };
  /** the totalSize an earlier page of this listing reported: answered as is, not counted again */
  knownTotal?: number;
}

/** Tasks across agents and owners (the management API's task list); an absent filter matches all. */
export interface TaskSearchQuery {
  agentId?: string;
  owner?: string;
  status?: TaskState;
  /** epoch ms; tasks whose status time is >= this */
  statusTimeAfter?: number;
  /** epoch ms; tasks whose status time is < this */
  statusTimeBefore?: number;
  pageSize: number;
  after?: { statusTime: number; taskId: string };
}

export interface ListTasksPage {
  tasks: StoredTask[];
  totalSize: number;
  /** set when more tasks follow */
  next?: { statusTime: number; taskId: string };
}

/**
 * A key replicas share for signing (agent cards, push JWTs). The private JWK is stored as is: who
 * can read the database can sign as this Agentport, like who can read `<dataDir>/keys/`.
 */
export interface StoredSigningKey {
  /** RFC 7638 thumbprint of the public key */
  kid: string;
  /** 1 for the first key, +1 per rotation; a generation is taken by exactly one key */
  generation: number;
  /** the private JWK (RFC 7517) as JSON */
  privateJwk: string;
  /** epoch ms */
  createdAt: number;
}

/** An API key as stored: never the secret, only its SHA-256 (hex). */
export interface StoredApiKey {
  /** the public part of the key (`ap_<keyId>_<secret>`); unique */
  keyId: string;
  /** SHA-256 of the secret part, lower-case hex */
  secretHash: string;
  subject: string;
  scopes: string[];
  usecase?: string;
  /** epoch ms */
  createdAt: number;
  /** epoch ms; absent: never expires */
  expiresAt?: number;
  /** epoch ms; absent: not revoked */
  revokedAt?: number;
  /** the local user who made the key for themselves (migration 0016): it ends with them, their scopes cap it */
  owner?: string;
  /** the OAuth grant the key was minted through (migration 0016): it ends with the grant */
  grantId?: string;
  /**
   * Read with the key, never written: what `owner` and `grantId` stand on now. `ownerNow` absent
   * while `owner` is set: the user no longer exists; `grant` absent while `grantId` is set: the
   * grant is gone (swept after it expired).
   */
  standing?: { ownerNow?: { scopes: string[]; createdAt: number }; grant?: { revokedAt?: number; expiresAt?: number } };
}

export interface MigrationStatus {
  /** names this build knows, in order */
  known: string[];
  /** names recorded in the database */
  applied: string[];
  /** known but not applied */
  pending: string[];
  /** applied but unknown to this build (the database is newer than this Agentport) */
  unknown: string[];
}

export class ConcurrentUpdateError extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} was updated concurrently`);
    this.name = 'ConcurrentUpdateError';
  }
}

/** The database holds migrations this build does not know: a newer Agentport migrated it. */
export class DatabaseSchemaNewerError extends Error {
  constructor(readonly unknownMigrations: readonly string[]) {
    super(`database schema is newer than this Agentport: unknown migrations ${unknownMigrations.join(', ')}; upgrade Agentport`);
    this.name = 'DatabaseSchemaNewerError';
  }
}

/** The database cannot be reached or answered with an error; the message names it and the cause. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** The OAuth authorization server's records and local users (src/store/oauth-store.ts). */
  readonly oauth: import('./oauth-store.js').OAuthStore;
  /** Usage records, rollups and retention (src/store/usage-store.ts); a task's record is written by `commit`. */
  readonly usage: import('./usage-store.js').UsageStore;
  /** Quotas set through the management API (src/store/quota-store.ts). */
  readonly quotas: import('./quota-store.js').QuotaStore;
  /** The hash-chained audit log (src/store/audit-store.ts). */
  readonly audit: import('./audit-store.js').AuditStore;
  /**
   * Applies pending migrations; idempotent. Refuses (DatabaseSchemaNewerError) a database holding
   * migrations this build does not know.
   */
  migrate(): Promise<void>;
  /** Writes every commit in one transaction; all or nothing. */
  commit(commits: TaskCommit[]): Promise<void>;
  /**
   * How many commit() calls may usefully run at once, on disjoint tasks (the GroupCommitter's
   * pipeline depth); absent means one at a time.
   */
  readonly commitConcurrency?: number;
  getTask(agentId: string, taskId: string): Promise<StoredTask | undefined>;
  /** The task `owner` created on `agentId` with the message `messageId` (SendMessage idempotency). */
  findTaskByMessageId(agentId: string, owner: string, messageId: string): Promise<StoredTask | undefined>;
  /**
   * The same answer as findTaskByMessageId, returned at once: offered by a store that reads it
   * synchronously (the embedded SQLite), so SendMessage does not wait a turn for it (issue 26).
   */
  findTaskByMessageIdAtHand?(agentId: string, owner: string, messageId: string): StoredTask | undefined;
  /**
   * Offered by a store other replicas may write to (PostgreSQL): findTaskByMessageId may answer
   * "none" from the keys it knows while `aloneSpell` names a spell of this replica being the only
   * writer, the spell its keys were read in (ADR 0095). Never called: it always asks the database.
   */
  trustMessageIdsWhileAlone?(aloneSpell: () => number | undefined): void;
  listTasks(query: ListTasksQuery): Promise<ListTasksPage>;
  /** Tasks of any agent and owner, newest status first, keyset-paged like listTasks (management API). */
  searchTasks(query: TaskSearchQuery): Promise<ListTasksPage>;
  /**
   * Tasks of any agent and owner in one of `states`, oldest first (created_at, then id), up to
   * `limit`; with `after`, only those that come after that task in this order (start-up recovery
   * pages through them, since a resumed task stays in its state).
   */
  findTasksInStates(states: readonly TaskState[], limit: number, after?: TaskPosition): Promise<StoredTask[]>;
  /** Events with seq > afterSeq, in order. */
  readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEventRecord[]>;

  /**
   * Takes the task's lease for `owner` until `expiresAt` when it is free, expired before `now`, or
   * already `owner`'s — or unconditionally with `force` (cancel preempts a running executor).
   * Increments the version. Returns the task as claimed; undefined when another replica holds a
   * live lease (and not `force`) or the task does not exist.
   */
  claimTask(agentId: string, taskId: string, owner: string, now: number, expiresAt: number, force?: boolean): Promise<StoredTask | undefined>;
  /** Extends `owner`'s leases on these tasks; returns the ids whose lease `owner` still held. */
  renewLeases(owner: string, taskIds: readonly string[], expiresAt: number): Promise<string[]>;
  /** Clears `owner`'s lease on the task (its run ended); a no-op when `owner` no longer holds it. Does not bump the version. */
  releaseLease(taskId: string, owner: string): Promise<void>;
  /**
   * Claims for `owner` up to `limit` tasks in one of `states` whose lease is absent or expired
   * before `now` (PG: FOR UPDATE SKIP LOCKED, so replicas sweeping at once take different tasks).
   * Increments each version. Returns them as claimed, oldest first, each with the lease it replaced.
   */
  claimOrphanedTasks(states: readonly TaskState[], owner: string, now: number, expiresAt: number, limit: number): Promise<ClaimedTask[]>;
  /** Throws StoreUnavailableError (with a cause an operator can act on) when the database cannot be reached. */
  ping(): Promise<void>;
  /** Why the storage is failing, in a few fixed words ('damaged'), once a write found out; embedded store only. */
  storageFailure?(): string | undefined;
  /**
   * Why this process can store nothing more until it restarts, when a restart mends it (the SQLite
   * commit thread stopped), in a few fixed words; `/healthz` fails with it so that an orchestrator
   * restarts the process. Not a damaged file: a restart does not mend that (it refuses to start).
   */
  restartNeeded?(): string | undefined;
  /** Migrations applied in the database vs those this build knows. */
  migrationStatus(): Promise<MigrationStatus>;

  /** Every shared signing key, oldest generation first (the last one signs). */
  listSigningKeys(): Promise<StoredSigningKey[]>;
  /**
   * Adds a key unless its generation or kid is taken, which means another replica created or
   * rotated first: the caller then lists the keys again and uses the winner's. Returns whether it
   * was added.
   */
  addSigningKey(key: StoredSigningKey): Promise<boolean>;
  /** Removes keys past their retention; unknown kids are ignored. */
  deleteSigningKeys(kids: readonly string[]): Promise<void>;

  /** Adds a key; throws when its keyId is taken (key ids are random, so that is a bug or an attack). */
  putApiKey(key: StoredApiKey): Promise<void>;
  getApiKey(keyId: string): Promise<StoredApiKey | undefined>;
  /**
   * A number that changes, at the commit, with every write to a row getApiKey's answers are read
   * from, whichever connection or process writes it (migration 0026, ADR 0052). Offered only where
   * reading it costs much less than getApiKey (SQLite); absent on PostgreSQL, where it would cost
   * the same round trip.
   */
  credentialsGeneration?(): number;
  /** Every key, revoked and expired ones included, oldest first. */
  listApiKeys(): Promise<StoredApiKey[]>;
  /**
   * Marks the key revoked at `at` unless it already is (the first revocation time stays).
   * Returns false when no key has that id.
   */
  revokeApiKey(keyId: string, at: number): Promise<boolean>;

  putPushConfig(config: StoredPushConfig): Promise<void>;
  getPushConfig(taskId: string, configId: string): Promise<StoredPushConfig | undefined>;
  listPushConfigs(taskId: string): Promise<StoredPushConfig[]>;
  /** Idempotent: deleting a missing config is not an error. */
  deletePushConfig(taskId: string, configId: string): Promise<void>;

  /**
   * Claims up to `limit` due outbox entries for `leaseMs`; an entry whose lease expires is claimable
   * again (a delivery attempt that died mid-way is retried). Only the oldest pending entry of each
   * task is claimable, which keeps per-task delivery order.
   */
  claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  markDelivered(id: number): Promise<void>;
  /**
   * Makes every leased entry claimable again. Only for a store with a single writer process (the
   * embedded SQLite store at start-up): a lease held by a process that was killed would otherwise
   * hold back that task's deliveries until it expires.
   */
  releaseOutboxLeases(): Promise<void>;
  /** Reschedules, or gives up (deleting the entry) when `nextAttemptAt` is null. */
  markFailed(id: number, attempts: number, nextAttemptAt: number | null, error: string): Promise<void>;
  /** Recently-attempted deliveries given up on, for inspection. */
  countOutbox(): Promise<number>;
  /** A task's deliveries still owed, oldest first (a delivered or given-up one leaves the outbox). */
  listPendingDeliveries(taskId: string): Promise<PendingDelivery[]>;
  /** Pending deliveries (all attempts not given up) and when the oldest was queued: /readyz and metrics. */
  outboxBacklog(): Promise<OutboxBacklog>;

  close(): Promise<void>;
}
