/**
 * Task leases for distributed mode: which replica runs a task's executor, until when. Both columns
 * are null together (no replica holds the task) or set together.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('tasks').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('lease_expires_at', 'bigint').execute();
  // The orphan sweep: tasks in a few live states whose lease is absent or expired. Like every
  // index on tasks it is paid on each commit that changes a state, so it is the only one added.
  await db.schema.createIndex('tasks_orphan_idx').on('tasks').columns(['state', 'lease_expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_orphan_idx').ifExists().execute();
  await db.schema.alterTable('tasks').dropColumn('lease_expires_at').execute();
  await db.schema.alterTable('tasks').dropColumn('lease_owner').execute();
}
