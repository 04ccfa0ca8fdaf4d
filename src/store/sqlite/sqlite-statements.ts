/**
 * The SQL the SQLite store prepares on its connection (and the commit thread on its own), compiled
 * once through Kysely when a store opens: no query is built per call on the hot paths.
 */
import { type Kysely, sql } from 'kysely';
import { apiKeyRows } from '../api-key-rows.js';
import { CREDENTIALS_GENERATION_TABLE } from '../migrations/0026-credentials-generation.js';
import { outboxClaimQuery } from '../outbox-claim.js';
import { TASK_ROW_COLUMNS } from '../rows.js';
import type { Database } from '../schema.js';
import { mergedUsageSql, TASK_USAGE_COLUMNS } from '../usage/task-usage-columns.js';
import { compileWithSlots, slot } from './compiled-statement.js';
import { UPSERT_TIMING_SQL } from './sqlite-usage-store.js';

type Q = Kysely<Database>;

/**
 * The conditional task update (optimistic version check), writing the lease columns or not. A
 * terminal commit's events go into final_events (ADR 0057); a commit without them binds null and
 * leaves the column as it is. A commit with a lease is its writer's (distributed mode) and also
 * needs the stored lease to be that writer's (ADR 0070): a released lease, or one another replica
 * took, refuses it even at a matching version.
 */
function updateTaskStatement(k: Q, withLease: boolean): string {
  const lease = withLease ? { lease_owner: slot<string | null>('lease_owner'), lease_expires_at: slot<number | null>('lease_expires_at') } : {};
  return compileWithSlots(
    k
      .updateTable('tasks')
      .set({
        context_id: slot('context_id'),
        state: slot('state'),
        status_time: slot('status_time'),
        seq: slot('seq'),
        version: slot('version'),
        task: slot('task'),
        final_events: sql<string | null>`coalesce(${slot<string | null>('final_events')}, ${sql.ref('final_events')})`,
        ...lease,
      })
      .where('id', '=', slot<string>('id'))
      .where('agent_id', '=', slot<string>('agent_id'))
      .where('version', '=', slot<number>('expected_version'))
      .$if(withLease, (qb) => qb.where('lease_owner', '=', slot<string>('holder'))),
    ['context_id', 'state', 'status_time', 'seq', 'version', 'task', 'final_events', ...(withLease ? ['lease_owner', 'lease_expires_at'] : []), 'id', 'agent_id', 'expected_version', ...(withLease ? ['holder'] : [])],
  );
}

/**
 * A new task row, with its usage record's columns or without (TASK_ROW_COLUMNS, final_events, then
 * TASK_USAGE_COLUMNS): a task terminal in its first commit (a blocking call) has its events here.
 */
function insertTaskStatement(k: Q, withUsage: boolean): string {
  const names = [...TASK_ROW_COLUMNS, 'final_events', ...(withUsage ? TASK_USAGE_COLUMNS : [])];
  return compileWithSlots(
    k
      .insertInto('tasks')
      .values(Object.fromEntries(names.map((c) => [c, slot(c)])) as never)
      // Any conflict: the task id, or the (agent, owner, messageId) of another task.
      .onConflict((oc) => oc.doNothing()),
    names,
  );
}

/** Binds TASK_USAGE_COLUMNS' values, then the task id. */
function updateTaskUsageSql(): string {
  const sets = TASK_USAGE_COLUMNS.map((c) => `"${c}" = ${mergedUsageSql(c, '?', (col) => `"${col}"`)}`);
  return `update "tasks" set ${sets.join(', ')} where "id" = ?`;
}

/** Exported for the plan tests (test/store/task-final-events.test.ts): the SQL the store prepares. */
export function compileStatements(k: Q) {
  return {
    insertTask: insertTaskStatement(k, false),
    // A task's first commit with its usage record (migration 0023): the record's columns in the task row.
    insertTaskWithUsage: insertTaskStatement(k, true),
    // A later commit's usage record, merged into the task row it has just updated.
    updateTaskUsage: updateTaskUsageSql(),
    // The answer's timing, when a commit carries it (the edge's amends are the usage store's).
    upsertTiming: UPSERT_TIMING_SQL,
    selectTaskByMessage: compileWithSlots(
      k.selectFrom('tasks').select(TASK_ROW_COLUMNS).where('agent_id', '=', slot<string>('agent_id')).where('owner', '=', slot<string>('owner')).where('origin_message_id', '=', slot<string>('origin_message_id')),
      ['agent_id', 'owner', 'origin_message_id'],
    ),
    updateTask: updateTaskStatement(k, false),
    // A separate statement, so a commit without a lease (every commit in embedded mode) binds
    // and writes exactly what it did before leases existed.
    updateTaskWithLease: updateTaskStatement(k, true),
    insertEvent: compileWithSlots(
      k.insertInto('task_events').values({
        task_id: slot('task_id'),
        seq: slot('seq'),
        first_seq: slot('first_seq'),
        events: slot('events'),
        created_at: slot('created_at'),
      }),
      ['task_id', 'seq', 'first_seq', 'events', 'created_at'],
    ),
    insertOutbox: compileWithSlots(
      k.insertInto('push_outbox').values({
        task_id: slot('task_id'),
        config_id: slot('config_id'),
        seq: slot('seq'),
        payload: slot('payload'),
        next_attempt_at: slot('next_attempt_at'),
        created_at: slot('created_at'),
      }),
      ['task_id', 'config_id', 'seq', 'payload', 'next_attempt_at', 'created_at'],
    ),
    // the task row an events row of a terminal commit refers to (ADR 0050), and the events it holds (ADR 0057)
    selectTaskRowText: compileWithSlots(k.selectFrom('tasks').select(['seq', 'task', 'final_events']).where('id', '=', slot<string>('id')), ['id']),
    selectTask: compileWithSlots(k.selectFrom('tasks').select(TASK_ROW_COLUMNS).where('id', '=', slot<string>('id')).where('agent_id', '=', slot<string>('agent_id')), ['id', 'agent_id']),
    countTasks: compileWithSlots(
      k
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('agent_id', '=', slot<string>('agent_id'))
        .where('owner', '=', slot<string>('owner')),
      ['agent_id', 'owner'],
    ),
    selectEvents: compileWithSlots(k.selectFrom('task_events').selectAll().where('task_id', '=', slot<string>('task_id')).where('seq', '>', slot<number>('after_seq')).orderBy('seq').limit(slot<number>('limit')), [
      'task_id',
      'after_seq',
      'limit',
    ]),
    // The push delivery worker's poll, every second even at rest.
    claimOutbox: compileWithSlots(outboxClaimQuery(k, 'sqlite', { leaseUntil: slot('lease_until'), now: slot('now'), limit: slot('limit') }), ['lease_until', 'now', 'now', 'limit']),
    // A stored API key's row, read on a request whose key the authenticator does not hold under the
    // current credentials generation (ADR 0052); built per call through Kysely this cost ~50 µs. The
    // row comes with its owner's and its grant's (migration 0016), so a self-made key's check is this one read.
    selectApiKey: compileWithSlots(apiKeyRows(k).where('k.key_id', '=', slot<string>('key_id')), ['key_id']),
    // Every request with a stored API key reads this first (credentialsGeneration below).
    selectCredentialsGeneration: `select n from ${CREDENTIALS_GENERATION_TABLE} where id = 1`,
  };
}

export type StatementSql = ReturnType<typeof compileStatements>;
