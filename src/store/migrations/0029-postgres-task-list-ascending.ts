/**
 * The list index of `tasks` in ascending order on PostgreSQL (issue 26, pg21). SQLite: nothing.
 *
 * 0001's `tasks_list_idx` is (agent_id, owner, status_time desc, id desc), the order ListTasks
 * reads a page in. A new task has the latest status time and, with time-ordered ids, the largest
 * id, so in that order each new entry went to the front of its agent and owner's range. There a
 * B-tree fills badly and works more: a full page split in two halves and the new entries kept
 * landing on the half-empty left one, and an insert at the front of the range is never the
 * rightmost leaf, so each one descended from the root. In ascending order on the same columns a
 * new entry is the last of its range: PostgreSQL splits such a page where the ascending run ends
 * and leaves the left page full, and an insert at the end of the index (one agent and owner, as
 * the echo has) reuses the rightmost leaf without a descent. Measured on PostgreSQL 15 with the
 * blocking echo (docs/benchmarks.md, "Issue 26 — pg21"): the index half the size (438 against
 * 875 pages at ~45,000 tasks), the new-tasks commit's WAL 1,715 against 1,780–1,783 bytes a
 * request, ~10 k fewer backend instructions a task (callgrind).
 *
 * ListTasks still reads (agent_id, owner, status_time desc, id desc): PostgreSQL scans the same
 * index backward, with the keyset's `(status_time, id) < (…)` as the index's condition
 * (test/store/task-list-ascending-migration.test.ts reads the plans). Same name, same columns.
 *
 * The message-id index is then built again, unchanged, so that it stays the newest index of
 * `tasks`: on a table never analyzed (a fresh deployment, before the store's first ANALYZE, ADR
 * 0061) PostgreSQL costs the lookup through it and through the list index (agent and owner, the
 * message id as a filter) the same, and takes the index created last; the lookup's generic plan,
 * made then, must probe the message-id index (test/store/postgres-planner-statistics.test.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index tasks_list_ascending_idx on tasks (agent_id, owner, status_time, id)`.execute(db);
  await sql`drop index tasks_list_idx`.execute(db);
  await sql`alter index tasks_list_ascending_idx rename to tasks_list_idx`.execute(db);
  await newestMessageIdIndex(db);
}

/** 0028's message-id index built again, under its name, after the list index (see the file comment). */
async function newestMessageIdIndex(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index tasks_origin_message_again_idx on tasks (origin_message_id, agent_id, owner)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_again_idx rename to tasks_origin_message_idx`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index tasks_list_descending_idx on tasks (agent_id, owner, status_time desc, id desc)`.execute(db);
  await sql`drop index tasks_list_idx`.execute(db);
  await sql`alter index tasks_list_descending_idx rename to tasks_list_idx`.execute(db);
  await newestMessageIdIndex(db);
}
