/**
 * Commits as the core would make them, for the store tests: a new task with its snapshot as event
 * 1, then updates that append status events (optionally with push outbox entries).
 */
import type { StreamResponse, Task, TaskState } from '../../src/protocol/a2a/types.js';
import type { NewOutboxEntry, StoredPushConfig, TaskCommit, TaskEventRecord } from '../../src/store/store.js';

export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number): string => new Date(ms).toISOString();

let counter = 0;
const uid = (prefix: string): string => `${prefix}-${(counter++).toString(36)}`;

export interface NewTaskOptions {
  id?: string;
  agentId?: string;
  owner?: string;
  contextId?: string;
  state?: TaskState;
  /** status time, epoch ms; null for a task without a status timestamp */
  time?: number | null;
  outbox?: Omit<NewOutboxEntry, 'taskId' | 'seq' | 'payload'>[];
}

/** A new task committed with its snapshot as event 1. */
export function newTask(o: NewTaskOptions = {}): TaskCommit {
  const id = o.id ?? uid('task');
  const time = o.time === undefined ? T0 : o.time;
  const task: Task = {
    id,
    contextId: o.contextId ?? uid('ctx'),
    status: { state: o.state ?? 'TASK_STATE_SUBMITTED', ...(time === null ? {} : { timestamp: iso(time) }) },
    history: [{ messageId: uid('msg'), role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
  };
  const event: StreamResponse = { task };
  const createdAt = time ?? T0;
  return {
    agentId: o.agentId ?? 'agent-a',
    owner: o.owner ?? 'alice',
    task,
    expectedVersion: 0,
    seq: 1,
    events: [{ taskId: id, seq: 1, event, createdAt }],
    outbox: (o.outbox ?? []).map((x) => ({ ...x, taskId: id, seq: 1, payload: event })),
    createdAt,
  };
}

export interface UpdateOptions {
  state?: TaskState;
  time?: number;
  /** how many status-update events this commit appends; default 1 */
  events?: number;
  outboxConfigIds?: string[];
  expectedVersion?: number;
}

/** The commit that follows `prev` (as if `prev` was applied): status updates appended to the log. */
/**
 * A blocking echo's one commit: submitted, its artifact, completed; the events share the task's
 * values as the core's do (the migration tests of 0025 and 0027).
 */
export function echoCommit(id: string): TaskCommit {
  const message = { messageId: `m-${id}`, role: 'ROLE_USER' as const, parts: [{ text: 'hello' }], contextId: `c-${id}`, taskId: id };
  const artifact = { artifactId: 'artifact-1', parts: [{ text: 'hello' }], name: 'echo' };
  const done = { state: 'TASK_STATE_COMPLETED' as const, timestamp: '2026-01-01T00:00:01.000Z' };
  const task: Task = { id, contextId: `c-${id}`, status: done, artifacts: [artifact], history: [message] };
  const events = [
    { task: { id, contextId: `c-${id}`, status: { state: 'TASK_STATE_SUBMITTED' as const, timestamp: '2026-01-01T00:00:00.000Z' }, history: [message] } },
    { artifactUpdate: { taskId: id, contextId: `c-${id}`, artifact } },
    { statusUpdate: { taskId: id, contextId: `c-${id}`, status: done } },
  ];
  return { agentId: 'agent-a', owner: 'alice', task, expectedVersion: 0, seq: 3, events: events.map((event, i) => ({ taskId: id, seq: i + 1, event, createdAt: T0 + i })), outbox: [], createdAt: T0 };
}

export function update(prev: TaskCommit, o: UpdateOptions = {}): TaskCommit {
  const time = o.time ?? Date.parse(prev.task.status.timestamp ?? iso(T0)) + 1000;
  const status = { state: o.state ?? 'TASK_STATE_WORKING', timestamp: iso(time) };
  const task: Task = { ...prev.task, status };
  const events: TaskEventRecord[] = [];
  for (let i = 1; i <= (o.events ?? 1); i++) {
    events.push({
      taskId: task.id,
      seq: prev.seq + i,
      event: { statusUpdate: { taskId: task.id, contextId: task.contextId, status } },
      createdAt: time,
    });
  }
  const last = events[events.length - 1];
  return {
    agentId: prev.agentId,
    owner: prev.owner,
    task,
    expectedVersion: o.expectedVersion ?? prev.expectedVersion + 1,
    seq: last ? last.seq : prev.seq,
    events,
    outbox: last ? (o.outboxConfigIds ?? []).map((configId) => ({ taskId: task.id, configId, seq: last.seq, payload: last.event as StreamResponse })) : [],
    createdAt: time,
  };
}

export function pushConfig(taskId: string, id: string, url = `https://hooks.example/${id}`, createdAt = T0): StoredPushConfig {
  return { agentId: 'agent-a', owner: 'alice', taskId, config: { id, taskId, url, token: `tok-${id}` }, createdAt };
}
