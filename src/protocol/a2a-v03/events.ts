/**
 * Stream events and send results for v0.3 clients: v1.0 wraps them (`{task}`, `{statusUpdate}`…);
 * v0.3 sends the bare object with its `kind`, and status updates carry `final`.
 */
import type { SendMessageResponse, StreamResponse, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '../a2a/types.js';
import { isTerminal } from '../a2a/types.js';
import { messageFromV1 } from './messages.js';
import { artifactFromV1, statusFromV1, taskFromV1 } from './tasks.js';
import type { V03Message, V03StreamResult, V03Task, V03TaskArtifactUpdateEvent, V03TaskStatusUpdateEvent } from './types.js';

/**
 * `final` is gone in v1.0; it is derived from the state. True where Agentport's streams end: a
 * terminal state or INPUT_REQUIRED (the stream closes, the client sends the next message).
 * AUTH_REQUIRED keeps the stream open (v1.0 §7.6.1), so it is not final.
 */
export const isFinalState = (s: TaskState): boolean => isTerminal(s) || s === 'TASK_STATE_INPUT_REQUIRED';

export function statusUpdateFromV1(e: TaskStatusUpdateEvent): V03TaskStatusUpdateEvent {
  const out: V03TaskStatusUpdateEvent = {
    kind: 'status-update',
    taskId: e.taskId,
    contextId: e.contextId,
    status: statusFromV1(e.status),
    final: isFinalState(e.status.state),
  };
  if (e.metadata !== undefined) out.metadata = e.metadata;
  return out;
}

export function artifactUpdateFromV1(e: TaskArtifactUpdateEvent): V03TaskArtifactUpdateEvent {
  const out: V03TaskArtifactUpdateEvent = { kind: 'artifact-update', taskId: e.taskId, contextId: e.contextId, artifact: artifactFromV1(e.artifact) };
  if (e.append !== undefined) out.append = e.append;
  if (e.lastChunk !== undefined) out.lastChunk = e.lastChunk;
  if (e.metadata !== undefined) out.metadata = e.metadata;
  return out;
}

export function streamResultFromV1(r: StreamResponse): V03StreamResult {
  if ('task' in r) return taskFromV1(r.task);
  if ('message' in r) return messageFromV1(r.message);
  if ('statusUpdate' in r) return statusUpdateFromV1(r.statusUpdate);
  return artifactUpdateFromV1(r.artifactUpdate);
}

/** `message/send` answers a bare Task or Message. */
export function sendResultFromV1(r: SendMessageResponse): V03Task | V03Message {
  return 'task' in r ? taskFromV1(r.task) : messageFromV1(r.message);
}
