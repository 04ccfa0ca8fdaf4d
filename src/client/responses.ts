/**
 * The shape checks the client applies to what an agent returns (a trust boundary: the agent may be
 * anyone's). Light on purpose: the oneof keys and the fields the client itself relies on (ids,
 * states, parts arrays). Unknown fields are kept (ProtoJSON readers ignore them). A failure is an
 * A2AClientError of kind InvalidAgentResponse naming the field.
 */
import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskStatusUpdateEvent,
} from '../protocol/a2a/types.js';
import { A2AClientError } from './errors.js';
import { isObject } from './http.js';

export function invalidResponse(field: string, why: string): A2AClientError {
  return new A2AClientError(`invalid agent response: ${field} ${why}`, { reason: 'INVALID_AGENT_RESPONSE' });
}

function need(cond: boolean, field: string, why: string): void {
  if (!cond) throw invalidResponse(field, why);
}

export function asTask(v: unknown, field = 'task'): Task {
  need(isObject(v), field, 'is not an object');
  const t = v as Record<string, unknown>;
  need(typeof t.id === 'string' && t.id !== '', `${field}.id`, 'is missing');
  need(isObject(t.status) && typeof (t.status as Record<string, unknown>).state === 'string', `${field}.status.state`, 'is missing');
  if (t.artifacts !== undefined) need(Array.isArray(t.artifacts), `${field}.artifacts`, 'is not an array');
  return v as Task;
}

export function asMessage(v: unknown, field = 'message'): Message {
  need(isObject(v), field, 'is not an object');
  need(Array.isArray((v as Record<string, unknown>).parts), `${field}.parts`, 'is not an array');
  return v as Message;
}

export function asSendMessageResponse(v: unknown): SendMessageResponse {
  need(isObject(v), 'result', 'is not an object');
  const r = v as Record<string, unknown>;
  if (r.task !== undefined) return { task: asTask(r.task) };
  if (r.message !== undefined) return { message: asMessage(r.message) };
  throw invalidResponse('result', 'has neither task nor message');
}

export function asStreamResponse(v: unknown): StreamResponse {
  need(isObject(v), 'event', 'is not an object');
  const r = v as Record<string, unknown>;
  if (r.task !== undefined) return { task: asTask(r.task) };
  if (r.message !== undefined) return { message: asMessage(r.message) };
  if (isObject(r.statusUpdate)) return { statusUpdate: asStatusUpdate(r.statusUpdate) };
  if (isObject(r.artifactUpdate)) return { artifactUpdate: asArtifactUpdate(r.artifactUpdate) };
  throw invalidResponse('event', 'has none of task, message, statusUpdate, artifactUpdate');
}

function asStatusUpdate(v: unknown): TaskStatusUpdateEvent {
  const status = isObject(v) ? v.status : undefined;
  need(isObject(status) && typeof status.state === 'string', 'statusUpdate.status.state', 'is missing');
  return v as TaskStatusUpdateEvent;
}

function asArtifactUpdate(v: unknown): TaskArtifactUpdateEvent {
  const artifact = isObject(v) ? v.artifact : undefined;
  need(isObject(artifact) && Array.isArray(artifact.parts), 'artifactUpdate.artifact.parts', 'is missing');
  return v as TaskArtifactUpdateEvent;
}

export function asListTasksResponse(v: unknown): ListTasksResponse {
  need(isObject(v) && Array.isArray((v as Record<string, unknown>).tasks), 'result.tasks', 'is not an array');
  const r = v as Record<string, unknown>;
  (r.tasks as unknown[]).forEach((t, i) => asTask(t, `tasks[${i}]`));
  return { tasks: r.tasks as Task[], nextPageToken: typeof r.nextPageToken === 'string' ? r.nextPageToken : '', pageSize: Number(r.pageSize ?? 0), totalSize: Number(r.totalSize ?? 0) };
}

export function asPushConfig(v: unknown): TaskPushNotificationConfig {
  need(isObject(v) && typeof (v as Record<string, unknown>).url === 'string', 'config.url', 'is missing');
  return v as TaskPushNotificationConfig;
}

export function asPushConfigList(v: unknown): ListTaskPushNotificationConfigsResponse {
  need(isObject(v), 'result', 'is not an object');
  const r = v as Record<string, unknown>;
  const configs = r.configs === undefined ? [] : r.configs;
  need(Array.isArray(configs), 'result.configs', 'is not an array');
  return { configs: (configs as unknown[]).map(asPushConfig), nextPageToken: typeof r.nextPageToken === 'string' ? r.nextPageToken : '' };
}

export function asAgentCard(v: unknown, field = 'card'): AgentCard {
  need(isObject(v), field, 'is not an object');
  const c = v as Record<string, unknown>;
  need(typeof c.name === 'string', `${field}.name`, 'is missing');
  need(Array.isArray(c.supportedInterfaces), `${field}.supportedInterfaces`, 'is not an array');
  return v as AgentCard;
}
