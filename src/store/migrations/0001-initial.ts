/**
 * The first schema: task projections, their append-only event log, push configs and the push
 * outbox. Ids are `text` (clients choose contextIds of any length); epoch ms are `bigint`.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_time', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('task', 'text', (c) => c.notNull())
    .execute();
  // ListTasks: always agent + owner, newest status first, id as the tie-breaker of the keyset.
  await db.schema.createIndex('tasks_list_idx').on('tasks').columns(['agent_id', 'owner', 'status_time desc', 'id desc']).execute();
  // ListTasks by contextId: a context holds few tasks, so the matches are sorted after the lookup.
  // A status filter scans the list index above: every index on tasks is paid for on each commit
  // (measured: the two wider indexes cost ~15% of the commit path).
  await db.schema.createIndex('tasks_context_idx').on('tasks').column('context_id').execute();

  await db.schema
    .createTable('task_events')
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('first_seq', 'integer', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_events_pk', ['task_id', 'seq'])
    // SQLite: the rows live in the primary-key B-tree itself; a rowid table would maintain a
    // second tree on every append.
    .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
    .execute();

  await db.schema
    .createTable('push_configs')
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('push_configs_pk', ['task_id', 'id'])
    .execute();

  await db.schema
    .createTable('push_outbox')
    // Ids are never reused (SQLite AUTOINCREMENT, PG identity): a worker whose lease expired may
    // still call markDelivered(id) late, and must not hit a newer row that took the same id.
    .addColumn('id', dialect === 'postgres' ? 'bigint' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('config_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The per-task head (lowest id) check of claimOutbox (per config since 0021, with its own index).
  await db.schema.createIndex('push_outbox_task_idx').on('push_outbox').columns(['task_id', 'id']).execute();
  await db.schema.createIndex('push_outbox_due_idx').on('push_outbox').column('next_attempt_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['push_outbox', 'push_configs', 'task_events', 'tasks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
