/**
 * How one event changes a task's projection. Pure: the engine applies it to its live copy and the
 * store persists the result beside the event, so replaying the log rebuilds the same task.
 */
import type { Artifact, Task } from '../../protocol/a2a/types.js';
import type { TaskEventPayload } from '../../store/store.js';
import { copyWith } from '../copy-with.js';

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

/** Tasks hold only JSON; a shallow-by-level copy is enough and much cheaper than structuredClone. */
export function structuredCloneTask(t: Task): Task {
  return copyWith(t, {
    status: { ...t.status },
    ...(t.artifacts ? { artifacts: t.artifacts.map(copyArtifact) } : {}),
    ...(t.history ? { history: [...t.history] } : {}),
  });
}

/**
 * The task as a caller asked to see it: `historyLength` unset → all (capped), 0 → none,
 * N → the N newest; artifacts dropped when `includeArtifacts` is false (ListTasks).
 */
export function viewTask(task: Task, opts: { historyLength?: number; maxHistory: number; includeArtifacts?: boolean }): Task {
  const limit = opts.historyLength === undefined ? opts.maxHistory : Math.min(opts.historyLength, opts.maxHistory);
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (opts.includeArtifacts !== false && task.artifacts?.length) out.artifacts = task.artifacts;
  if (limit > 0 && task.history?.length) {
    out.history = task.history.length > limit ? task.history.slice(task.history.length - limit) : task.history;
  }
  if (task.metadata) out.metadata = task.metadata;
  return out;
}
