/**
 * Start-up recovery on a large embedded store (issue 18): the embedded server looks for tasks a
 * crash left SUBMITTED or WORKING (findTasksInStates) before it is ready, and without an index that
 * read every task row: about 1 s of a 1.7–1.9 s start at a million tasks, growing with the table
 * (bench/large-store.js). A partial index holds only the tasks in those two states, so a task is in
 * it only while it runs, and one created and finished in the same commit never touches it; the
 * full-width index the other live-state queries would want costs every state change (migration
 * 0002). PostgreSQL answers the same query from tasks_orphan_idx (state, lease_expires_at).
 * SQLite uses a partial index only when the query spells its condition with the same literals:
 * the store writes that query with these two states inlined (sql-store.ts findTasksInStates).
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export const LIVE_INDEX_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  await db.schema
    .createIndex('tasks_live_idx')
    .on('tasks')
    .column('created_at')
    .where(sql.raw<boolean>(`state in (${LIVE_INDEX_STATES.map((s) => `'${s}'`).join(', ')})`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_live_idx').ifExists().execute();
}
