/**
 * How one event changes a task's projection. Pure: the engine applies it to its live copy and the
 * store persists the result beside the event, so replaying the log rebuilds the same task.
 */
import type { Artifact, Task } from '../../protocol/a2a/types.js';
import type { TaskEventPayload } from '../../store/store.js';
import { copyWith } from '../copy-with.js';
import { hasWrittenJson } from '../../protocol/a2a/written-json.js';

export function applyEvent(task: Task, event: TaskEventPayload): Task {
  if ('task' in event) return structuredCloneTask(event.task);
  if ('userMessage' in event) {
    (task.history ??= []).push(event.userMessage);
    return task;
  }
  if ('message' in event) {
    (task.history ??= []).push(event.message);
    return task;
  }
  if ('statusUpdate' in event) {
    const status = event.statusUpdate.status;
    task.status = status;
    if (status.message) (task.history ??= []).push(status.message);
    return task;
  }
  const { artifact, append } = event.artifactUpdate;
  // A task's first artifact (nearly every task has one) in a list of its length: pushed into an
  // empty list, it took a backing store of 17 slots, ~110 B kept with the task through every
  // scavenge of its run (issue 26, docs/benchmarks.md alloc33). The empty list is the working
  // copy's own (workingCopyFor, structuredCloneTask): no one else holds it.
  if (task.artifacts === undefined || task.artifacts.length === 0) {
    task.artifacts = [copyArtifact(artifact)];
    return task;
  }
  const artifacts = task.artifacts;
  // a loop, not findIndex: its callback was a closure and a scope made per artifact event
  let i = 0;
  while (i < artifacts.length && artifacts[i]!.artifactId !== artifact.artifactId) i++;
  if (i === artifacts.length) {
    artifacts.push(copyArtifact(artifact));
  } else if (append) {
    const existing = artifacts[i]!;
    artifacts[i] = copyWith(existing, { parts: [...existing.parts, ...artifact.parts] });
  } else {
    artifacts[i] = copyArtifact(artifact);
  }
  return task;
}

function copyArtifact(a: Artifact): Artifact {
  return copyWith(a, { parts: [...a.parts] });
}

/**
 * Tasks hold only JSON; a shallow-by-level copy is enough and much cheaper than structuredClone.
 * The copy has its fields in the order a caller's view writes them (viewTask: id, contextId,
 * status, artifacts, history, metadata), whatever order the working copy gathered them in (its
 * first artifact comes after its history): a committed copy is then its own view, and the text
 * the store wrote for it is the answer's (ADR 0049). Any other field follows, as it was.
 */
export function structuredCloneTask(t: Task, withArtifacts = false): Task {
  const out: Task = { id: t.id, contextId: t.contextId, status: { ...t.status } };
  if (t.artifacts) {
    // pushed, not `map`ped: an optimised `map` makes a holey array, which JSON.stringify (the store's
    // task row) serialises through its slow path, element by element. One artifact (the usual) in a
    // literal of its length: pushed, it took 17 slots (issue 26, alloc33).
    if (t.artifacts.length === 1) out.artifacts = [copyArtifact(t.artifacts[0]!)];
    else {
      const artifacts: Artifact[] = (out.artifacts = []);
      for (const a of t.artifacts) artifacts.push(copyArtifact(a));
    }
  } else if (withArtifacts) {
    out.artifacts = [];
  }
  if (t.history) out.history = [...t.history];
  if (t.metadata !== undefined) out.metadata = t.metadata;
  for (const key in t) {
    if (!isViewField(key)) (out as unknown as Record<string, unknown>)[key] = (t as unknown as Record<string, unknown>)[key];
  }
  return out;
}

/**
 * The task log's working copy, made ready for `event` (then applied with applyEvent). A copy a commit
 * took as its committed copy is never changed (the store's text of it is an answer's: ADR 0049), so
 * it is copied first. A first artifact gets its place before the history, as a commit's copy has
 * it: the working copy then stays in that order, and its commit takes it as it is instead of a copy
 * of the whole task (TaskLog.flush, isInCommitOrder). Only the task object is made anew for that
 * place; its status, history and artifacts are its own already.
 */
export function workingCopyFor(task: Task, event: TaskEventPayload, committed: boolean): Task {
  if ('task' in event) return task;
  const firstArtifact = task.artifacts === undefined && 'artifactUpdate' in event;
  if (committed) return structuredCloneTask(task, firstArtifact);
  if (!firstArtifact) return task;
  // the history in the literal when there is one: added after it, it took a backing store of its own
  const out: Task = task.history ? { id: task.id, contextId: task.contextId, status: task.status, artifacts: [], history: task.history } : { id: task.id, contextId: task.contextId, status: task.status, artifacts: [] };
  if (task.metadata !== undefined) out.metadata = task.metadata;
  for (const key in task) {
    if (!isViewField(key)) (out as unknown as Record<string, unknown>)[key] = (task as unknown as Record<string, unknown>)[key];
  }
  return out;
}

/**
 * Whether structuredCloneTask would write `task`'s fields in the order it has them, each kept: the
 * view's fields first in the view's order, then any other. The copy's JSON text is then `task`'s.
 */
export function isInCommitOrder(task: Task): boolean {
  let next = 0;
  let others = false;
  for (const key in task) {
    const at = viewFieldIndex(key);
    if (at < 0) {
      others = true;
      continue;
    }
    if (others || at < next) return false;
    next = at + 1;
    if (!copiedAsIs(task, key)) return false;
  }
  // the copy always has id, contextId and status, in that order
  return next >= 3 && 'id' in task && 'contextId' in task && 'status' in task;
}

/** Whether structuredCloneTask writes view field `key` of `task` (with the same text). */
function copiedAsIs(task: Task, key: string): boolean {
  switch (key) {
    case 'status':
      return typeof task.status === 'object' && task.status !== null;
    case 'artifacts':
      return !!task.artifacts;
    case 'history':
      return !!task.history;
    case 'metadata':
      return task.metadata !== undefined;
    default:
      return true;
  }
}

function viewFieldIndex(key: string): number {
  switch (key) {
    case 'id':
      return 0;
    case 'contextId':
      return 1;
    case 'status':
      return 2;
    case 'artifacts':
      return 3;
    case 'history':
      return 4;
    case 'metadata':
      return 5;
    default:
      return -1;
  }
}

function isViewField(key: string): boolean {
  return key === 'id' || key === 'contextId' || key === 'status' || key === 'artifacts' || key === 'history' || key === 'metadata';
}

/**
 * The task as a caller asked to see it: `historyLength` unset → all (capped), 0 → none,
 * N → the N newest; artifacts dropped when `includeArtifacts` is false (ListTasks). A committed
 * copy the store wrote (it never changes after: writeJson) that is already its own view (nothing
 * to drop, its fields in the view's order) is returned as it is, so the text the store wrote is
 * the answer's (ADR 0049). Never a working copy: it changes under a view queued on a stream.
 */
export function viewTask(task: Task, opts: { historyLength?: number; maxHistory: number; includeArtifacts?: boolean }): Task {
  const limit = opts.historyLength === undefined ? opts.maxHistory : Math.min(opts.historyLength, opts.maxHistory);
  const withArtifacts = opts.includeArtifacts !== false;
  if (hasWrittenJson(task) && isOwnView(task, limit, withArtifacts)) return task;
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (withArtifacts && task.artifacts?.length) out.artifacts = task.artifacts;
  if (limit > 0 && task.history?.length) {
    out.history = task.history.length > limit ? task.history.slice(task.history.length - limit) : task.history;
  }
  if (task.metadata) out.metadata = task.metadata;
  return out;
}

/** The view's fields, in its order; each must hold what the view would copy, unchanged. */
const VIEW_ORDER = ['id', 'contextId', 'status', 'artifacts', 'history', 'metadata'] as const;

/**
 * Whether the view of `task` would have exactly its own fields, in its own order, with the same
 * values: then the view's text is the task's, byte for byte.
 */
function isOwnView(task: Task, limit: number, withArtifacts: boolean): boolean {
  let next = 0;
  for (const key in task) {
    // the fields must come in the view's order; one that is not a view field is dropped by it
    while (next < VIEW_ORDER.length && VIEW_ORDER[next] !== key) next++;
    if (next === VIEW_ORDER.length) return false;
    next++;
    if (key === 'artifacts' && !(withArtifacts && task.artifacts?.length)) return false;
    if (key === 'history' && !(task.history?.length && task.history.length <= limit)) return false;
    if (key === 'metadata' && !task.metadata) return false;
  }
  return 'id' in task && 'contextId' in task && 'status' in task;
}
