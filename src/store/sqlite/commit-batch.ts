/**
 * The task commit's transaction body, shared by the store's own connection and the commit thread
 * (commit-thread.ts, ADR 0062): one plan of statement runs, executed on either connection.
 *
 * The commit thread receives the plan as one flat array of statement numbers and bind values
 * (encodeBatch): cloned for the thread, it costs about half of what the prepared commits' objects
 * did, whose every property name is serialized too.
 */
import type Sqlite from 'better-sqlite3';
import { refersToTaskRow, type PreparedCommit } from '../rows.js';
import { ConcurrentUpdateError } from '../store.js';
import { commitTiming, taskUsageValues } from '../usage/task-usage-columns.js';

/** The statements a commit runs, by their number in plans (their SQL is compileStatements' in sqlite-store.ts). */
export const COMMIT_STATEMENTS = ['insertTask', 'insertTaskWithUsage', 'updateTask', 'updateTaskWithLease', 'updateTaskUsage', 'upsertTiming', 'insertEvent', 'insertOutbox'] as const;
const [INSERT_TASK, INSERT_TASK_WITH_USAGE, UPDATE_TASK, UPDATE_TASK_WITH_LEASE, UPDATE_TASK_USAGE, UPSERT_TIMING, INSERT_EVENT, INSERT_OUTBOX] = [0, 1, 2, 3, 4, 5, 6, 7] as const;

/** One statement run: `conflict` set means it must change a row, else the commit of that task conflicts. */
type Step = (statement: number, conflict: string | undefined, values: unknown[]) => void;

/** The batch's statement runs, in order. */
function planBatch(batch: readonly PreparedCommit[], step: Step): void {
  for (const p of batch) {
    const lease = p.lease;
    const usage = p.usage;
    const ev = p.eventsRow;
    // A terminal commit's events row (ADR 0050's form) goes into the task row: one B-tree insert less (ADR 0057).
    const finalEvents = ev !== undefined && refersToTaskRow(ev.json) ? ev.json : null;
    if (p.expectedVersion === 0) {
      const task: unknown[] = [
        p.taskId,
        p.agentId,
        p.owner,
        p.contextId,
        p.state,
        p.statusTime,
        p.createdAt,
        p.seq,
        1,
        p.taskJson,
        lease ? lease.owner : null,
        lease ? lease.expiresAt : null,
        p.originMessageId,
        p.traceParent,
        p.caller,
        finalEvents,
      ];
      // Any conflict (the task id, or another task's (agent, owner, messageId)) inserts nothing.
      if (usage) step(INSERT_TASK_WITH_USAGE, p.taskId, task.concat(taskUsageValues(usage, p.owner)));
      else step(INSERT_TASK, p.taskId, task);
    } else {
      // The optimistic version check: a stale expectedVersion updates nothing; with a lease, nor
      // does a writer that no longer holds it (the fence, ADR 0070).
      if (lease)
        step(UPDATE_TASK_WITH_LEASE, p.taskId, [
          p.contextId,
          p.state,
          p.statusTime,
          p.seq,
          p.expectedVersion + 1,
          p.taskJson,
          finalEvents,
          lease.owner,
          lease.expiresAt,
          p.taskId,
          p.agentId,
          p.expectedVersion,
          lease.owner,
        ]);
      else step(UPDATE_TASK, p.taskId, [p.contextId, p.state, p.statusTime, p.seq, p.expectedVersion + 1, p.taskJson, finalEvents, p.taskId, p.agentId, p.expectedVersion]);
      if (usage) step(UPDATE_TASK_USAGE, undefined, [...taskUsageValues(usage, p.owner), p.taskId]);
    }
    const timing = usage && commitTiming(usage);
    if (timing) step(UPSERT_TIMING, undefined, [p.taskId, timing.ttfbMs ?? null, timing.latencyMs ?? null, null, timing.bytesOut ?? null]);
    if (ev && finalEvents === null) step(INSERT_EVENT, undefined, [p.taskId, ev.lastSeq, ev.firstSeq, ev.json, ev.createdAt]);
    for (const o of p.outbox) step(INSERT_OUTBOX, undefined, [p.taskId, o.configId, o.seq, o.json, p.createdAt, p.createdAt]);
  }
}

/** Prepares the commit statements on `db`, in their plan order. */
export function prepareCommitStatements(db: Sqlite.Database, sql: Readonly<Record<(typeof COMMIT_STATEMENTS)[number], string>>): Sqlite.Statement[] {
  return COMMIT_STATEMENTS.map((name) => db.prepare(sql[name]));
}

function run(statements: readonly Sqlite.Statement[], statement: number, conflict: string | undefined, values: unknown[]): void {
  // Spread, not the array: better-sqlite3 binds an array argument element by element through the
  // generic object API, ~17 k instructions a request more for a blocking echo (callgrind, Binder::Bind).
  const r = statements[statement]!.run(...values);
  if (conflict !== undefined && r.changes === 0) throw new ConcurrentUpdateError(conflict);
}

/**
 * Writes the batch's commits in order; the caller runs it inside one transaction. A version or
 * unique conflict throws ConcurrentUpdateError (rolling the whole batch back).
 */
export function writeBatch(statements: readonly Sqlite.Statement[], batch: readonly PreparedCommit[]): void {
  planBatch(batch, (statement, conflict, values) => run(statements, statement, conflict, values));
}

/**
 * The batch as one flat array for the commit thread: per statement run, its number (as -1 - n
 * when it must change a row, followed by the task id that conflicts otherwise), the count of its
 * values, then the values. (Other writes send their SQL text in place of the number: writePlan.)
 */
export function encodeBatch(batch: readonly PreparedCommit[]): unknown[] {
  const plan: unknown[] = [];
  planBatch(batch, (statement, conflict, values) => {
    if (conflict === undefined) plan.push(statement);
    else plan.push(-1 - statement, conflict);
    plan.push(values.length);
    for (let i = 0; i < values.length; i++) plan.push(values[i]);
  });
  return plan;
}

/**
 * Runs a plan (encodeBatch's, or one whose statements are SQL texts, prepared through `prepare`);
 * the caller runs it inside one transaction.
 */
export function writePlan(statements: readonly Sqlite.Statement[], plan: readonly unknown[], prepare: (sql: string) => Sqlite.Statement): void {
  let i = 0;
  while (i < plan.length) {
    const head = plan[i++] as number | string;
    const n0 = plan[i] as number;
    if (typeof head === 'string') {
      i++;
      prepare(head).run(...plan.slice(i, i + n0));
      i += n0;
      continue;
    }
    let statement = head;
    let conflict: string | undefined;
    if (statement < 0) {
      statement = -1 - statement;
      conflict = plan[i++] as string;
    }
    const n = plan[i++] as number;
    run(statements, statement, conflict, plan.slice(i, i + n));
    i += n;
  }
}
