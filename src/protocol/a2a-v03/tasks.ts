/**
 * Tasks: kebab-case states ⇄ `TASK_STATE_*`, and Task/TaskStatus/Artifact for v0.3 clients
 * (`kind:"task"`, v0.3 parts and messages inside).
 */
import { invalidParams } from '../a2a/errors.js';
import type { Artifact, Task, TaskState, TaskStatus } from '../a2a/types.js';
import { messageFromV1 } from './messages.js';
import { partFromV1 } from './parts.js';
import type { V03Artifact, V03Task, V03TaskState, V03TaskStatus } from './types.js';

const STATE_FROM_V1: Record<TaskState, V03TaskState> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

/** Any state the core does not know (there is none today) reads as v0.3 `unknown`. */
export const stateFromV1 = (s: TaskState): V03TaskState => STATE_FROM_V1[s] ?? 'unknown';

/** v0.3 `unknown` has no v1.0 counterpart but UNSPECIFIED, which no request may name: it is refused. */
export function stateToV1(v: unknown, field: string): TaskState {
  const hit = (Object.entries(STATE_FROM_V1) as Array<[TaskState, V03TaskState]>).find(([, s]) => s === v);
  if (!hit) throw invalidParams(field, `must be one of ${Object.values(STATE_FROM_V1).join(', ')}`);
  return hit[0];
}

export function statusFromV1(s: TaskStatus): V03TaskStatus {
  const out: V03TaskStatus = { state: stateFromV1(s.state) };
  if (s.message) out.message = messageFromV1(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

export function artifactFromV1(a: Artifact): V03Artifact {
  const out: V03Artifact = { artifactId: a.artifactId, parts: a.parts.map(partFromV1) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions?.length) out.extensions = a.extensions;
  return out;
}

export function taskFromV1(t: Task): V03Task {
  const out: V03Task = { kind: 'task', id: t.id, contextId: t.contextId, status: statusFromV1(t.status) };
  if (t.artifacts) out.artifacts = t.artifacts.map(artifactFromV1);
  if (t.history) out.history = t.history.map(messageFromV1);
  if (t.metadata !== undefined) out.metadata = t.metadata;
  return out;
}
