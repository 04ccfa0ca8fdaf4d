/**
 * Issue 26: a task's usage record lives in its task row (ADR 0016, revision of 2026-11-29). The
 * separate `usage_records` row of a task cost a table, primary-key and time-index insert plus a
 * 31-value bind in every task commit, about as much as the task and events rows together.
 *
 * `tasks` gets the record's columns the task row does not already hold, all nullable and prefixed
 * `usage_`; `usage_time` is null exactly when the task has no record (usage off, or pruned). The
 * rest is the task's own: id (= id and task_id), agent_id, context_id, the owner (the subject when
 * `usage_subject` is null), and the state (the outcome; `error` is a failed state).
 *
 * The answer's timing, known after the commit, goes to `task_usage_timing` (a narrow row per task,
 * inserted, not an update of the wide task row).
 *
 * `usage_records_all` is what every usage read selects from: the call records of `usage_records`
 * and the task records from `tasks`, in usage_records' columns. Its text is written out here, not
 * built from code that can change later.
 *
 * Existing task records move from usage_records into their task rows; a task record without a
 * task row (none is written that way) stays where it is and still reads through the view.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

// The migration's own list, not store/usage/task-usage-columns.ts: a migration stays what it was when
// a later change edits the live columns.
const TEXT = [
  'usage_replica',
  'usage_face',
  'usage_operation',
  'usage_skill',
  'usage_tool',
  'usage_subject',
  'usage_client_id',
  'usage_key_id',
  'usage_usecase',
  'usage_remote_subject',
  'usage_remote_issuer',
  'usage_model',
] as const;
const BIGINT = ['usage_time', 'usage_started_at', 'usage_bytes_in', 'usage_prompt_tokens', 'usage_completion_tokens', 'usage_cached_tokens'] as const;

/** The columns of a usage record, in usage_records' order: the view's and the revert's. */
const RECORD_COLUMNS = sql.raw(`id, kind, time, started_at, final, replica, face, operation, agent, skill, tool, task_id, context_id, subject,
  client_id, key_id, usecase, remote_subject, remote_issuer, outcome, error, ttfb_ms, latency_ms, duration_ms,
  bytes_in, bytes_out, model, prompt_tokens, completion_tokens, cached_tokens, cost`);

/** A task's record rebuilt from its task row and its timing row: what the view shows and what `down` puts back. */
const TASK_RECORDS = sql`
    select t.id, 'task', t.usage_time, t.usage_started_at, t.usage_final, t.usage_replica, t.usage_face, t.usage_operation,
           t.agent_id, t.usage_skill, t.usage_tool, t.id, t.context_id, coalesce(t.usage_subject, t.owner),
           t.usage_client_id, t.usage_key_id, t.usage_usecase, t.usage_remote_subject, t.usage_remote_issuer,
           t.state, case when t.state = 'TASK_STATE_FAILED' then 1 else 0 end, m.ttfb_ms, m.latency_ms, t.usage_duration_ms,
           coalesce(m.bytes_in, t.usage_bytes_in), m.bytes_out, t.usage_model, t.usage_prompt_tokens,
           t.usage_completion_tokens, t.usage_cached_tokens, t.usage_cost
      from tasks as t left join task_usage_timing as m on m.id = t.id
     where t.usage_time is not null`;

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  const real = dialect === 'postgres' ? ('double precision' as const) : ('real' as const);
  const columns: [string, 'text' | 'bigint' | 'integer' | 'numeric' | typeof real][] = [
    ...TEXT.map((c) => [c, 'text'] as [string, 'text']),
    ...BIGINT.map((c) => [c, 'bigint'] as [string, 'bigint']),
    ['usage_final', 'integer'],
    ['usage_duration_ms', real],
    ['usage_cost', 'numeric'],
  ];
  for (const [name, type] of columns) await db.schema.alterTable('tasks').addColumn(name, type).execute();

  let timing = db.schema
    .createTable('task_usage_timing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ttfb_ms', real)
    .addColumn('latency_ms', real)
    .addColumn('bytes_in', 'bigint')
    .addColumn('bytes_out', 'bigint');
  if (dialect === 'sqlite') timing = timing.modifyEnd(sql`without rowid`);
  await timing.execute();

  await sql`
    update tasks
       set usage_time = r.time, usage_final = r.final, usage_started_at = r.started_at, usage_replica = r.replica,
           usage_face = r.face, usage_operation = r.operation, usage_skill = r.skill, usage_tool = r.tool,
           usage_subject = case when r.subject = tasks.owner then null else r.subject end,
           usage_client_id = r.client_id, usage_key_id = r.key_id, usage_usecase = r.usecase,
           usage_remote_subject = r.remote_subject, usage_remote_issuer = r.remote_issuer,
           usage_duration_ms = r.duration_ms, usage_bytes_in = r.bytes_in, usage_model = r.model,
           usage_prompt_tokens = r.prompt_tokens, usage_completion_tokens = r.completion_tokens,
           usage_cached_tokens = r.cached_tokens, usage_cost = r.cost
      from usage_records as r
     where r.id = tasks.id and r.kind = 'task' and r.subject is not null`.execute(db);
  await sql`
    insert into task_usage_timing (id, ttfb_ms, latency_ms, bytes_in, bytes_out)
    select r.id, r.ttfb_ms, r.latency_ms, r.bytes_in, r.bytes_out
      from usage_records as r
     where r.kind = 'task' and exists (select 1 from tasks as t where t.id = r.id and t.usage_time is not null)
       and (r.ttfb_ms is not null or r.latency_ms is not null or r.bytes_out is not null)`.execute(db);
  await sql`delete from usage_records where kind = 'task' and exists (select 1 from tasks as t where t.id = usage_records.id and t.usage_time is not null)`.execute(db);

  // Queries, rollups and retention select task records by time, like usage_records_time_idx.
  await sql`create index tasks_usage_time_idx on tasks (usage_time) where usage_time is not null`.execute(db);

  await sql`
    create view usage_records_all as
    select ${RECORD_COLUMNS} from usage_records
    union all
    ${TASK_RECORDS}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view usage_records_all`.execute(db);
  await sql`
    insert into usage_records (${RECORD_COLUMNS})
    ${TASK_RECORDS}`.execute(db);
  await sql`drop index tasks_usage_time_idx`.execute(db);
  await db.schema.dropTable('task_usage_timing').execute();
  for (const c of [...TEXT, ...BIGINT, 'usage_final', 'usage_duration_ms', 'usage_cost']) await db.schema.alterTable('tasks').dropColumn(c).execute();
}
