/**
 * A terminal commit's events live in its task row (ADR 0057, issue 26): `tasks.final_events`
 * holds the events row of the commit that brought the task to a terminal state, in ADR 0050's
 * referring form (`{"t": seq, "e": [[createdAt, event], …]}`), instead of a `task_events` row. On
 * SQLite a blocking task's whole life is that one commit, and its events row was one more B-tree
 * insert (the events table's primary key) in every task commit: ~14 k instructions a request.
 *
 * The column is nullable and null for every task whose terminal events are in `task_events`
 * (rows written before, and every PostgreSQL commit: only the SQLite store writes it so far). No
 * index: it is read with its task row, by id.
 *
 * Down writes each such value back as the `task_events` row it stands for (seq = `t`, first_seq =
 * `t` less the events but one, created_at = the last event's), which 0025's reader takes as it is.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('final_events', 'text').execute();
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  // The value's own numbers, in each dialect's JSON functions: no row goes through this process.
  const row =
    dialect === 'postgres'
      ? sql`select id, (final_events::json->>'t')::integer,
                 (final_events::json->>'t')::integer - json_array_length(final_events::json->'e') + 1,
                 final_events, (final_events::json->'e'->-1->>0)::bigint`
      : sql`select id, json_extract(final_events, '$.t'),
                 json_extract(final_events, '$.t') - json_array_length(final_events, '$.e') + 1,
                 final_events, json_extract(final_events, '$.e[#-1][0]')`;
  await sql`insert into task_events (task_id, seq, first_seq, events, created_at)
    ${row} from tasks where final_events is not null`.execute(db);
  await db.schema.alterTable('tasks').dropColumn('final_events').execute();
}
