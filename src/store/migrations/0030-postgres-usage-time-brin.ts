/**
 * The usage-time index of `tasks` as a block-range (BRIN) index on PostgreSQL (issue 26, PostgreSQL
 * one replica; ADR 0094). SQLite: nothing.
 *
 * 0023 made `tasks_usage_time_idx` a B-tree over usage_time where it is not null: every task that
 * ends (a blocking echo's only commit) inserts an entry into it, a descent to the rightmost leaf and
 * a WAL record, for statements that read it only by time range (usage queries over
 * `usage_records_all`, the rollups' first source time, the retention of task records). A task's
 * usage time is when it ended, and a row written at that moment (a new task, or an update's new
 * row version) lands at the end of the heap, so the column follows the heap's order: a BRIN index
 * keeps the least and greatest usage time of each range of 128 pages, and a range read is the
 * heap ranges whose bounds meet it. A new row only widens its range's summary when it falls
 * outside it, and a range not yet summarized costs nothing to insert into (`autosummarize`
 * summarizes a range once the inserts have moved past it; a range not summarized is read as
 * possibly matching, so results do not depend on it).
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index tasks_usage_time_brin_idx on tasks using brin (usage_time) with (autosummarize = on) where usage_time is not null`.execute(db);
  await sql`drop index tasks_usage_time_idx`.execute(db);
  await sql`alter index tasks_usage_time_brin_idx rename to tasks_usage_time_idx`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index tasks_usage_time_btree_idx on tasks (usage_time) where usage_time is not null`.execute(db);
  await sql`drop index tasks_usage_time_idx`.execute(db);
  await sql`alter index tasks_usage_time_btree_idx rename to tasks_usage_time_idx`.execute(db);
}
