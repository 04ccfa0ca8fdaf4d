/**
 * Mapping between the store's records and SQL rows, shared by both dialects. Every JSON document
 * is stringified exactly once per commit here, and parsed once per read.
 */
import { isTerminal, type StreamResponse, type Task, type TaskState } from '../protocol/a2a/types.js';
import type { OutboxEntry, StoredPushConfig, StoredSigningKey, StoredTask, TaskCommit, TaskEventPayload, TaskEventRecord, TaskLease } from './store.js';
import { type CompactEventsRow, compactEventJson, numberJson, resolveTaskRefs, restoreEvent, type TaskRefEventsRow } from './events-row-format.js';
import type { UsageRecord } from './usage-record.js';
import { writeJson } from '../protocol/a2a/written-json.js';
import { parseIsoTime } from './iso-time.js';
import type { PushConfigsTable, PushOutboxTable, SigningKeysTable, TaskEventsTable, TasksTable } from './schema.js';

/** A commit with its derived columns computed and its documents serialized. */
/**
 * The task's own columns: what task reads select (never `*`, which would also read the task's
 * usage record columns, migration 0023) and a new task row's insert binds, in this order.
 */
export const TASK_ROW_COLUMNS = [
  'id',
  'agent_id',
  'owner',
  'context_id',
  'state',
  'status_time',
  'created_at',
  'seq',
  'version',
  'task',
  'lease_owner',
  'lease_expires_at',
  'origin_message_id',
  'trace_parent',
  'caller',
] as const satisfies readonly (keyof TasksTable)[];

export interface PreparedCommit {
  agentId: string;
  owner: string;
  taskId: string;
  contextId: string;
  state: TaskState;
  statusTime: number;
  createdAt: number;
  seq: number;
  expectedVersion: number;
  taskJson: string;
  /** the commit's events as one task_events row (see TaskEventsTable) */
  eventsRow: { firstSeq: number; lastSeq: number; json: string; createdAt: number } | undefined;
  outbox: { configId: string; seq: number; json: string }[];
  /** written with the projection when set; undefined leaves the stored lease as it is */
  lease: TaskLease | undefined;
  originMessageId: string | null;
  traceParent: string | null;
  caller: string | null;
  /** the task's usage record (TaskCommit.usage), upserted in the same transaction */
  usage: UsageRecord | undefined;
}

/** ListTasks sorts on the status timestamp; a task without one sorts by when it was committed. */
export function statusTimeOf(task: Task, fallback: number): number {
  const ts = task.status.timestamp;
  if (ts === undefined) return fallback;
  const ms = parseIsoTime(ts);
  return Number.isFinite(ms) ? ms : fallback;
}

export function prepareCommit(c: TaskCommit): PreparedCommit {
  checkCommit(c);
  const taskId = c.task.id;
  const n = c.events.length;
  let eventsJson = '';
  let outbox: PreparedCommit['outbox'] = [];
  if (c.outbox.length > 0) ({ eventsJson, outbox } = withOutbox(c));
  else eventsJson = plainEventsJson(c);
  return {
    agentId: c.agentId,
    owner: c.owner,
    taskId,
    contextId: c.task.contextId,
    state: c.task.status.state,
    statusTime: statusTimeOf(c.task, c.createdAt),
    createdAt: c.createdAt,
    seq: c.seq,
    expectedVersion: c.expectedVersion,
    // remembered for the task: a blocking send answers with this same committed copy (ADR 0049)
    taskJson: writeJson(c.task),
    eventsRow: n === 0 ? undefined : { firstSeq: c.events[0]!.seq, lastSeq: c.seq, json: eventsJson, createdAt: c.events[n - 1]!.createdAt },
    outbox,
    lease: c.lease,
    originMessageId: c.expectedVersion === 0 ? (c.originMessageId ?? null) : null,
    traceParent: c.expectedVersion === 0 ? (c.traceParent ?? null) : null,
    caller: c.expectedVersion === 0 ? (c.caller ?? null) : null,
    usage: c.usage,
  };
}

/**
 * Refuses a malformed commit: the log must stay gapless and belong to this task. That is a core
 * bug, and refusing it before anything is written keeps it out of the log (the whole batch fails).
 */
export function checkCommit(c: TaskCommit): void {
  const taskId = c.task.id;
  const n = c.events.length;
  for (let i = 0; i < n; i++) {
    const e = c.events[i]!;
    if (e.taskId !== taskId) throw new Error(`event for task ${e.taskId} committed with task ${taskId}`);
    if (i > 0 && e.seq !== c.events[i - 1]!.seq + 1) throw new Error(`events of task ${taskId} are not consecutive`);
  }
  if (n > 0 && c.events[n - 1]!.seq !== c.seq) {
    throw new Error(`task ${taskId}: commit seq ${c.seq} is not the last event seq`);
  }
  if (c.usage && c.usage.id !== taskId) throw new Error(`usage record ${c.usage.id} committed with task ${taskId}`);
}

/** The events row's text of a commit without push deliveries (eventsRowJson), '' for a commit without events. */
export function plainEventsJson(c: TaskCommit): string {
  return c.events.length === 0 ? '' : eventsRowJson(c.events, c.task, c.seq);
}

/**
 * The events row of a commit without push deliveries (nearly all): `{"c":contextId,"e":[[createdAt,
 * event], …]}` in one serialisation, each event with the task's ids stated once (events-row-format.ts).
 * A commit that brings its task to a terminal state writes `{"t":seq,"e":[…]}` instead: what its
 * task row holds is referred to, not repeated (ADR 0050). A commit with push deliveries writes the
 * full form, `[[createdAt, event], …]`, built from the per-event strings its outbox payloads need
 * anyway; the reader takes all three (toEventRecords).
 */
function eventsRowJson(events: readonly TaskEventRecord[], task: Task, seq: number): string {
  const ref = isTerminal(task.status.state) ? task : undefined;
  // The text `JSON.stringify` makes of `{t: seq, e: pairs}` or `{c: contextId, e: pairs}`, each pair
  // `[createdAt, compactEvent(…)]`, written without building the pairs (ADR 0066).
  // Its pieces joined once: the text comes out flat. Concatenated piece by piece it was a tree of
  // ~20 cons strings, copied flat again when the plan is posted to the commit thread (issue 26:
  // ~1 KB of a blocking echo's allocation). The pieces' array is pushed from empty: its first push
  // allocates room for 17 pieces (up to 3 events: the blocking echo's terminal commit), and it stays
  // packed. Made at its size with `new Array(n)`, it was holey, and V8 joins a holey array at half
  // the speed: ~2 k instructions more a commit (bare32).
  const n = events.length;
  const parts: string[] = [];
  parts.push(ref ? `{"t":${numberJson(seq)},"e":[` : `{"c":${JSON.stringify(task.contextId)},"e":[`);
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    parts.push(i === 0 ? '[' : '],[', numberJson(e.createdAt), ',', compactEventJson(e.event, task.id, task.contextId, ref));
  }
  parts.push(n === 0 ? ']}' : ']]}');
  return parts.join('');
}

/** Whether an events row refers to its task row (a terminal commit's, ADR 0050): its reader needs that row (toEventRecords). */
export function refersToTaskRow(eventsJson: string): boolean {
  return eventsJson.startsWith('{"t":');
}

/** With push deliveries queued: each event serialised once, shared by the events row and the outbox payloads that announce it. */
export function withOutbox(c: TaskCommit): { eventsJson: string; outbox: PreparedCommit['outbox'] } {
  const eventJson = c.events.map((e) => JSON.stringify(e.event));
  const outbox = new Array<PreparedCommit['outbox'][number]>(c.outbox.length);
  for (let i = 0; i < c.outbox.length; i++) {
    const o = c.outbox[i]!;
    if (o.taskId !== c.task.id) throw new Error(`outbox entry for task ${o.taskId} committed with task ${c.task.id}`);
    // A push payload is usually the very event object it announces: reuse that serialization.
    const j = c.events.findIndex((e) => e.event === o.payload);
    outbox[i] = { configId: o.configId, seq: o.seq, json: j >= 0 ? eventJson[j]! : JSON.stringify(o.payload) };
  }
  const eventsJson = c.events.length === 0 ? '' : `[${c.events.map((e, i) => `[${e.createdAt},${eventJson[i]}]`).join(',')}]`;
  return { eventsJson, outbox };
}

export function toStoredTask(row: TasksTable): StoredTask {
  return {
    agentId: row.agent_id,
    owner: row.owner,
    task: JSON.parse(row.task) as Task,
    seq: Number(row.seq),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    statusTime: Number(row.status_time),
    ...(row.lease_owner === null || row.lease_owner === undefined ? {} : { lease: { owner: row.lease_owner, expiresAt: Number(row.lease_expires_at) } }),
    ...(row.trace_parent ? { traceParent: row.trace_parent } : {}),
    ...(row.caller ? { caller: row.caller } : {}),
  };
}

/** The task row a reader passes to toEventRecords for a row that refers to it: its seq and task text. */
export interface TaskRowText {
  seq: number | string;
  task: string;
  /** the terminal commit's events when the task row holds them (migration 0027, ADR 0057) */
  final_events?: string | null;
}

/**
 * The events a task row holds (final_events, ADR 0057): those of the commit that made it terminal,
 * the `e.length` seqs up to its `t` (which is the row's seq). None when it holds none.
 */
export function taskRowEventRecords(taskId: string, taskRow: TaskRowText): TaskEventRecord[] {
  const text = taskRow.final_events;
  if (text === null || text === undefined) return [];
  const parsed = JSON.parse(text) as TaskRefEventsRow;
  return eventsOf(taskId, parsed.t - parsed.e.length + 1, parsed, taskRow);
}

/**
 * Whether a log read needs the task row after its task_events rows (`limit` as the rows were
 * selected with): they did not fill the limit, so the log may go on in final_events (ADR 0057), or
 * one of them refers to the task row (ADR 0050).
 */
export function logNeedsTaskRow(rows: readonly TaskEventsTable[], limit: number | undefined): boolean {
  return limit === undefined || rows.length < limit || rows.some((r) => refersToTaskRow(r.events));
}

/**
 * A task's log after `afterSeq`, at most `limit` events: its task_events rows (in seq order, those
 * with seq > afterSeq, at most `limit` of them) then the events its task row holds (final_events,
 * which follow every row). `taskRow`: the task row as logNeedsTaskRow asked for it, else undefined.
 */
export function eventLog(taskId: string, rows: readonly TaskEventsTable[], taskRow: TaskRowText | undefined, afterSeq: number, limit: number | undefined): TaskEventRecord[] {
  const events = rows.flatMap((r) => toEventRecords(r, taskRow));
  // Fewer rows than the limit: the log may go on in the task row, after every row.
  const upToTaskRow = limit === undefined || rows.length < limit;
  if (upToTaskRow && taskRow && Number(taskRow.seq) > afterSeq) for (const e of taskRowEventRecords(taskId, taskRow)) events.push(e);
  const after = events.filter((e) => e.seq > afterSeq);
  return limit !== undefined && after.length > limit ? after.slice(0, limit) : after;
}

/**
 * The events of one task_events row, in seq order; any form (eventsRowJson). A row that refers to
 * its task row (refersToTaskRow) needs `taskRow`: the task row as stored, still at the row's seq.
 */
export function toEventRecords(row: TaskEventsTable, taskRow?: TaskRowText): TaskEventRecord[] {
  return eventsOf(row.task_id, Number(row.first_seq), JSON.parse(row.events) as Array<[number, TaskEventPayload]> | CompactEventsRow | TaskRefEventsRow, taskRow);
}

function eventsOf(taskId: string, first: number, parsed: Array<[number, TaskEventPayload]> | CompactEventsRow | TaskRefEventsRow, taskRow: TaskRowText | undefined): TaskEventRecord[] {
  let pairs: Array<[number, TaskEventPayload]>;
  let contextId: string | undefined;
  let task: Task | undefined;
  if (Array.isArray(parsed)) pairs = parsed;
  else if ('t' in parsed) {
    // A terminal task is never committed again: its row is still the one this row was written with.
    if (!taskRow || Number(taskRow.seq) !== parsed.t) {
      throw new Error(`task ${taskId}: events row ${first}-${first + parsed.e.length - 1} refers to the task row at seq ${parsed.t}, found ${taskRow ? `seq ${taskRow.seq}` : 'none'}`);
    }
    // parsed for this row alone: its events may share the task's values, nothing else holds them
    task = JSON.parse(taskRow.task) as Task;
    contextId = task.contextId;
    pairs = parsed.e;
  } else {
    contextId = parsed.c;
    pairs = parsed.e;
  }
  const out = new Array<TaskEventRecord>(pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    const [createdAt, event] = pairs[i]!;
    if (task) resolveTaskRefs(event, task);
    if (contextId !== undefined) restoreEvent(event, taskId, contextId);
    out[i] = { taskId, seq: first + i, event, createdAt };
  }
  return out;
}

export function toStoredPushConfig(row: PushConfigsTable): StoredPushConfig {
  return {
    agentId: row.agent_id,
    owner: row.owner,
    taskId: row.task_id,
    config: JSON.parse(row.config) as StoredPushConfig['config'],
    createdAt: Number(row.created_at),
  };
}

export type OutboxRow = Pick<PushOutboxTable, 'task_id' | 'config_id' | 'seq' | 'payload' | 'next_attempt_at'> & {
  id: number;
  attempts: number;
};

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  return {
    id: Number(row.id),
    taskId: row.task_id,
    configId: row.config_id,
    seq: Number(row.seq),
    payload: JSON.parse(row.payload) as StreamResponse,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
  };
}

export function toStoredSigningKey(row: SigningKeysTable): StoredSigningKey {
  return {
    kid: row.kid,
    generation: Number(row.generation),
    privateJwk: row.private_jwk,
    createdAt: Number(row.created_at),
  };
}
