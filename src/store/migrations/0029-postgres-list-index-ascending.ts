/**
 * The list index ascending, and a message-id index the list index cannot stand in for (issue 26,
 * PostgreSQL one replica; ADR 0083). SQLite: nothing.
 *
 * 1. `tasks_list_idx` becomes (agent_id, owner, status_time, id), ascending. 0001 made it
 *    (agent_id, owner, status_time desc, id desc), ListTasks' order; a new task has the latest
 *    status time and the largest time-ordered id, so in that order every insert went to the front
 *    of its agent and owner's range: never the rightmost leaf (each one descended from the root),
 *    and the page there split 50/50 with the next entries landing on the half-empty left page
 *    again (the index grew to ~2.6× the primary key). Ascending, a new entry is the last of its
 *    range: the rightmost-leaf fast path and full left pages. ListTasks reads the same index
 *    backward (the keyset's row comparison as its index condition, no Sort). Counted with callgrind
 *    on a PostgreSQL 15 backend (single-user, the echo's new-task commit of 12 rows a statement into
 *    a 96,000-row `tasks`): the list index cost 28.8 k instructions a new task descending,
 *    13.0 k ascending.
 *
 * 2. Why the first attempt (pg21) was reverted: on a table never analyzed, the message-id lookup's
 *    three equalities cost the planner the same through either index (each "1 row"), and the packed
 *    ascending list index won: a probe that read every task of the owner until the first ANALYZE.
 *    So `tasks_origin_message_idx` is built again as (origin_message_id, agent_id COLLATE "C",
 *    owner COLLATE "C"), and the lookup compares agent and owner under "C" (message-id-lookups.ts):
 *    an index compares a column only under its own collation, so those two conditions fit this
 *    index and not the list index, which is left no condition of the lookup's to use at all, whatever
 *    the statistics. Equality is byte equality under any deterministic collation, so the index
 *    enforces the same uniqueness (what makes a retried SendMessage find its task on every replica).
 *    origin_message_id keeps the column's collation: the lost-commit check (`whoLost`,
 *    `origin_message_id = any(…)`) and a lookup of an earlier build (a rolling upgrade) still probe
 *    it by its first column.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`drop index tasks_list_idx`.execute(db);
  await sql`create index tasks_list_idx on tasks (agent_id, owner, status_time, id)`.execute(db);
  await sql`create unique index tasks_origin_message_c_idx on tasks (origin_message_id, agent_id collate "C", owner collate "C")`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_c_idx rename to tasks_origin_message_idx`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create unique index tasks_origin_message_default_idx on tasks (origin_message_id, agent_id, owner)`.execute(db);
  await sql`drop index tasks_origin_message_idx`.execute(db);
  await sql`alter index tasks_origin_message_default_idx rename to tasks_origin_message_idx`.execute(db);
  await sql`drop index tasks_list_idx`.execute(db);
  await sql`create index tasks_list_idx on tasks (agent_id, owner, status_time desc, id desc)`.execute(db);
}
