/**
 * Task leases for distributed mode: which replica runs a task's executor, until when. Both columns
 * are null together (no replica holds the task) or set together.
 */
import type { Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('tasks').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('lease_expires_at', 'bigint').execute();
  // The orphan sweep: tasks in a few live states whose lease is absent or expired. Like every
  // index on tasks it is paid on each commit that changes a state (measured on SQLite: 7-15% of
  // the commit path), and only distributed mode, which is PostgreSQL-only, sweeps; the embedded
  // SQLite store (one process) answers claimOrphanedTasks with a scan instead.
  if (dialect === 'postgres') {
    await db.schema.createIndex('tasks_orphan_idx').on('tasks').columns(['state', 'lease_expires_at']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_orphan_idx').ifExists().execute();
  await db.schema.alterTable('tasks').dropColumn('lease_expires_at').execute();
  await db.schema.alterTable('tasks').dropColumn('lease_owner').execute();
}
