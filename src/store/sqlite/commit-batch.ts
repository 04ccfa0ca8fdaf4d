/**
 * The task commit's transaction body, shared by the store's own connection and the commit thread
 * (commit-thread.ts, ADR 0062): one plan of statement runs, executed on either connection.
 *
 * The commit thread receives the plan as one flat array of statement numbers and bind values
 * (encodeBatch): cloned for the thread, it costs about half of what the prepared commits' objects
 * did, whose every property name is serialized too.
 */
import type Sqlite from 'better-sqlite3';
import { writeJson } from '../../protocol/a2a/written-json.js';
import { checkCommit, plainEventsJson, refersToTaskRow, statusTimeOf, withOutbox, type PreparedCommit } from '../rows.js';
import { ConcurrentUpdateError, type TaskCommit } from '../store.js';
import { commitTiming, putTaskUsageValues } from '../usage/task-usage-columns.js';

/** The statements a commit runs, by their number in plans (their SQL is compileStatements' in sqlite-statements.ts). */
export const COMMIT_STATEMENTS = ['insertTask', 'insertTaskWithUsage', 'updateTask', 'updateTaskWithLease', 'updateTaskUsage', 'upsertTiming', 'insertEvent', 'insertOutbox'] as const;
const [INSERT_TASK, INSERT_TASK_WITH_USAGE, UPDATE_TASK, UPDATE_TASK_WITH_LEASE, UPDATE_TASK_USAGE, UPSERT_TIMING, INSERT_EVENT, INSERT_OUTBOX] = [0, 1, 2, 3, 4, 5, 6, 7] as const;

/**
 * The plan being encoded: one array for every batch, grown once to the largest and cleared after
 * each, so a batch's plan is allocated once at its exact size (`slice`) instead of regrown push
 * by push (issue 26: the copies a growing plan left behind were ~0.7 KB of a blocking echo's
 * allocation). Only ever written at or below its length, so it stays a packed array, and so does
 * its slice: the thread's structured clone writes a holey one key by key.
 */
const scratch: unknown[] = [];
let end = 0;

function put(value: unknown): void {
  scratch[end++] = value;
}

/**
 * Starts a statement run: its number (as -1 - n, then the task id, when it must change a row) and
 * a slot for its count of values; returns the slot. The values follow, and `closeRun` counts
 * them: no count is written by hand beside a list it could drift from.
 */
function openRun(statement: number, conflict?: string): number {
  if (conflict === undefined) put(statement);
  else {
    put(-1 - statement);
    put(conflict);
  }
  put(0);
  return end - 1;
}

function closeRun(countAt: number): void {
  scratch[countAt] = end - countAt - 1;
}

/**
 * One commit's statement runs, its values written straight from the commit (rows.ts's checks and
 * texts): no prepared commit between them, no array per statement, no concatenation.
 */
function encodeCommit(c: TaskCommit): void {
  checkCommit(c);
  let eventsJson: string;
  let outbox: PreparedCommit['outbox'] | undefined;
  if (c.outbox.length > 0) ({ eventsJson, outbox } = withOutbox(c));
  else eventsJson = plainEventsJson(c);
  const task = c.task;
  const taskId = task.id;
  const lease = c.lease;
  const usage = c.usage;
  const expectedVersion = c.expectedVersion;
  const statusTime = statusTimeOf(task, c.createdAt);
  // remembered for the task: a blocking send answers with this same committed copy (ADR 0049)
  const taskJson = writeJson(task);
  const events = c.events;
  // A terminal commit's events row (ADR 0050's form) goes into the task row: one B-tree insert less (ADR 0057).
  const finalEvents = events.length > 0 && refersToTaskRow(eventsJson) ? eventsJson : null;
  if (expectedVersion === 0) {
    // Any conflict (the task id, or another task's (agent, owner, messageId)) inserts nothing.
    const at = openRun(usage ? INSERT_TASK_WITH_USAGE : INSERT_TASK, taskId);
    put(taskId);
    put(c.agentId);
    put(c.owner);
    put(task.contextId);
    put(task.status.state);
    put(statusTime);
    put(c.createdAt);
    put(c.seq);
    put(1);
    put(taskJson);
    put(lease ? lease.owner : null);
    put(lease ? lease.expiresAt : null);
    put(c.originMessageId ?? null);
    put(c.traceParent ?? null);
    put(c.caller ?? null);
    put(finalEvents);
    if (usage) end = putTaskUsageValues(scratch, end, usage, c.owner);
    closeRun(at);
  } else {
    // The optimistic version check: a stale expectedVersion updates nothing; with a lease, nor
    // does a writer that no longer holds it (the fence, ADR 0070).
    const at = openRun(lease ? UPDATE_TASK_WITH_LEASE : UPDATE_TASK, taskId);
    put(task.contextId);
    put(task.status.state);
    put(statusTime);
    put(c.seq);
    put(expectedVersion + 1);
    put(taskJson);
    put(finalEvents);
    if (lease) {
      put(lease.owner);
      put(lease.expiresAt);
    }
    put(taskId);
    put(c.agentId);
    put(expectedVersion);
    if (lease) put(lease.owner);
    closeRun(at);
    if (usage) {
      const usageAt = openRun(UPDATE_TASK_USAGE);
      end = putTaskUsageValues(scratch, end, usage, c.owner);
      put(taskId);
      closeRun(usageAt);
    }
  }
  const timing = usage && commitTiming(usage);
  if (timing) {
    const at = openRun(UPSERT_TIMING);
    put(taskId);
    put(timing.ttfbMs ?? null);
    put(timing.latencyMs ?? null);
    put(null);
    put(timing.bytesOut ?? null);
    closeRun(at);
  }
  if (events.length > 0 && finalEvents === null) {
    const at = openRun(INSERT_EVENT);
    put(taskId);
    put(c.seq);
    put(events[0]!.seq);
    put(eventsJson);
    put(events[events.length - 1]!.createdAt);
    closeRun(at);
  }
  if (outbox) {
    for (const o of outbox) {
      const at = openRun(INSERT_OUTBOX);
      put(taskId);
      put(o.configId);
      put(o.seq);
      put(o.json);
      put(c.createdAt);
      put(c.createdAt);
      closeRun(at);
    }
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
 * Writes a plan of task commits (encodeBatch's) in order; the caller runs it inside one
 * transaction. A version or unique conflict throws ConcurrentUpdateError (rolling the whole batch back).
 */
export function writeBatch(statements: readonly Sqlite.Statement[], plan: readonly unknown[]): void {
  writePlan(statements, plan, noOtherStatements);
}

function noOtherStatements(sql: string): never {
  throw new Error(`a task commit's plan names no statement by its text (${sql})`);
}

/**
 * The batch as one flat array for the commit thread: per statement run, its number (as -1 - n
 * when it must change a row, followed by the task id that conflicts otherwise), the count of its
 * values, then the values. (Other writes send their SQL text in place of the number: writePlan.)
 */
export function encodeBatch(batch: readonly TaskCommit[]): unknown[] {
  return planOf(() => {
    for (let i = 0; i < batch.length; i++) encodeCommit(batch[i]!);
  });
}

/**
 * The plan `write` puts, value by value (putPlanValue), as one array at its size: encodeBatch's,
 * and the usage store's flush (sqlite-usage-store.ts). Not reentrant.
 */
export function planOf(write: () => void): unknown[] {
  try {
    write();
    return scratch.slice(0, end);
  } finally {
    // Nothing of this plan stays reachable from the long-lived array (a malformed commit's throw
    // included): its texts would survive every scavenge until the next plan overwrote them.
    scratch.fill(0, 0, end);
    end = 0;
  }
}

export const putPlanValue = put;

const NO_NEW_TASKS: readonly string[] = Object.freeze([]);

/**
 * The agent and owner of each task the batch creates, flat (agentId, owner, agentId, ...): all a
 * store's task counts need once the batch is committed, kept instead of the batch while it waits.
 */
export function newTaskOwners(batch: readonly TaskCommit[]): readonly string[] {
  let out: string[] | undefined;
  for (let i = 0; i < batch.length; i++) {
    const c = batch[i]!;
    if (c.expectedVersion === 0) (out ??= []).push(c.agentId, c.owner);
  }
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
