/**
 * The Store over Kysely, shared by both dialects. Everything here is one SQL statement per call
 * (or two independent reads), so it is safe on SQLite next to the synchronous hot path; each
 * dialect subclass supplies `commit`, the one multi-statement transaction, and may replace any
 * read with a faster dialect-specific version.
 */
import { sql, type Kysely } from 'kysely';
import { migrateToLatest, type SqlDialectName } from './migrations/index.js';
import {
  toEventRecords,
  toOutboxEntry,
  toStoredPushConfig,
  toStoredTask,
} from './rows.js';
import type { TaskState } from '../protocol/a2a/types.js';
import type { Database } from './schema.js';
import type {
  ListTasksPage,
  ListTasksQuery,
  OutboxEntry,
  Store,
  StoredPushConfig,
  StoredTask,
  TaskCommit,
  TaskEventRecord,
} from './store.js';

/** A delivery error longer than this is cut: it is for an operator's eyes, not a full log. */
const MAX_ERROR_LENGTH = 2000;

export abstract class SqlStore implements Store {
  abstract readonly dialect: SqlDialectName;

  protected constructor(
    protected readonly db: Kysely<Database>,
    /** where Kysely keeps its migration bookkeeping (PG schema); undefined for SQLite */
    private readonly migrationSchema?: string,
  ) {}

  async migrate(): Promise<void> {
    await migrateToLatest(this.db as unknown as Kysely<unknown>, this.dialect, this.migrationSchema);
  }

  abstract commit(commits: TaskCommit[]): Promise<void>;

  async getTask(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const row = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', taskId)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return row ? toStoredTask(row) : undefined;
  }

  async findTasksInStates(states: readonly TaskState[], limit: number): Promise<StoredTask[]> {
    if (states.length === 0) return [];
    const rows = await this.db.selectFrom('tasks').selectAll().where('state', 'in', [...states]).orderBy('created_at').limit(limit).execute();
    return rows.map(toStoredTask);
  }

  async listTasks(q: ListTasksQuery): Promise<ListTasksPage> {
    let filtered = this.db.selectFrom('tasks').where('agent_id', '=', q.agentId).where('owner', '=', q.owner);
    if (q.contextId !== undefined) filtered = filtered.where('context_id', '=', q.contextId);
    if (q.status !== undefined) filtered = filtered.where('state', '=', q.status);
    if (q.statusTimeAfter !== undefined) filtered = filtered.where('status_time', '>=', q.statusTimeAfter);

    let page = filtered.selectAll();
    const after = q.after;
    if (after) {
      // Row-value comparison: the keyset (status_time, id) in one predicate both dialects index.
      page = page.where((eb) =>
        eb(eb.refTuple('status_time', 'id'), '<', eb.tuple(after.statusTime, after.taskId)),
      );
    }
    const pageSize = Math.max(0, Math.floor(q.pageSize));
    const [rows, count] = await Promise.all([
      page.orderBy('status_time', 'desc').orderBy('id', 'desc').limit(pageSize + 1).execute(),
      filtered.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const tasks = rows.slice(0, pageSize).map(toStoredTask);
    const last = tasks[tasks.length - 1];
    return {
      tasks,
      totalSize: Number(count.n),
      ...(rows.length > pageSize && last ? { next: { statusTime: last.statusTime, taskId: last.task.id } } : {}),
    };
  }

  async readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEventRecord[]> {
    let q = this.db
      .selectFrom('task_events')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('seq', '>', afterSeq)
      .orderBy('seq');
    // Every row holds at least one event, so `limit` rows are enough for `limit` events.
    if (limit !== undefined) q = q.limit(limit);
    const events = (await q.execute()).flatMap(toEventRecords).filter((e) => e.seq > afterSeq);
    return limit !== undefined && events.length > limit ? events.slice(0, limit) : events;
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
    const row = await this.db
      .selectFrom('push_configs')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('id', '=', configId)
      .executeTakeFirst();
    return row ? toStoredPushConfig(row) : undefined;
  }

  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    const rows = await this.db
      .selectFrom('push_configs')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toStoredPushConfig);
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    await this.db.deleteFrom('push_configs').where('task_id', '=', taskId).where('id', '=', configId).execute();
  }

  async claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    const due = this.db
      .selectFrom('push_outbox as o')
      .select('o.id')
      .where('o.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('o.lease_until', 'is', null), eb('o.lease_until', '<', now)]))
      // Only a task's head entry may go out: a later event never overtakes an earlier one, even
      // while the earlier one is leased or waiting for its retry.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('push_outbox as h')
              .select(sql.lit(1).as('one'))
              .whereRef('h.task_id', '=', 'o.task_id')
              .whereRef('h.id', '<', 'o.id'),
          ),
        ),
      )
      .orderBy('o.id')
      .limit(limit)
      // PG: concurrent claimers skip each other's rows instead of waiting on them.
      .$if(this.dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
    // One UPDATE … RETURNING: selecting and leasing cannot be separated by another claimer.
    const rows = await this.db
      .updateTable('push_outbox')
      .set({ lease_until: now + leaseMs })
      .where('id', 'in', due)
      .returning(['id', 'task_id', 'config_id', 'seq', 'payload', 'attempts', 'next_attempt_at'])
      .execute();
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

  async countOutbox(): Promise<number> {
    const row = await this.db
      .selectFrom('push_outbox')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
