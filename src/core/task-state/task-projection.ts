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
  const artifacts = (task.artifacts ??= []);
  const i = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  if (i < 0) {
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
export function structuredCloneTask(t: Task): Task {
  const out: Task = { id: t.id, contextId: t.contextId, status: { ...t.status } };
  if (t.artifacts) {
    // pushed, not `map`ped: an optimised `map` makes a holey array, which JSON.stringify (the store's
    // task row) serialises through its slow path, element by element
    const artifacts: Artifact[] = (out.artifacts = []);
    for (const a of t.artifacts) artifacts.push(copyArtifact(a));
  }
  if (t.history) out.history = [...t.history];
  if (t.metadata !== undefined) out.metadata = t.metadata;
  for (const key in t) {
    if (!isViewField(key)) (out as unknown as Record<string, unknown>)[key] = (t as unknown as Record<string, unknown>)[key];
  }
  return out;
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
