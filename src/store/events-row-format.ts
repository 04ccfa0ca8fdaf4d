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
 */
import type { Message, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent, Task } from '../protocol/a2a/types.js';
import type { TaskEventPayload } from './task-event-record.js';

/** What the row's text parses to; an event in `e` still has its ids as `0`. */
export interface CompactEventsRow {
  c: string;
  e: Array<[number, TaskEventPayload]>;
}

/** A record whose id fields may hold the `0` that stands for the row's id. */
type Loose = Record<string, unknown>;

/** The event to serialise in a compact row: a shallow copy wherever an id is replaced, the event itself elsewhere (never mutated). */
export function compactEvent(event: TaskEventPayload, taskId: string, contextId: string): unknown {
  if ('statusUpdate' in event) return { statusUpdate: compactUpdate(event.statusUpdate, taskId, contextId) };
  if ('artifactUpdate' in event) return { artifactUpdate: compactUpdate(event.artifactUpdate, taskId, contextId) };
  if ('task' in event) return { task: compactTask(event.task, taskId, contextId) };
  if ('message' in event) return { message: compactMessage(event.message, taskId, contextId) };
  if ('userMessage' in event) return { userMessage: compactMessage(event.userMessage, taskId, contextId) };
  return event;
}

function compactUpdate(u: TaskStatusUpdateEvent | TaskArtifactUpdateEvent, taskId: string, contextId: string): Loose {
  const out: Loose = { ...u };
  if (u.taskId === taskId) out.taskId = 0;
  if (u.contextId === contextId) out.contextId = 0;
  if ('status' in u) out.status = compactStatus(u.status, taskId, contextId);
  return out;
}

function compactTask(t: Task, taskId: string, contextId: string): Loose {
  const out: Loose = { ...t };
  if (t.id === taskId) out.id = 0;
  if (t.contextId === contextId) out.contextId = 0;
  out.status = compactStatus(t.status, taskId, contextId);
  if (t.history) out.history = t.history.map((m) => compactMessage(m, taskId, contextId));
  return out;
}

function compactStatus(s: TaskStatus, taskId: string, contextId: string): TaskStatus | Loose {
  return s.message === undefined ? s : { ...s, message: compactMessage(s.message, taskId, contextId) };
}

function compactMessage(m: Message, taskId: string, contextId: string): Message | Loose {
  const t = m.taskId === taskId;
  const c = m.contextId === contextId;
  if (!t && !c) return m;
  const out: Loose = { ...m };
  if (t) out.taskId = 0;
  if (c) out.contextId = 0;
  return out;
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
