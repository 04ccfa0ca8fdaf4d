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
import { commitTiming, pushTaskUsageValues } from '../usage/task-usage-columns.js';

/** The statements a commit runs, by their number in plans (their SQL is compileStatements' in sqlite-store.ts). */
export const COMMIT_STATEMENTS = ['insertTask', 'insertTaskWithUsage', 'updateTask', 'updateTaskWithLease', 'updateTaskUsage', 'upsertTiming', 'insertEvent', 'insertOutbox'] as const;
const [INSERT_TASK, INSERT_TASK_WITH_USAGE, UPDATE_TASK, UPDATE_TASK_WITH_LEASE, UPDATE_TASK_USAGE, UPSERT_TIMING, INSERT_EVENT, INSERT_OUTBOX] = [0, 1, 2, 3, 4, 5, 6, 7] as const;

/**
 * Starts a statement run in `plan`: its number (as -1 - n, then the task id, when it must change a
 * row) and a slot for its count of values; returns the slot. The values follow, pushed in place,
 * and `closeRun` counts them: no count is written by hand beside a list it could drift from.
 */
function openRun(plan: unknown[], statement: number, conflict?: string): number {
  if (conflict === undefined) plan.push(statement, 0);
  else plan.push(-1 - statement, conflict, 0);
  return plan.length - 1;
}

function closeRun(plan: unknown[], countAt: number): void {
  plan[countAt] = plan.length - countAt - 1;
}

/**
 * One commit's statement runs appended to `plan` (encodeBatch's form), each run's values pushed in
 * place: no array per statement, no concatenation, no copy into the plan (issue 26: they were
 * ~1 KB of a blocking echo's allocation, and the copies its instructions).
 */
function encodeCommit(plan: unknown[], p: PreparedCommit): void {
  const lease = p.lease;
  const usage = p.usage;
  const ev = p.eventsRow;
  // A terminal commit's events row (ADR 0050's form) goes into the task row: one B-tree insert less (ADR 0057).
  const finalEvents = ev !== undefined && refersToTaskRow(ev.json) ? ev.json : null;
  if (p.expectedVersion === 0) {
    // Any conflict (the task id, or another task's (agent, owner, messageId)) inserts nothing.
    const at = openRun(plan, usage ? INSERT_TASK_WITH_USAGE : INSERT_TASK, p.taskId);
    plan.push(
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
    );
    if (usage) pushTaskUsageValues(plan, usage, p.owner);
    closeRun(plan, at);
  } else {
    // The optimistic version check: a stale expectedVersion updates nothing; with a lease, nor
    // does a writer that no longer holds it (the fence, ADR 0070).
    const at = openRun(plan, lease ? UPDATE_TASK_WITH_LEASE : UPDATE_TASK, p.taskId);
    if (lease) plan.push(p.contextId, p.state, p.statusTime, p.seq, p.expectedVersion + 1, p.taskJson, finalEvents, lease.owner, lease.expiresAt, p.taskId, p.agentId, p.expectedVersion, lease.owner);
    else plan.push(p.contextId, p.state, p.statusTime, p.seq, p.expectedVersion + 1, p.taskJson, finalEvents, p.taskId, p.agentId, p.expectedVersion);
    closeRun(plan, at);
    if (usage) {
      const usageAt = openRun(plan, UPDATE_TASK_USAGE);
      pushTaskUsageValues(plan, usage, p.owner);
      plan.push(p.taskId);
      closeRun(plan, usageAt);
    }
  }
  const timing = usage && commitTiming(usage);
  if (timing) {
    const at = openRun(plan, UPSERT_TIMING);
    plan.push(p.taskId, timing.ttfbMs ?? null, timing.latencyMs ?? null, null, timing.bytesOut ?? null);
    closeRun(plan, at);
  }
  if (ev && finalEvents === null) {
    const at = openRun(plan, INSERT_EVENT);
    plan.push(p.taskId, ev.lastSeq, ev.firstSeq, ev.json, ev.createdAt);
    closeRun(plan, at);
  }
  for (const o of p.outbox) {
    const at = openRun(plan, INSERT_OUTBOX);
    plan.push(p.taskId, o.configId, o.seq, o.json, p.createdAt, p.createdAt);
    closeRun(plan, at);
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
  writePlan(statements, encodeBatch(batch), noOtherStatements);
}

function noOtherStatements(sql: string): never {
  throw new Error(`a task commit's plan names no statement by its text (${sql})`);
}

/**
 * The batch as one flat array for the commit thread: per statement run, its number (as -1 - n
 * when it must change a row, followed by the task id that conflicts otherwise), the count of its
 * values, then the values. (Other writes send their SQL text in place of the number: writePlan.)
 */
export function encodeBatch(batch: readonly PreparedCommit[]): unknown[] {
  const plan: unknown[] = [];
  for (let i = 0; i < batch.length; i++) encodeCommit(plan, batch[i]!);
  return plan;
}

const NO_NEW_TASKS: readonly string[] = Object.freeze([]);

/**
 * The agent and owner of each task the batch creates, flat (agentId, owner, agentId, ...): all a
 * store's task counts need once the batch is committed, kept instead of the batch while it waits.
 */
export function newTaskOwners(batch: readonly PreparedCommit[]): readonly string[] {
  let out: string[] | undefined;
  for (const p of batch) if (p.expectedVersion === 0) (out ??= []).push(p.agentId, p.owner);
  return out ?? NO_NEW_TASKS;
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
