/**
 * A task as the A2A JSON-RPC binding shows it (v1.0), and how one stream event changes it: the task
 * page keeps one such value and folds each SubscribeToTask event into it.
 */
import type { Part, StreamEvent } from './a2a-stream.js';

export interface TaskMessage {
  messageId?: string;
  role?: string;
  parts?: Part[];
}

export interface TaskArtifact {
  artifactId?: string;
  name?: string;
  description?: string;
  parts?: Part[];
}

export interface A2ATask {
  id: string;
  contextId?: string;
  status?: { state?: string; timestamp?: string; message?: TaskMessage };
  history?: TaskMessage[];
  artifacts?: TaskArtifact[];
}

export const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export const stateName = (state: string | undefined) => (state ?? 'unknown').replace('TASK_STATE_', '').toLowerCase().replace(/_/g, '-');

/** The task after one event of its stream. */
export function applyEvent(task: A2ATask, e: StreamEvent): A2ATask {
  if (e.task) {
    // The stream's first event is the whole task; keep the history already read when it has none.
    const whole = e.task as A2ATask;
    return { ...whole, history: whole.history ?? task.history };
  }
  if (e.statusUpdate?.status) {
    // As the server keeps it: each status message joins the history, so none is lost when the next arrives.
    const status = e.statusUpdate.status as A2ATask['status'];
    const message = status?.message;
    const history = task.history ?? [];
    const known = message?.messageId !== undefined && history.some((m) => m.messageId === message.messageId);
    return { ...task, status, ...(message && !known ? { history: [...history, message] } : {}) };
  }
  const update = e.artifactUpdate;
  if (update?.artifact) {
    const incoming = update.artifact as TaskArtifact;
    const artifacts = [...(task.artifacts ?? [])];
    const at = artifacts.findIndex((a) => a.artifactId !== undefined && a.artifactId === incoming.artifactId);
    if (at < 0) artifacts.push(incoming);
    else artifacts[at] = update.append ? { ...artifacts[at], parts: [...(artifacts[at]!.parts ?? []), ...(incoming.parts ?? [])] } : incoming;
    return { ...task, artifacts };
  }
  return task;
}
