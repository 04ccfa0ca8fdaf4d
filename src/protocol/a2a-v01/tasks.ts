/**
 * Tasks for v0.1 clients: the client's own id (see task-ids.ts), `sessionId` for the context,
 * v0.1 states, and artifacts numbered by `index` (their position in the task).
 */
import type { Artifact, Task, TaskState, TaskStatus } from '../a2a/types.js';
import { messageFromV1 } from './messages.js';
import { partFromV1 } from './parts.js';
import { clientTaskId } from './task-ids.js';
import type { V01Artifact, V01Task, V01TaskState, V01TaskStatus } from './types.js';

/**
 * Lossy: v0.1 had no `rejected` (a refusal reads as `failed`, the closest terminal state) and no
 * `auth-required` (the task waits for the client, which v0.1 called `input-required`).
 */
const STATE_FROM_V1: Record<TaskState, V01TaskState> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'failed',
  TASK_STATE_AUTH_REQUIRED: 'input-required',
};

export const stateFromV1 = (s: TaskState): V01TaskState => STATE_FROM_V1[s] ?? 'unknown';

export function statusFromV1(s: TaskStatus): V01TaskStatus {
  const out: V01TaskStatus = { state: stateFromV1(s.state) };
  if (s.message) out.message = messageFromV1(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

/** Lossy: the artifact id becomes a position; `extensions` have no place in v0.1. */
export function artifactFromV1(a: Artifact, index: number): V01Artifact {
  const out: V01Artifact = { parts: a.parts.map(partFromV1), index };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  return out;
}

export function taskFromV1(t: Task): V01Task {
  const out: V01Task = { id: clientTaskId(t.id), sessionId: t.contextId, status: statusFromV1(t.status) };
  if (t.artifacts?.length) out.artifacts = t.artifacts.map(artifactFromV1);
  if (t.history?.length) out.history = t.history.map(messageFromV1);
  if (t.metadata !== undefined) out.metadata = t.metadata;
  return out;
}
