/**
 * The orphan sweep's index holds only the tasks it can claim (issue 26, PostgreSQL one replica).
 * tasks_orphan_idx (migration 0002) indexed every task by (state, lease_expires_at), so every task
 * ever created was one more index entry to write, in the same commit as its row, and a finished
 * task stayed in it for good, although the sweep and start-up recovery only ask for the running
 * states. This partial index holds a task only while it is in one of them: a task created and
 * finished in one commit (a blocking call) never touches it, and it stays as small as the work in
 * flight. Same columns, so the queries that used the old index use this one.
 *
 * PostgreSQL uses a partial index only when it can prove the query's condition implies the index's:
 * the store spells `state in (...)` with these literals whenever the states asked for are among
 * them (sql-store.ts), so the proof never depends on how parameters are planned. SQLite has no such
 * index (0002 and 0013): nothing changes there.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

/** The states the index holds: the orphan sweep's running states, which include start-up recovery's. */
export const RUNNING_INDEX_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED'] as const;

/** The index's condition, as the store also spells it in its queries. */
export const RUNNING_INDEX_CONDITION = `state in (${RUNNING_INDEX_STATES.map((s) => `'${s}'`).join(', ')})`;

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema.createIndex('tasks_running_idx').on('tasks').columns(['state', 'lease_expires_at']).where(sql.raw<boolean>(RUNNING_INDEX_CONDITION)).execute();
  await db.schema.dropIndex('tasks_orphan_idx').ifExists().execute();
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema.createIndex('tasks_orphan_idx').ifNotExists().on('tasks').columns(['state', 'lease_expires_at']).execute();
  await db.schema.dropIndex('tasks_running_idx').ifExists().execute();
}
