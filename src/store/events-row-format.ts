/**
 * The compact form of a task_events row: the task's id and context id stated once for the row,
 * not in every event (issue 26: in an echo's row of three events they were eight of its strings,
 * ~45 % of its bytes, each serialised by `JSON.stringify` and written to the WAL again).
 *
 * The row is `{"c": contextId, "e": [[createdAt, event], …]}`; the task id is the row's key. In an
 * event, an id field holding the row's id is written as the number `0` instead: an id field is a
 * string in every valid event, so `0` there is unambiguous, and the field keeps its place, so an
 * event reads back with the same fields in the same order (a stream replayed from the log is the
 * same text that was sent live). A field with any other value is written as it is.
 *
 * The row of a commit that brings its task to a terminal state also leaves out what the task row
 * of the same commit already holds (ADR 0050, migration 0025): `{"t": seq, "e": [...]}`, where `t`
 * is the task row's seq (the commit's last event), and the context id is the task row's. In it, a
 * message that is the task's `history[i]` (the same object) is written as the number `i`, a status
 * with the task's status fields (the same values, in the same order) as `0`, an artifact with the
 * fields of the task's `artifacts[i]` (its parts the same objects) as `i`. A message, a status and
 * an artifact are objects in every valid event, so a number there is unambiguous; it reads back
 * as the task row's own value, which is the same JSON text. A terminal task is never committed
 * again, so its row keeps that text; the reader checks the row's seq is still `t`.
 */
import type { Artifact, Message, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent, Task } from '../protocol/a2a/types.js';
import type { TaskEventPayload } from './task-event-record.js';

/** What the row's text parses to; an event in `e` still has its ids as `0`. */
export interface CompactEventsRow {
  c: string;
  e: Array<[number, TaskEventPayload]>;
}

/** A row that refers to its task row (a terminal commit's): the task row's seq, no context id. */
export interface TaskRefEventsRow {
  t: number;
  e: Array<[number, TaskEventPayload]>;
}

/** A record whose id fields may hold the `0` that stands for the row's id. */
type Loose = Record<string, unknown>;

/**
 * The event to serialise in a compact row: a shallow copy wherever an id or a part is replaced,
 * the event itself elsewhere (never mutated). With `task` (the committed task of a terminal
 * commit, whose row the events row then refers to), what it holds is written as a reference.
 */
export function compactEvent(event: TaskEventPayload, taskId: string, contextId: string, task?: Task): unknown {
  if ('statusUpdate' in event) return { statusUpdate: compactUpdate(event.statusUpdate, taskId, contextId, task) };
  if ('artifactUpdate' in event) return { artifactUpdate: compactUpdate(event.artifactUpdate, taskId, contextId, task) };
  if ('task' in event) return { task: compactTask(event.task, taskId, contextId, task) };
  if ('message' in event) return { message: compactMessage(event.message, taskId, contextId, task) };
  if ('userMessage' in event) return { userMessage: compactMessage(event.userMessage, taskId, contextId, task) };
  return event;
}

function compactUpdate(u: TaskStatusUpdateEvent | TaskArtifactUpdateEvent, taskId: string, contextId: string, task: Task | undefined): Loose {
  const out: Loose = { ...u };
  if (u.taskId === taskId) out.taskId = 0;
  if (u.contextId === contextId) out.contextId = 0;
  if ('status' in u) out.status = compactStatus(u.status, taskId, contextId, task);
  else if (task) out.artifact = artifactRef(u.artifact, task);
  return out;
}

function compactTask(t: Task, taskId: string, contextId: string, task: Task | undefined): Loose {
  const out: Loose = { ...t };
  if (t.id === taskId) out.id = 0;
  if (t.contextId === contextId) out.contextId = 0;
  out.status = compactStatus(t.status, taskId, contextId, task);
  // pushed, not `map`ped: an optimised `map` makes a holey array, which JSON.stringify serialises slowly (rows.ts)
  if (task && t.artifacts) {
    const artifacts: unknown[] = (out.artifacts = []);
    for (const a of t.artifacts) artifacts.push(artifactRef(a, task));
  }
  if (t.history) {
    const history: unknown[] = (out.history = []);
    for (const m of t.history) history.push(compactMessage(m, taskId, contextId, task));
  }
  return out;
}

function compactStatus(s: TaskStatus, taskId: string, contextId: string, task: Task | undefined): TaskStatus | Loose | number {
  if (task && sameFields(s, task.status)) return 0;
  return s.message === undefined ? s : { ...s, message: compactMessage(s.message, taskId, contextId, task) };
}

function compactMessage(m: Message, taskId: string, contextId: string, task?: Task): Message | Loose | number {
  if (task?.history) {
    const i = task.history.indexOf(m);
    if (i >= 0) return i;
  }
  const t = m.taskId === taskId;
  const c = m.contextId === contextId;
  if (!t && !c) return m;
  const out: Loose = { ...m };
  if (t) out.taskId = 0;
  if (c) out.contextId = 0;
  return out;
}

/** The task's artifact with the same fields (parts the same objects) as `a`, by its index; else `a`. */
function artifactRef(a: Artifact, task: Task): Artifact | number {
  const artifacts = task.artifacts;
  if (!artifacts) return a;
  for (let i = 0; i < artifacts.length; i++) {
    const b = artifacts[i]!;
    if (b.artifactId === a.artifactId) return sameFields(a, b) ? i : a;
  }
  return a;
}

/**
 * Whether two objects serialise to the same text without serialising them: the same keys in the
 * same order, each value the same (an array of parts: the same parts, in order). The keys are
 * walked with `for…in` into one array kept for every call, not taken by `Object.keys`, whose two
 * arrays every terminal commit allocated up to three times (issue 26). Property keys are
 * internalized strings, which live in the old generation: the array keeps nothing young alive.
 */
function sameFields(a: object, b: object): boolean {
  let n = 0;
  for (const k in a) {
    // an inherited enumerable key, which `Object.keys` leaves out: compared as it does
    if (!Object.hasOwn(a, k)) return sameOwnFields(a, b);
    keysOfA[n++] = k;
  }
  let i = 0;
  for (const k in b) {
    if (!Object.hasOwn(b, k)) return sameOwnFields(a, b);
    if (i >= n || k !== keysOfA[i]) return false;
    i++;
  }
  if (i !== n) return false;
  for (let j = 0; j < n; j++) if (!sameValue(keysOfA[j]!, (a as Loose)[keysOfA[j]!], (b as Loose)[keysOfA[j]!])) return false;
  return true;
}

const keysOfA: string[] = [];

/** sameFields through `Object.keys`, for objects with inherited enumerable keys. */
function sameOwnFields(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameValue(k, (a as Loose)[k], (b as Loose)[k])) return false;
  }
  return true;
}

/** Two values of field `k` serialise the same: the same value, or for `parts` arrays of the same parts. */
function sameValue(k: string, va: unknown, vb: unknown): boolean {
  if (va === vb) return true;
  if (k !== 'parts' || !Array.isArray(va) || !Array.isArray(vb) || va.length !== vb.length) return false;
  for (let j = 0; j < va.length; j++) if (va[j] !== vb[j]) return false;
  return true;
}

/**
 * `JSON.stringify(compactEvent(event, taskId, contextId, task))`, the same text (ADR 0066). An update
 * that is nothing but references, `{taskId, contextId, status}` or `{taskId, contextId, artifact}`
 * with the row's ids and the task row's status or artifact (two of the echo's three events in a
 * terminal commit), is written without its copy and without `JSON.stringify`: V8's serialiser looks
 * up `toJSON` on each object through its prototypes, and the echo's row of three events cost ~24 k
 * instructions (issue 26). Every other event is its compact copy, serialised.
 */
export function compactEventJson(event: TaskEventPayload, taskId: string, contextId: string, task?: Task): string {
  if (task) {
    if ('task' in event) {
      const text = taskRefsJson(event.task, taskId, contextId, task);
      if (text !== undefined) return text;
    } else if ('statusUpdate' in event) {
      const u = event.statusUpdate;
      if (onlyRefs(u, 'status', taskId, contextId) && sameFields(u.status, task.status)) return STATUS_REF;
    } else if ('artifactUpdate' in event) {
      const u = event.artifactUpdate;
      if (onlyRefs(u, 'artifact', taskId, contextId)) {
        const ref = artifactRef(u.artifact, task);
        if (typeof ref === 'number') return `{"artifactUpdate":{"taskId":0,"contextId":0,"artifact":${ref}}}`;
      }
    }
  }
  return JSON.stringify(compactEvent(event, taskId, contextId, task));
}

const STATUS_REF = '{"statusUpdate":{"taskId":0,"contextId":0,"status":0}}';

/**
 * A task event of exactly `{id, contextId, status, history}` (a task's first event, as the core makes
 * it), its ids the row's and every message of its history one the task row holds: `compactTask`'s
 * text with only its status serialised (a status without a message; else undefined, the copy is).
 */
function taskRefsJson(t: Task, taskId: string, contextId: string, task: Task): string | undefined {
  if (t.id !== taskId || t.contextId !== contextId || !t.history || !task.history) return undefined;
  if (!hasKeysInOrder(t, TASK_REF_KEYS)) return undefined;
  let history = '';
  for (const m of t.history) {
    const i = task.history.indexOf(m);
    if (i < 0) return undefined;
    history += history === '' ? String(i) : `,${i}`;
  }
  const s = t.status;
  const status = sameFields(s, task.status) ? '0' : s.message === undefined ? statusJson(s) : undefined;
  if (status === undefined) return undefined;
  return `{"task":{"id":0,"contextId":0,"status":${status},"history":[${history}]}}`;
}

/**
 * `JSON.stringify(s)` for a status without a message. The usual one, `{state, timestamp}` (the
 * first event's SUBMITTED status in a terminal commit's row), is written here: a `JSON.stringify`
 * call costs ~2.5 k instructions before its first character, ~4.5 k for this status (issue 26).
 * Anything else, or a string JSON would escape, is serialised by `JSON.stringify`.
 */
function statusJson(s: TaskStatus): string {
  let keys = 0;
  for (const key in s) {
    if (!Object.hasOwn(s, key)) return JSON.stringify(s);
    if (!(keys === 0 ? key === 'state' : keys === 1 && key === 'timestamp')) return JSON.stringify(s);
    keys++;
  }
  const { state, timestamp } = s;
  if (!isPlainJsonString(state)) return JSON.stringify(s);
  if (keys === 1) return `{"state":"${state}"}`;
  if (!isPlainJsonString(timestamp)) return JSON.stringify(s);
  return `{"state":"${state}","timestamp":"${timestamp}"}`;
}

/**
 * Whether `v` is a string JSON writes as it is between two quotes: no control character, quote or
 * backslash, and no surrogate (a lone one is escaped; a pair is left to JSON.stringify too).
 */
function isPlainJsonString(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c & 0xf800) === 0xd800) return false;
  }
  return true;
}

/** Whether an update has exactly the fields `taskId`, `contextId` and `last`, in that order, its ids the row's. */
function onlyRefs(u: TaskStatusUpdateEvent | TaskArtifactUpdateEvent, last: 'status' | 'artifact', taskId: string, contextId: string): boolean {
  if (u.taskId !== taskId || u.contextId !== contextId) return false;
  return hasKeysInOrder(u, last === 'status' ? STATUS_REF_KEYS : ARTIFACT_REF_KEYS);
}

const TASK_REF_KEYS = ['id', 'contextId', 'status', 'history'] as const;
const STATUS_REF_KEYS = ['taskId', 'contextId', 'status'] as const;
const ARTIFACT_REF_KEYS = ['taskId', 'contextId', 'artifact'] as const;

/**
 * Whether `o`'s own enumerable keys are exactly `keys`, in that order (the order JSON.stringify
 * writes them in), walked with `for…in` rather than compared through `Object.keys`, whose array
 * every event of every commit allocated (issue 26). An inherited enumerable key, which `for…in`
 * visits too, is a difference.
 */
function hasKeysInOrder(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) {
    if (i >= keys.length || k !== keys[i] || !Object.hasOwn(o, k)) return false;
    i++;
  }
  return i === keys.length;
}

/** A finite number as `JSON.stringify` writes it (`String` does the same, through V8's number-string cache); else `null`. */
export function numberJson(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/**
 * Puts the task row's values back where a row that refers to it (TaskRefEventsRow) has numbers, in
 * place; before restoreEvent, which then finds the task's ids already in them.
 */
export function resolveTaskRefs(event: TaskEventPayload, task: Task): void {
  if ('statusUpdate' in event) {
    const u = event.statusUpdate as unknown as Loose;
    u.status = statusOf(u.status, task);
  } else if ('artifactUpdate' in event) {
    const u = event.artifactUpdate as unknown as Loose;
    if (typeof u.artifact === 'number') u.artifact = artifactAt(task, u.artifact);
  } else if ('task' in event) {
    const t = event.task as unknown as Loose;
    t.status = statusOf(t.status, task);
    if (Array.isArray(t.artifacts)) t.artifacts = t.artifacts.map((a: unknown) => (typeof a === 'number' ? artifactAt(task, a) : a));
    if (Array.isArray(t.history)) t.history = t.history.map((m: unknown) => messageOf(m, task));
  } else if ('message' in event) (event as Loose).message = messageOf(event.message, task);
  else if ('userMessage' in event) (event as Loose).userMessage = messageOf(event.userMessage, task);
}

function statusOf(s: unknown, task: Task): unknown {
  if (s === 0) return task.status;
  const status = s as Loose;
  if (status.message !== undefined) status.message = messageOf(status.message, task);
  return status;
}

function messageOf(m: unknown, task: Task): unknown {
  if (typeof m !== 'number') return m;
  const found = task.history?.[m];
  if (!found) throw new Error(`task ${task.id}: its events row refers to history[${m}], which its task row does not hold`);
  return found;
}

function artifactAt(task: Task, i: number): Artifact {
  const found = task.artifacts?.[i];
  if (!found) throw new Error(`task ${task.id}: its events row refers to artifacts[${i}], which its task row does not hold`);
  return found;
}

/** Puts the row's ids back into a parsed event, in place (the parse made it; nothing else holds it). */
export function restoreEvent(event: TaskEventPayload, taskId: string, contextId: string): void {
  if ('statusUpdate' in event) {
    restoreIds(event.statusUpdate as unknown as Loose, 'taskId', taskId, contextId);
    restoreStatus(event.statusUpdate.status, taskId, contextId);
  } else if ('artifactUpdate' in event) restoreIds(event.artifactUpdate as unknown as Loose, 'taskId', taskId, contextId);
  else if ('task' in event) {
    restoreIds(event.task as unknown as Loose, 'id', taskId, contextId);
    restoreStatus(event.task.status, taskId, contextId);
    if (event.task.history) for (const m of event.task.history) restoreIds(m as unknown as Loose, 'taskId', taskId, contextId);
  } else if ('message' in event) restoreIds(event.message as unknown as Loose, 'taskId', taskId, contextId);
  else if ('userMessage' in event) restoreIds(event.userMessage as unknown as Loose, 'taskId', taskId, contextId);
}

function restoreStatus(s: TaskStatus | undefined, taskId: string, contextId: string): void {
  if (s?.message) restoreIds(s.message as unknown as Loose, 'taskId', taskId, contextId);
}

function restoreIds(o: Loose, taskKey: 'id' | 'taskId', taskId: string, contextId: string): void {
  if (o[taskKey] === 0) o[taskKey] = taskId;
  if (o.contextId === 0) o.contextId = contextId;
}
