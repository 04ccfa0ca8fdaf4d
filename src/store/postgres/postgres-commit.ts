/**
 * A batch of task commits as few PostgreSQL round trips as possible (issue 18): one statement
 * writes the new tasks and the updated tasks (with their usage records, migration 0023), their
 * events (a terminal commit's in its task row's final_events, ADR 0057), outbox rows and usage timing, each table
 * from a JSON array (json_to_recordset), so the statement text never changes with the batch and
 * runs as a named prepared statement: after its first use on a connection, a commit is one
 * Bind/Execute round trip with no parse and no plan. A batch whose tasks are distinct is that one
 * statement and nothing else (it is its own transaction); a batch holding a task twice is split
 * into runs of distinct tasks, since a statement may write a row only once, and the runs go in
 * order in one explicit transaction. A run of new tasks that carries nothing else (a blocking
 * answer's terminal commits) goes as a second named statement holding only the insert, the count
 * and the guard (newTasksStatementText, ADR 0072).
 *
 * The same statement adds its new tasks to their agent + owner's count (task_counts, migration
 * 0014), grouped per agent and owner, into one shard row each: the committer takes the shards
 * round-robin from a random start, so batches in flight at once rarely wait on the same row. The
 * rows are counted from what the insert returned, so the count moves only by tasks written, and
 * only once every task row is written (the subquery over `written` runs first): a count row is the
 * last shared row a statement locks, so a batch waiting on another's task row holds no count row
 * that the other could wait for. A batch cut into runs counts once, at the end of its transaction,
 * every owner's rows in one sorted statement: run by run, two transactions could take the same
 * rows in opposite orders.
 *
 * All or nothing: a new task whose id or origin message id is taken fails its insert (a unique
 * violation, which rolls the statement back); when an update's expected version does not match
 * (or, with a lease, the stored lease is not its writer's),
 * the rows of that task are left out (so its events cannot collide with stored ones) and the
 * statement ends in a division by zero on purpose, which rolls it back too. Either way the batch
 * is then read again to name the task that lost (ConcurrentUpdateError). The insert has no
 * ON CONFLICT clause on purpose (issue 26): a speculative insert checks every unique index before
 * writing and writes a confirmation record after, for each task, to spare a conflict that is
 * refused all the same.
 */
import type pg from 'pg';
import { refersToTaskRow, type PreparedCommit } from '../rows.js';
import { ConcurrentUpdateError } from '../store.js';
import { commitTiming, mergedUsageSql, TASK_USAGE_COLUMNS, taskUsageValues, type TaskUsageColumn } from '../usage/task-usage-columns.js';
import { CommitTexts, JsonRows } from './json-rows.js';
import { arrayLiteral } from './array-literal.js';
import { queryNamed, queryNamedOn, type NamedStatement, type ParameterValue } from './named-query.js';
import { readRowType, RecordRows, type RowType } from './record-rows.js';

/** What the statement's guard raises when an update lost: SQLSTATE division_by_zero. */
const LOST_A_COMMIT = '22012';
/** What a new task's insert raises when its id or origin message id is taken: unique_violation. */
const TAKEN = '23505';
/** What array_recv and record_recv raise for an oid not the parameter's type's: datatype_mismatch. */
const WRONG_TYPE = '42804';

/** The batch failed because one of its commits lost, not because of the database or the batch. */
function lostACommit(err: unknown): boolean {
  const e = err as { code?: unknown; table?: unknown };
  return e.code === LOST_A_COMMIT || (e.code === TAKEN && e.table === 'tasks');
}

/**
 * Count rows per agent + owner. More than the batches one replica keeps in flight (the pool size
 * less one, 9 by default), so those never share a row; a ListTasks reads at most this many rows.
 */
export const TASK_COUNT_SHARDS = 16;

/** Adds $1 (JSON rows agent_id, owner, n) to shard $2 of each, in key order (see the file comment). */
const ADD_TASK_COUNTS = `
insert into task_counts (agent_id, owner, shard, n)
select agent_id, owner, $2::integer, n from json_to_recordset($1::json) as c(agent_id text, owner text, n bigint)
 order by agent_id, owner
on conflict (agent_id, owner, shard) do update set n = task_counts.n + excluded.n`;

/** The PostgreSQL type of each usage column of `tasks` (migration 0023), for json_to_recordset. */
const TASK_USAGE_TYPES = {
  usage_time: 'bigint',
  usage_final: 'integer',
  usage_started_at: 'bigint',
  usage_replica: 'text',
  usage_face: 'text',
  usage_operation: 'text',
  usage_skill: 'text',
  usage_tool: 'text',
  usage_subject: 'text',
  usage_client_id: 'text',
  usage_key_id: 'text',
  usage_usecase: 'text',
  usage_remote_subject: 'text',
  usage_remote_issuer: 'text',
  usage_duration_ms: 'double precision',
  usage_bytes_in: 'bigint',
  usage_model: 'text',
  usage_prompt_tokens: 'bigint',
  usage_completion_tokens: 'bigint',
  usage_cached_tokens: 'bigint',
  usage_cost: 'numeric',
} satisfies Record<TaskUsageColumn, string>;

const USAGE_NAMES = TASK_USAGE_COLUMNS.join(', ');
const USAGE_DEFS = TASK_USAGE_COLUMNS.map((c) => `${c} ${TASK_USAGE_TYPES[c]}`).join(', ');
/** An update carrying no record (u.usage_time null) leaves the columns as they are. */
const USAGE_MERGES = TASK_USAGE_COLUMNS.map((c) => `${c} = case when u.usage_time is null then t.${c} else ${mergedUsageSql(c, `u.${c}`, (col) => `t.${col}`)} end`).join(',\n         ');

/**
 * The fields of a new task in the commit, in the order of migration 0028's `task_commit_new_row`,
 * which the statement reads them as (record-rows.ts; readRowType checks the order).
 */
export const NEW_TASK_FIELDS = [
  'id',
  'agent_id',
  'owner',
  'context_id',
  'state',
  'status_time',
  'created_at',
  'seq',
  'task_at',
  'task_len',
  'final_at',
  'final_len',
  'lease_owner',
  'lease_expires_at',
  'origin_message_id',
  'trace_parent',
  'caller',
  ...TASK_USAGE_COLUMNS,
] as const;

/**
 * The insert of a commit's new tasks ($1, composite values in binary), reading their texts from the bytea
 * parameter `texts`: the same in both statements.
 */
function insertNewTasks(texts: string): string {
  return `
  insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, final_events, lease_owner, lease_expires_at, origin_message_id, trace_parent, caller, ${USAGE_NAMES})
  select id, agent_id, owner, context_id, state, status_time, created_at, seq, 1, convert_from(substring(${texts}::bytea from task_at for task_len), 'UTF8'), convert_from(substring(${texts}::bytea from final_at for final_len), 'UTF8'), lease_owner, lease_expires_at, origin_message_id, trace_parent, caller, ${USAGE_NAMES}
    from unnest($1::task_commit_new_row[]) as n
  returning id, agent_id, owner
`;
}

/**
 * $1 new tasks (composite values in binary, record-rows.ts), $2 updates (both with their usage record's columns, migration 0023, and a terminal
 * commit's events row as final_events, ADR 0057: an update without it keeps the stored value), $3
 * the other commits' events rows, $4
 * outbox rows, $5 usage timing a commit carries (JSON arrays written by JsonRows), $6 how many
 * task rows must be written, $7 the task_counts shard to add the new tasks to (null: the caller
 * counts them), $8 the texts the rows point into by byte offset and length (CommitTexts: a task,
 * its events, a push payload), $9 the ids of the updated tasks. A commit with a lease writes it;
 * one without keeps the stored lease. A commit with a lease is its writer's (distributed mode) and
 * updates only a row whose lease that writer holds (the fence, ADR 0070): a lease released or taken
 * by another replica refuses it even at a matching version, like a stale version.
 *
 * Why $9 (issue 26, pg9): PostgreSQL estimates any json_to_recordset at 100 rows, so the update's
 * join to `tasks` was planned as a hash join over a sequential scan of the table until it held
 * tens of thousands of rows, and the statement's generic plan, made once per connection, kept that
 * choice. `t.id = any($9)` is a condition on the primary key that the planner estimates at a few
 * rows whatever the statistics (an array parameter counts as 10 elements), so every plan probes
 * `tasks_pkey` instead of reading the table.
 */
export function commitStatementText(): string {
  return `
with created as (${insertNewTasks('$8')}), updated as (
  update tasks as t
     set context_id = u.context_id, state = u.state, status_time = u.status_time, seq = u.seq, version = u.expected_version + 1, task = convert_from(substring($8::bytea from u.task_at for u.task_len), 'UTF8'),
         final_events = coalesce(convert_from(substring($8::bytea from u.final_at for u.final_len), 'UTF8'), t.final_events),
         lease_owner = case when u.lease_owner is null then t.lease_owner else u.lease_owner end,
         lease_expires_at = case when u.lease_owner is null then t.lease_expires_at else u.lease_expires_at end,
         ${USAGE_MERGES}
    from json_to_recordset($2::json) as u(id text, agent_id text, expected_version integer, context_id text, state text, status_time bigint, seq integer, task_at integer, task_len integer, final_at integer, final_len integer, lease_owner text, lease_expires_at bigint, ${USAGE_DEFS})
   where t.id = u.id and t.agent_id = u.agent_id and t.version = u.expected_version and t.id = any($9::text[])
     and (u.lease_owner is null or t.lease_owner = u.lease_owner)
  returning t.id
), written as (
  select id from created union all select id from updated
), counted as (${countCreated('$7', 'written', '$6')}), events as (
  insert into task_events (task_id, seq, first_seq, events, created_at)
  select task_id, seq, first_seq, convert_from(substring($8::bytea from events_at for events_len), 'UTF8'), created_at
    from json_to_recordset($3::json) as e(task_id text, seq integer, first_seq integer, events_at integer, events_len integer, created_at bigint)
   where e.task_id in (select id from written)
), outbox as (
  insert into push_outbox (task_id, config_id, seq, payload, next_attempt_at, created_at)
  select task_id, config_id, seq, convert_from(substring($8::bytea from payload_at for payload_len), 'UTF8'), created_at, created_at
    from rows from (json_to_recordset($4::json) as (task_id text, config_id text, seq integer, payload_at integer, payload_len integer, created_at bigint)) with ordinality as o(task_id, config_id, seq, payload_at, payload_len, created_at, i)
   where o.task_id in (select id from written)
   order by i
), timing as (
  insert into task_usage_timing (id, ttfb_ms, latency_ms, bytes_out)
  select id, ttfb_ms, latency_ms, bytes_out
    from json_to_recordset($5::json) as m(id text, ttfb_ms double precision, latency_ms double precision, bytes_out bigint)
   where m.id in (select id from written)
  on conflict (id) do update set ttfb_ms = coalesce(excluded.ttfb_ms, task_usage_timing.ttfb_ms), latency_ms = coalesce(excluded.latency_ms, task_usage_timing.latency_ms),
     bytes_out = coalesce(excluded.bytes_out, task_usage_timing.bytes_out)
)
select 1 / (case when (select count(*) from written) = $6::integer then 1 else 0 end) as ok`;
}

/**
 * The statement for a run of new tasks and nothing else: every commit creates its task, and none
 * carries a task_events row, push outbox rows or timing (the blocking answer of a new task: its one
 * commit is terminal, so its events go in the task row, ADR 0057). The same insert, count and
 * guard as commitStatementText's, without the update, events, outbox and timing parts: those were
 * empty for such a run, but PostgreSQL still started a plan for each on every execution (opened
 * their tables and indexes, built their projections and four hash joins), ~33 k backend
 * instructions a new task at the blocking echo's ~14 tasks a statement (docs/benchmarks.md,
 * "pg14"). $1 new tasks, $2 the texts (CommitTexts), $3 how many rows must be written, $4 the
 * task_counts shard (null: the caller counts them).
 */
export function newTasksStatementText(): string {
  return `
with created as (${insertNewTasks('$2')}), counted as (${countCreated('$4', 'created', '$3')})
select 1 / (case when (select count(*) from created) = $3::integer then 1 else 0 end) as ok`;
}

/**
 * The statements' task_counts part: the tasks `created` added to their agent and owner's count in
 * `shard` (a null shard: the caller counts them), only when `written` holds all `expected` rows
 * (else the statement fails on its guard and nothing is kept). Sorted so that concurrent commits
 * lock the counters in one order.
 */
function countCreated(shard: string, written: string, expected: string): string {
  return `
  insert into task_counts (agent_id, owner, shard, n)
  select agent_id, owner, ${shard}::integer, count(*) from created
   where ${shard}::integer is not null and (select count(*) from ${written}) = ${expected}::integer
   group by agent_id, owner
   order by agent_id, owner
  on conflict (agent_id, owner, shard) do update set n = task_counts.n + excluded.n
`;
}

/** A run's statement (by name, prepared once a connection) and its parameters. */
interface RunStatement {
  statement: NamedStatement;
  values: ParameterValue[];
}

/** Their one row (the guard's `ok`) is not read: the statement's success is the answer. */
const COMMIT_STATEMENT: NamedStatement = { name: 'agentport_commit_tasks', text: commitStatementText() };
const NEW_TASKS_STATEMENT: NamedStatement = { name: 'agentport_commit_new_tasks', text: newTasksStatementText() };

/** The statement and its parameters for one run of commits with distinct tasks; `shard` null: not counted here. */
function runStatement(run: PreparedCommit[], shard: number | null, rowType: RowType): RunStatement {
  const texts = new CommitTexts();
  const created = new RecordRows(texts, rowType, run.length);
  const updated = new JsonRows(texts);
  const events = new JsonRows(texts);
  const outbox = new JsonRows(texts);
  const timing = new JsonRows(texts);
  const updatedIds: string[] = [];
  let newTasksOnly = true;
  for (const p of run) {
    const isNew = p.expectedVersion === 0;
    if (!isNew) updatedIds.push(p.taskId);
    const row = isNew ? created : updated;
    row.beginRow();
    row.value('id', p.taskId);
    row.value('agent_id', p.agentId);
    if (isNew) row.value('owner', p.owner);
    else row.value('expected_version', p.expectedVersion);
    row.value('context_id', p.contextId);
    row.value('state', p.state);
    row.value('status_time', p.statusTime);
    if (isNew) row.value('created_at', p.createdAt);
    row.value('seq', p.seq);
    row.longText('task_at', 'task_len', p.taskJson);
    const e = p.eventsRow;
    // A terminal commit's events row (ADR 0050's form) goes into the task row: no task_events row (ADR 0057).
    const inTaskRow = e !== undefined && refersToTaskRow(e.json);
    if (inTaskRow) row.longText('final_at', 'final_len', e.json);
    if (p.lease) {
      row.value('lease_owner', p.lease.owner);
      row.value('lease_expires_at', p.lease.expiresAt);
    }
    if (isNew) {
      row.value('origin_message_id', p.originMessageId);
      row.value('trace_parent', p.traceParent);
      row.value('caller', p.caller);
    }
    if (p.usage) {
      const values = taskUsageValues(p.usage, p.owner);
      for (let i = 0; i < TASK_USAGE_COLUMNS.length; i++) row.value(TASK_USAGE_COLUMNS[i]!, values[i]);
    }
    row.endRow();
    if (e && !inTaskRow) {
      newTasksOnly = false;
      events.beginRow();
      events.value('task_id', p.taskId);
      events.value('seq', e.lastSeq);
      events.value('first_seq', e.firstSeq);
      events.longText('events_at', 'events_len', e.json);
      events.value('created_at', e.createdAt);
      events.endRow();
    }
    for (const o of p.outbox) {
      newTasksOnly = false;
      outbox.beginRow();
      outbox.value('task_id', p.taskId);
      outbox.value('config_id', o.configId);
      outbox.value('seq', o.seq);
      outbox.longText('payload_at', 'payload_len', o.json);
      outbox.value('created_at', p.createdAt);
      outbox.endRow();
    }
    const t = p.usage && commitTiming(p.usage);
    if (t) {
      newTasksOnly = false;
      timing.beginRow();
      timing.value('id', p.taskId);
      timing.value('ttfb_ms', t.ttfbMs);
      timing.value('latency_ms', t.latencyMs);
      timing.value('bytes_out', t.bytesOut);
      timing.endRow();
    }
  }
  if (newTasksOnly && updatedIds.length === 0) return { statement: NEW_TASKS_STATEMENT, values: [created.toBuffer(), texts.toBuffer(), run.length, shard] };
  return {
    statement: COMMIT_STATEMENT,
    values: [created.toBuffer(), updated.toString(), events.toString(), outbox.toString(), timing.toString(), run.length, shard, texts.toBuffer(), arrayLiteral(updatedIds)],
  };
}

/** The batch's new tasks per agent + owner, as ADD_TASK_COUNTS reads them. */
function newTaskCounts(batch: PreparedCommit[]): { agent_id: string; owner: string; n: number }[] {
  const counts = new Map<string, { agent_id: string; owner: string; n: number }>();
  for (const p of batch) {
    if (p.expectedVersion !== 0) continue;
    const key = JSON.stringify([p.agentId, p.owner]);
    const c = counts.get(key);
    if (c) c.n++;
    else counts.set(key, { agent_id: p.agentId, owner: p.owner, n: 1 });
  }
  return [...counts.values()];
}

/** The batch cut into runs in which no task appears twice, in order. */
function runsOfDistinctTasks(batch: PreparedCommit[]): PreparedCommit[][] {
  const runs: PreparedCommit[][] = [];
  let run: PreparedCommit[] = [];
  let ids = new Set<string>();
  for (const p of batch) {
    if (ids.has(p.taskId)) {
      runs.push(run);
      run = [];
      ids = new Set();
    }
    run.push(p);
    ids.add(p.taskId);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The rows a lost batch is replayed against: its tasks by id, and any task holding one of its message ids (migration 0028's index). */
export const WHO_LOST_ROWS = 'select id, agent_id, owner, version, lease_owner, origin_message_id from tasks where id = any($1::text[]) or origin_message_id = any($2::text[])';

export class PostgresCommitter {
  /** the task_counts shard of the next batch; a random start, so replicas start apart */
  private nextShard = Math.floor(Math.random() * TASK_COUNT_SHARDS);
  /** `task_commit_new_row` as the schema holds it, read at the first commit (after migrating) */
  private rowType: RowType | undefined;
  private readingRowType: Promise<RowType> | undefined;

  constructor(private readonly pool: pg.Pool) {}

  /**
   * The row type is read again at the next commit: after migrating, or after a commit the server
   * refused for a type oid that is not the type's (a type dropped and created again has a new oid).
   */
  forgetRowType(): void {
    this.rowType = undefined;
    this.readingRowType = undefined;
  }

  private async readRowType(): Promise<RowType> {
    this.readingRowType ??= readRowType(this.pool, 'task_commit_new_row', NEW_TASK_FIELDS).finally(() => {
      this.readingRowType = undefined;
    });
    this.rowType = await this.readingRowType;
    return this.rowType;
  }

  async commit(batch: PreparedCommit[]): Promise<void> {
    const rowType = this.rowType ?? (await this.readRowType());
    try {
      await this.commitRuns(batch, rowType);
    } catch (err) {
      if ((err as { code?: unknown }).code === WRONG_TYPE) this.forgetRowType();
      throw err;
    }
  }

  private async commitRuns(batch: PreparedCommit[], rowType: RowType): Promise<void> {
    const runs = runsOfDistinctTasks(batch);
    const shard = this.nextShard;
    this.nextShard = (shard + 1) % TASK_COUNT_SHARDS;
    try {
      if (runs.length === 1) {
        // One statement is one transaction: no BEGIN and COMMIT round trips.
        const { statement, values } = runStatement(runs[0]!, shard, rowType);
        await queryNamed(this.pool, statement, values);
        return;
      }
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('begin');
        for (const run of runs) {
          const { statement, values } = runStatement(run, null, rowType);
          await queryNamedOn(client, statement, values);
        }
        // Every run's guard passed, so each new task of the batch was inserted.
        const counts = newTaskCounts(batch);
        if (counts.length > 0) await client.query({ name: 'agentport_add_task_counts', text: ADD_TASK_COUNTS, values: [JSON.stringify(counts), shard] });
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.release(broken);
      }
    } catch (err) {
      if (lostACommit(err)) throw await this.whoLost(batch);
      throw err;
    }
  }

  /**
   * The batch was rolled back because a commit lost: replays it against the rows as they are now
   * and names the first commit that could not apply. Should the rows have moved meanwhile, the
   * first commit of the batch is named.
   */
  private async whoLost(batch: PreparedCommit[]): Promise<ConcurrentUpdateError> {
    const ids = [...new Set(batch.map((p) => p.taskId))];
    const messageIds = batch.flatMap((p) => (p.originMessageId === null ? [] : [p.originMessageId]));
    const { rows } = await this.pool.query<{ id: string; agent_id: string; owner: string; version: number; lease_owner: string | null; origin_message_id: string | null }>(WHO_LOST_ROWS, [ids, messageIds]);
    const version = new Map<string, { agentId: string; version: number; holder: string | null }>(rows.map((r) => [r.id, { agentId: r.agent_id, version: Number(r.version), holder: r.lease_owner }]));
    const origin = (agentId: string, owner: string, messageId: string) => JSON.stringify([agentId, owner, messageId]);
    const origins = new Set(rows.flatMap((r) => (r.origin_message_id === null ? [] : [origin(r.agent_id, r.owner, r.origin_message_id)])));
    for (const p of batch) {
      const stored = version.get(p.taskId);
      if (p.expectedVersion === 0) {
        const key = p.originMessageId === null ? undefined : origin(p.agentId, p.owner, p.originMessageId);
        if (stored || (key !== undefined && origins.has(key))) return new ConcurrentUpdateError(p.taskId);
        version.set(p.taskId, { agentId: p.agentId, version: 1, holder: p.lease?.owner ?? null });
        if (key !== undefined) origins.add(key);
      } else {
        if (!stored || stored.agentId !== p.agentId || stored.version !== p.expectedVersion) return new ConcurrentUpdateError(p.taskId);
        if (p.lease && stored.holder !== p.lease.owner) return new ConcurrentUpdateError(p.taskId);
        stored.version++;
        if (p.lease) stored.holder = p.lease.owner;
      }
    }
    return new ConcurrentUpdateError(batch[0]!.taskId);
  }
}
