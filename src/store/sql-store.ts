/**
 * The Store over Kysely, shared by both dialects. Everything here is one SQL statement per call
 * (or two independent reads), so it is safe on SQLite next to the synchronous hot path; each
 * dialect subclass supplies `commit`, the one multi-statement transaction, and may replace any
 * read with a faster dialect-specific version.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { migrateToLatest, migrationStatus, type SqlDialectName } from './migrations/index.js';
import { LIVE_INDEX_STATES } from './migrations/0013-task-live-index.js';
import { RUNNING_INDEX_CONDITION, RUNNING_INDEX_STATES } from './migrations/0024-task-running-index.js';
import type { AuditStore } from './audit-store.js';
import { SqlOAuthStore, type OAuthStore } from './oauth-store.js';
import { SqlQuotaStore, type QuotaStore } from './quota-store.js';
import { SqlAuditStore, type AuditAppender } from './sql-audit-store.js';
import { outboxClaimQuery } from './outbox-claim.js';
import { eventLog, logNeedsTaskRow, TASK_ROW_COLUMNS, toOutboxEntry, toStoredPushConfig, toStoredSigningKey, toStoredTask } from './rows.js';
import type { TaskState } from '../protocol/a2a/types.js';
import type { Database } from './schema.js';
import { apiKeyRows, toStoredApiKey, type ApiKeysTable } from './api-key-rows.js';
import type { SqlUsageStore } from './usage/sql-usage-store.js';
import {
  StoreUnavailableError,
  type ListTasksPage,
  type ListTasksQuery,
  type TaskSearchQuery,
  type MigrationStatus,
  type OutboxEntry,
  type PendingDelivery,
  type OutboxBacklog,
  type Store,
  type StoredApiKey,
  type StoredPushConfig,
  type StoredSigningKey,
  type TaskPosition,
  type ClaimedTask,
  type StoredTask,
  type TaskCommit,
  type TaskEventRecord,
} from './store.js';

/** A delivery error longer than this is cut: it is for an operator's eyes, not a full log. */
const MAX_ERROR_LENGTH = 2000;

/** Ids per `IN (…)` list on SQLite, well under its bound-parameter limit. */
const IDS_PER_STATEMENT = 500;

export abstract class SqlStore implements Store {
  abstract readonly dialect: SqlDialectName;
  /** the database as an operator would name it in a message (never with a password) */
  abstract readonly location: string;

  protected constructor(
    protected readonly db: Kysely<Database>,
    /** where Kysely keeps its migration bookkeeping (PG schema); undefined for SQLite */
    private readonly migrationSchema?: string,
  ) {}

  async migrate(): Promise<void> {
    await this.applyMigrations();
  }

  private oauthStore: OAuthStore | undefined;

  /** Usage records (src/store/usage/); each dialect runs its transactions its own way. */
  abstract readonly usage: SqlUsageStore;

  /** The OAuth authorization server's tables (src/store/oauth-store.ts). */
  get oauth(): OAuthStore {
    this.oauthStore ??= new SqlOAuthStore(this.db);
    return this.oauthStore;
  }

  private quotaStore: QuotaStore | undefined;

  /** Quotas of the management API (src/store/quota-store.ts). */
  get quotas(): QuotaStore {
    this.quotaStore ??= new SqlQuotaStore(this.db as Kysely<unknown>);
    return this.quotaStore;
  }

  private auditStore: AuditStore | undefined;

  /** The audit log (src/store/audit-store.ts); each dialect serializes appends its own way. */
  get audit(): AuditStore {
    this.auditStore ??= new SqlAuditStore(this.db, this.auditAppender());
    return this.auditStore;
  }

  protected abstract auditAppender(): AuditAppender;

  /** migrate(), returning the names of the migrations it applied, in order (`agentport db migrate`). */
  async applyMigrations(): Promise<string[]> {
    return migrateToLatest(this.db, this.dialect, this.migrationSchema);
  }

  async migrationStatus(): Promise<MigrationStatus> {
    return migrationStatus(this.db, this.dialect, this.migrationSchema);
  }

  async ping(): Promise<void> {
    try {
      await sql`select 1`.execute(this.db);
    } catch (err) {
      throw new StoreUnavailableError(`${this.location} is unreachable: ${describeCause(err)}`, { cause: err });
    }
  }

  abstract commit(commits: TaskCommit[]): Promise<void>;

  async getTask(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const row = await this.db.selectFrom('tasks').select(TASK_ROW_COLUMNS).where('id', '=', taskId).where('agent_id', '=', agentId).executeTakeFirst();
    return row ? toStoredTask(row) : undefined;
  }

  async findTaskByMessageId(agentId: string, owner: string, messageId: string): Promise<StoredTask | undefined> {
    const row = await this.db.selectFrom('tasks').select(TASK_ROW_COLUMNS).where('agent_id', '=', agentId).where('owner', '=', owner).where('origin_message_id', '=', messageId).executeTakeFirst();
    return row ? toStoredTask(row) : undefined;
  }

  async findTasksInStates(states: readonly TaskState[], limit: number, after?: TaskPosition): Promise<StoredTask[]> {
    if (states.length === 0) return [];
    let query = this.db
      .selectFrom('tasks')
      .select(TASK_ROW_COLUMNS)
      .where((eb) => this.inStates(states) ?? eb('state', 'in', [...states]));
    if (after) query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
    const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
    return rows.map(toStoredTask);
  }

  async listTasks(q: ListTasksQuery): Promise<ListTasksPage> {
    const unfiltered = q.contextId === undefined && q.status === undefined && q.statusTimeAfter === undefined;
    return this.searchTasks(q, q.knownTotal ?? (unfiltered ? this.knownTaskCount(q.agentId, q.owner) : undefined));
  }

  /**
   * The number of an owner's tasks of an agent when the store knows it without counting (in memory,
   * or as a figure kept in the database); undefined makes ListTasks count. Counting walks every
   * matching index entry (tens of ms at a million tasks, bench/large-store.js), so a store that can
   * keep the figure exact keeps it.
   */
  protected knownTaskCount(_agentId: string, _owner: string): number | Promise<number> | undefined {
    return undefined;
  }

  async searchTasks(q: TaskSearchQuery & { contextId?: string }, knownTotal?: number | Promise<number>): Promise<ListTasksPage> {
    let filtered = this.db.selectFrom('tasks');
    if (q.agentId !== undefined) filtered = filtered.where('agent_id', '=', q.agentId);
    if (q.owner !== undefined) filtered = filtered.where('owner', '=', q.owner);
    if (q.contextId !== undefined) filtered = filtered.where('context_id', '=', q.contextId);
    if (q.status !== undefined) filtered = filtered.where('state', '=', q.status);
    if (q.statusTimeAfter !== undefined) filtered = filtered.where('status_time', '>=', q.statusTimeAfter);
    if (q.statusTimeBefore !== undefined) filtered = filtered.where('status_time', '<', q.statusTimeBefore);
    let page = filtered.select(TASK_ROW_COLUMNS);
    const after = q.after;
    if (after) {
      // Row-value comparison: the keyset (status_time, id) in one predicate both dialects index.
      page = page.where((eb) => eb(eb.refTuple('status_time', 'id'), '<', eb.tuple(after.statusTime, after.taskId)));
    }
    const pageSize = Math.max(0, Math.floor(q.pageSize));
    const [rows, count] = await Promise.all([
      page
        .orderBy('status_time', 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize + 1)
        .execute(),
      knownTotal ??
        filtered
          .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
          .executeTakeFirstOrThrow()
          .then((r) => r.n),
    ]);
    const tasks = rows.slice(0, pageSize).map(toStoredTask);
    const last = tasks[tasks.length - 1];
    return {
      tasks,
      totalSize: Number(count),
      ...(rows.length > pageSize && last ? { next: { statusTime: last.statusTime, taskId: last.task.id } } : {}),
    };
  }

  async claimTask(agentId: string, taskId: string, owner: string, now: number, expiresAt: number, force = false): Promise<StoredTask | undefined> {
    // One conditional UPDATE: on PG a concurrent claimer waits on the row lock, then re-checks
    // the condition against the winner's lease and matches nothing.
    const row = await this.db
      .updateTable('tasks')
      .set((eb) => ({ lease_owner: owner, lease_expires_at: expiresAt, version: eb('version', '+', 1) }))
      .where('id', '=', taskId)
      .where('agent_id', '=', agentId)
      .$if(!force, (qb) => qb.where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<', now), eb('lease_owner', '=', owner)])))
      .returningAll()
      .executeTakeFirst();
    return row ? toStoredTask(row) : undefined;
  }

  async renewLeases(owner: string, taskIds: readonly string[], expiresAt: number): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const renew = (ids: readonly string[]) =>
      this.db
        .updateTable('tasks')
        .set({ lease_expires_at: expiresAt })
        .where('lease_owner', '=', owner)
        // PG: one array parameter however many ids; SQLite: a bounded IN list.
        .where((eb) => (this.dialect === 'postgres' ? sql<boolean>`${eb.ref('id')} = any(${[...ids]}::text[])` : eb('id', 'in', [...ids])))
        .returning('id')
        .execute();
    if (this.dialect === 'postgres') return (await renew(taskIds)).map((r) => r.id);
    const held: string[] = [];
    for (let i = 0; i < taskIds.length; i += IDS_PER_STATEMENT) {
      for (const r of await renew(taskIds.slice(i, i + IDS_PER_STATEMENT))) held.push(r.id);
    }
    return held;
  }

  async releaseLease(taskId: string, owner: string): Promise<void> {
    await this.db.updateTable('tasks').set({ lease_owner: null, lease_expires_at: null }).where('id', '=', taskId).where('lease_owner', '=', owner).execute();
  }

  async claimOrphanedTasks(states: readonly TaskState[], owner: string, now: number, expiresAt: number, limit: number): Promise<ClaimedTask[]> {
    if (states.length === 0 || limit <= 0) return [];
    const orphans = this.db
      .selectFrom('tasks')
      .select(['id', 'lease_owner as previous_owner', 'lease_expires_at as previous_expires_at'])
      .where((eb) => this.inStates(states) ?? eb('state', 'in', [...states]))
      // lease_expires_at is null exactly when no replica holds the task; testing it alone keeps
      // the predicate on the columns of tasks_running_idx (PostgreSQL, migration 0024).
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(Math.floor(limit));
    // The claim reports whose lease it took (the recovery log names the replica that stopped):
    // RETURNING shows the row after the update, so the previous lease is read in the same pass.
    let claimed: ClaimedTask[];
    if (this.dialect === 'postgres') {
      // One statement: sweeping replicas skip each other's rows (FOR UPDATE SKIP LOCKED); a row
      // another sweeper claimed and committed meanwhile is re-checked under its lock and no longer
      // matches. PostgreSQL's RETURNING may name the CTE's columns.
      const rows = await this.db
        .with('o', () => orphans.forUpdate().skipLocked())
        .updateTable('tasks')
        .from('o')
        .set((eb) => ({ lease_owner: owner, lease_expires_at: expiresAt, version: eb('version', '+', 1) }))
        .whereRef('tasks.id', '=', 'o.id')
        .returningAll('tasks')
        .returning(['o.previous_owner', 'o.previous_expires_at'])
        .execute();
      claimed = rows.map((r) => withPreviousLease(toStoredTask(r), r.previous_owner, r.previous_expires_at));
    } else {
      // SQLite's RETURNING cannot name another table; one process writes the embedded store, so
      // reading the candidates first and re-checking the condition in the update is exact.
      const candidates = await orphans.execute();
      if (candidates.length === 0) return [];
      const rows = await this.db
        .updateTable('tasks')
        .set((eb) => ({ lease_owner: owner, lease_expires_at: expiresAt, version: eb('version', '+', 1) }))
        .where(
          'id',
          'in',
          candidates.map((c) => c.id),
        )
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
        .returningAll()
        .execute();
      const before = new Map(candidates.map((c) => [c.id, c]));
      claimed = rows.map((r) => withPreviousLease(toStoredTask(r), before.get(r.id)?.previous_owner ?? null, before.get(r.id)?.previous_expires_at ?? null));
    }
    return claimed.sort((a, b) => a.createdAt - b.createdAt || (a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0));
  }

  async readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEventRecord[]> {
    let q = this.db.selectFrom('task_events').selectAll().where('task_id', '=', taskId).where('seq', '>', afterSeq).orderBy('seq');
    // Every row holds at least one event, so `limit` rows are enough for `limit` events.
    if (limit !== undefined) q = q.limit(limit);
    const rows = await q.execute();
    // the task row: it may hold the terminal commit's events (final_events, ADR 0057), or an events
    // row refers to it (ADR 0050); a terminal task's row never changes after that commit, so
    // reading it after the events is as good as with them
    const taskRow = logNeedsTaskRow(rows, limit) ? await this.db.selectFrom('tasks').select(['seq', 'task', 'final_events']).where('id', '=', taskId).executeTakeFirst() : undefined;
    return eventLog(taskId, rows, taskRow, afterSeq, limit);
  }

  async listSigningKeys(): Promise<StoredSigningKey[]> {
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('generation').execute();
    return rows.map(toStoredSigningKey);
  }

  async addSigningKey(key: StoredSigningKey): Promise<boolean> {
    const inserted = await this.db
      .insertInto('signing_keys')
      .values({ kid: key.kid, generation: key.generation, private_jwk: key.privateJwk, created_at: key.createdAt })
      // Any conflict (generation or kid): another replica's key won; a unique violation would
      // only make the caller parse driver errors.
      .onConflict((oc) => oc.doNothing())
      .returning('kid')
      .execute();
    return inserted.length > 0;
  }

  async deleteSigningKeys(kids: readonly string[]): Promise<void> {
    if (kids.length === 0) return;
    await this.db
      .deleteFrom('signing_keys')
      .where('kid', 'in', [...kids])
      .execute();
  }

  /** api_keys is typed here rather than in Database, so only these methods can reach it. */
  private get apiKeys() {
    return this.db.withTables<{ api_keys: ApiKeysTable }>();
  }

  async putApiKey(k: StoredApiKey): Promise<void> {
    await this.apiKeys
      .insertInto('api_keys')
      .values({
        key_id: k.keyId,
        secret_hash: k.secretHash,
        subject: k.subject,
        scopes: JSON.stringify(k.scopes),
        usecase: k.usecase ?? null,
        created_at: k.createdAt,
        expires_at: k.expiresAt ?? null,
        revoked_at: k.revokedAt ?? null,
        owner: k.owner ?? null,
        grant_id: k.grantId ?? null,
      })
      .execute();
  }

  async getApiKey(keyId: string): Promise<StoredApiKey | undefined> {
    const row = await apiKeyRows(this.db).where('k.key_id', '=', keyId).executeTakeFirst();
    return row ? toStoredApiKey(row) : undefined;
  }

  async listApiKeys(): Promise<StoredApiKey[]> {
    const rows = await apiKeyRows(this.db).orderBy('k.created_at').orderBy('k.key_id').execute();
    return rows.map(toStoredApiKey);
  }

  async revokeApiKey(keyId: string, at: number): Promise<boolean> {
    await this.apiKeys.updateTable('api_keys').set({ revoked_at: at }).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
    const row = await this.apiKeys.selectFrom('api_keys').select('key_id').where('key_id', '=', keyId).executeTakeFirst();
    return row !== undefined;
  }

  async putPushConfig(c: StoredPushConfig): Promise<void> {
    await this.db
      .insertInto('push_configs')
      .values({
        task_id: c.taskId,
        id: c.config.id,
        agent_id: c.agentId,
        owner: c.owner,
        config: JSON.stringify(c.config),
        created_at: c.createdAt,
      })
      // Creating a config with an id that exists replaces it (A2A SetTaskPushNotificationConfig).
      .onConflict((oc) => oc.columns(['task_id', 'id']).doUpdateSet((eb) => ({ config: eb.ref('excluded.config') })))
      .execute();
  }

  async getPushConfig(taskId: string, configId: string): Promise<StoredPushConfig | undefined> {
    const row = await this.db.selectFrom('push_configs').selectAll().where('task_id', '=', taskId).where('id', '=', configId).executeTakeFirst();
    return row ? toStoredPushConfig(row) : undefined;
  }

  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    const rows = await this.db.selectFrom('push_configs').selectAll().where('task_id', '=', taskId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toStoredPushConfig);
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    await this.db.deleteFrom('push_configs').where('task_id', '=', taskId).where('id', '=', configId).execute();
  }

  async claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    const rows = await outboxClaimQuery(this.db, this.dialect, { leaseUntil: now + leaseMs, now, limit }).execute();
    return rows.map(toOutboxEntry).sort((a, b) => a.id - b.id);
  }

  async releaseOutboxLeases(): Promise<void> {
    await this.db.updateTable('push_outbox').set({ lease_until: null }).where('lease_until', 'is not', null).execute();
  }

  async markDelivered(id: number): Promise<void> {
    await this.db.deleteFrom('push_outbox').where('id', '=', id).execute();
  }

  async markFailed(id: number, attempts: number, nextAttemptAt: number | null, error: string): Promise<void> {
    if (nextAttemptAt === null) {
      await this.db.deleteFrom('push_outbox').where('id', '=', id).execute();
      return;
    }
    await this.db
      .updateTable('push_outbox')
      .set({
        attempts,
        next_attempt_at: nextAttemptAt,
        lease_until: null,
        last_error: error.length > MAX_ERROR_LENGTH ? error.slice(0, MAX_ERROR_LENGTH) : error,
      })
      .where('id', '=', id)
      .execute();
  }

  async listPendingDeliveries(taskId: string): Promise<PendingDelivery[]> {
    const rows = await this.db.selectFrom('push_outbox').select(['config_id', 'seq', 'attempts', 'next_attempt_at', 'last_error', 'created_at']).where('task_id', '=', taskId).orderBy('id').execute();
    return rows.map((r) => ({
      configId: r.config_id,
      seq: Number(r.seq),
      attempts: Number(r.attempts),
      nextAttemptAt: Number(r.next_attempt_at),
      ...(r.last_error ? { lastError: r.last_error } : {}),
      queuedAt: Number(r.created_at),
    }));
  }

  async countOutbox(): Promise<number> {
    const row = await this.db
      .selectFrom('push_outbox')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async outboxBacklog(): Promise<OutboxBacklog> {
    const row = await this.db
      .selectFrom('push_outbox')
      .select((eb) => [eb.fn.countAll<number | string | bigint>().as('n'), eb.fn.min('created_at').as('oldest')])
      .executeTakeFirstOrThrow();
    const pending = Number(row.n);
    return pending === 0 || row.oldest === null ? { pending } : { pending, oldestCreatedAt: Number(row.oldest) };
  }

  /**
   * `state in (...)` spelled so the planner can use the partial index on tasks' live states
   * (SQLite: tasks_live_idx, migration 0013; PostgreSQL: tasks_running_idx, migration 0024): with
   * the index's own condition in literals, since a database proves a partial index usable only from
   * what it reads in the query. Undefined when the states are not all in the index.
   */
  private inStates(states: readonly TaskState[]): RawBuilder<boolean> | undefined {
    if (this.dialect === 'sqlite') return isLiveIndexStates(states) ? sql<boolean>`state in (${sql.raw(LIVE_INDEX_STATES.map((s) => `'${s}'`).join(', '))})` : undefined;
    const indexed = states.map((s) => RUNNING_INDEX_STATES.find((r) => r === s));
    if (indexed.some((s) => s === undefined)) return undefined;
    return sql<boolean>`state in (${sql.raw(indexed.map((s) => `'${s}'`).join(', '))}) and ${sql.raw(RUNNING_INDEX_CONDITION)}`;
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/** The driver's reason in words; Node reports a refused dual-stack connect as an AggregateError without a message. */
export function describeCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  let text = err.message;
  if (!text && err instanceof AggregateError) {
    text = [...new Set(err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))].join('; ');
  }
  if (!text) text = err.name;
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/**
 * The states of the SQLite partial index tasks_live_idx (migration 0013), in any order: SQLite uses
 * that index only for a query that spells its condition with the same literals, not parameters.
 */
function isLiveIndexStates(states: readonly TaskState[]): boolean {
  return states.length === LIVE_INDEX_STATES.length && LIVE_INDEX_STATES.every((s) => states.includes(s));
}

function withPreviousLease(t: StoredTask, owner: string | null, expiresAt: number | string | null): ClaimedTask {
  return owner === null || expiresAt === null ? t : { ...t, previousLease: { owner, expiresAt: Number(expiresAt) } };
}
