/**
 * The lf.a2a.v1 data objects (Part, Message, Task, streaming events, the response oneofs, push
 * configs) between ProtoJSON and proto-loader objects. Conventions are described in grpc-codec.ts.
 */
import { invalidParams } from './errors.js';
import {
  decodeBytes,
  decodeEnum,
  decodeTimestamp,
  decodeValue,
  encodeBytes,
  encodeOptStruct,
  encodeTimestamp,
  encodeValue,
  optList,
  optString,
  optStruct,
  optTrue,
  prune,
  requiredMessage,
  requiredString,
} from './grpc-codec-wkt.js';
import type {
  WireArtifact,
  WireAuthenticationInfo,
  WireMessage,
  WirePart,
  WireSendMessageResponse,
  WireStreamResponse,
  WireTask,
  WireTaskArtifactUpdateEvent,
  WireTaskPushNotificationConfig,
  WireTaskStatus,
  WireTaskStatusUpdateEvent,
} from './grpc-codec-wire.js';
import {
  TASK_STATE_NUMBERS,
  type Artifact,
  type AuthenticationInfo,
  type Message,
  type Part,
  type Role,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskPushNotificationConfig,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from './types.js';

const ROLE_NUMBERS: Readonly<Record<Role | 'ROLE_UNSPECIFIED', number>> = { ROLE_UNSPECIFIED: 0, ROLE_USER: 1, ROLE_AGENT: 2 };

function requiredParts(parts: WirePart[] | undefined, field: string): Part[] {
  if (!parts || parts.length === 0) throw invalidParams(field, 'must contain at least one part');
  return parts.map((p, i) => decodePart(p, `${field}[${i}]`));
}

// ---- Part (oneof content) ----

const PART_CONTENT = ['text', 'raw', 'url', 'data'] as const;

export function decodePart(w: WirePart, field = 'part'): Part {
  const member = w.content ?? PART_CONTENT.find((k) => w[k] !== undefined && w[k] !== null);
  let content: Part;
  switch (member) {
    case 'text':
      content = { text: w.text ?? '' };
      break;
    case 'raw':
      content = { raw: decodeBytes(w.raw ?? '') };
      break;
    case 'url':
      content = { url: w.url ?? '' };
      break;
    case 'data':
      content = { data: decodeValue(w.data, `${field}.data`) };
      break;
    default:
      throw invalidParams(field, 'exactly one of text, raw, url or data is required');
  }
  return prune({
    ...content,
    metadata: optStruct(w.metadata, `${field}.metadata`),
    filename: optString(w.filename),
    mediaType: optString(w.mediaType),
  });
}

export function encodePart(p: Part, field = 'part'): WirePart {
  const members = PART_CONTENT.filter((k) => p[k] !== undefined);
  if (members.length !== 1) throw new TypeError(`${field}: exactly one of text, raw, url or data expected`);
  return prune({
    text: p.text,
    raw: p.raw === undefined ? undefined : encodeBytes(p.raw, `${field}.raw`),
    url: p.url,
    data: members[0] === 'data' ? encodeValue(p.data, `${field}.data`) : undefined,
    metadata: encodeOptStruct(p.metadata, `${field}.metadata`),
    filename: p.filename,
    mediaType: p.mediaType,
  });
}

// ---- Message, TaskStatus, Artifact, Task ----

export function decodeMessage(w: WireMessage, field = 'message'): Message {
  const role = decodeEnum<Role>(w.role, ROLE_NUMBERS, `${field}.role`);
  if (role === undefined) throw invalidParams(`${field}.role`, 'is required');
  return prune({
    messageId: requiredString(w.messageId, `${field}.messageId`),
    contextId: optString(w.contextId),
    taskId: optString(w.taskId),
    role,
    parts: requiredParts(w.parts, `${field}.parts`),
    metadata: optStruct(w.metadata, `${field}.metadata`),
    extensions: optList(w.extensions),
    referenceTaskIds: optList(w.referenceTaskIds),
  });
}

export function encodeMessage(m: Message, field = 'message'): WireMessage {
  return prune({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: m.role,
    parts: m.parts.map((p, i) => encodePart(p, `${field}.parts[${i}]`)),
    metadata: encodeOptStruct(m.metadata, `${field}.metadata`),
    extensions: m.extensions,
    referenceTaskIds: m.referenceTaskIds,
  });
}

export function decodeTaskStatus(w: WireTaskStatus, field = 'status'): TaskStatus {
  const state = decodeEnum<TaskState>(w.state, TASK_STATE_NUMBERS, `${field}.state`);
  if (state === undefined) throw invalidParams(`${field}.state`, 'is required');
  return prune({
    state,
    message: w.message ? decodeMessage(w.message, `${field}.message`) : undefined,
    timestamp: w.timestamp ? decodeTimestamp(w.timestamp, `${field}.timestamp`) : undefined,
  });
}

export function encodeTaskStatus(s: TaskStatus, field = 'status'): WireTaskStatus {
  return prune({
    state: s.state,
    message: s.message ? encodeMessage(s.message, `${field}.message`) : undefined,
    timestamp: s.timestamp === undefined ? undefined : encodeTimestamp(s.timestamp, `${field}.timestamp`),
  });
}

export function decodeArtifact(w: WireArtifact, field = 'artifact'): Artifact {
  return prune({
    artifactId: requiredString(w.artifactId, `${field}.artifactId`),
    name: optString(w.name),
    description: optString(w.description),
    parts: requiredParts(w.parts, `${field}.parts`),
    metadata: optStruct(w.metadata, `${field}.metadata`),
    extensions: optList(w.extensions),
  });
}

export function encodeArtifact(a: Artifact, field = 'artifact'): WireArtifact {
  return prune({
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: a.parts.map((p, i) => encodePart(p, `${field}.parts[${i}]`)),
    metadata: encodeOptStruct(a.metadata, `${field}.metadata`),
    extensions: a.extensions,
  });
}

export function decodeTask(w: WireTask, field = 'task'): Task {
  return prune({
    id: requiredString(w.id, `${field}.id`),
    contextId: w.contextId ?? '',
    status: decodeTaskStatus(requiredMessage(w.status, `${field}.status`), `${field}.status`),
    artifacts: optList(w.artifacts)?.map((a, i) => decodeArtifact(a, `${field}.artifacts[${i}]`)),
    history: optList(w.history)?.map((m, i) => decodeMessage(m, `${field}.history[${i}]`)),
    metadata: optStruct(w.metadata, `${field}.metadata`),
  });
}

export function encodeTask(t: Task, field = 'task'): WireTask {
  return prune({
    id: t.id,
    contextId: t.contextId,
    status: encodeTaskStatus(t.status, `${field}.status`),
    artifacts: t.artifacts?.map((a, i) => encodeArtifact(a, `${field}.artifacts[${i}]`)),
    history: t.history?.map((m, i) => encodeMessage(m, `${field}.history[${i}]`)),
    metadata: encodeOptStruct(t.metadata, `${field}.metadata`),
  });
}

// ---- Streaming events and the response oneofs ----

export function decodeTaskStatusUpdateEvent(w: WireTaskStatusUpdateEvent, field = 'statusUpdate'): TaskStatusUpdateEvent {
  return prune({
    taskId: requiredString(w.taskId, `${field}.taskId`),
    contextId: requiredString(w.contextId, `${field}.contextId`),
    status: decodeTaskStatus(requiredMessage(w.status, `${field}.status`), `${field}.status`),
    metadata: optStruct(w.metadata, `${field}.metadata`),
  });
}

export function encodeTaskStatusUpdateEvent(e: TaskStatusUpdateEvent, field = 'statusUpdate'): WireTaskStatusUpdateEvent {
  return prune({
    taskId: e.taskId,
    contextId: e.contextId,
    status: encodeTaskStatus(e.status, `${field}.status`),
    metadata: encodeOptStruct(e.metadata, `${field}.metadata`),
  });
}

export function decodeTaskArtifactUpdateEvent(w: WireTaskArtifactUpdateEvent, field = 'artifactUpdate'): TaskArtifactUpdateEvent {
  return prune({
    taskId: requiredString(w.taskId, `${field}.taskId`),
    contextId: requiredString(w.contextId, `${field}.contextId`),
    artifact: decodeArtifact(requiredMessage(w.artifact, `${field}.artifact`), `${field}.artifact`),
    append: optTrue(w.append),
    lastChunk: optTrue(w.lastChunk),
    metadata: optStruct(w.metadata, `${field}.metadata`),
  });
}

export function encodeTaskArtifactUpdateEvent(e: TaskArtifactUpdateEvent, field = 'artifactUpdate'): WireTaskArtifactUpdateEvent {
  return prune({
    taskId: e.taskId,
    contextId: e.contextId,
    artifact: encodeArtifact(e.artifact, `${field}.artifact`),
    append: e.append,
    lastChunk: e.lastChunk,
    metadata: encodeOptStruct(e.metadata, `${field}.metadata`),
  });
}

const STREAM_PAYLOAD = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

export function decodeStreamResponse(w: WireStreamResponse): StreamResponse {
  const member = w.payload ?? STREAM_PAYLOAD.find((k) => w[k] !== undefined && w[k] !== null);
  switch (member) {
    case 'task':
      return { task: decodeTask(requiredMessage(w.task, 'task')) };
    case 'message':
      return { message: decodeMessage(requiredMessage(w.message, 'message')) };
    case 'statusUpdate':
      return { statusUpdate: decodeTaskStatusUpdateEvent(requiredMessage(w.statusUpdate, 'statusUpdate')) };
    case 'artifactUpdate':
      return { artifactUpdate: decodeTaskArtifactUpdateEvent(requiredMessage(w.artifactUpdate, 'artifactUpdate')) };
    default:
      throw invalidParams('payload', 'one of task, message, statusUpdate or artifactUpdate is required');
  }
}

export function encodeStreamResponse(r: StreamResponse): WireStreamResponse {
  if ('task' in r) return { task: encodeTask(r.task) };
  if ('message' in r) return { message: encodeMessage(r.message) };
  if ('statusUpdate' in r) return { statusUpdate: encodeTaskStatusUpdateEvent(r.statusUpdate) };
  if ('artifactUpdate' in r) return { artifactUpdate: encodeTaskArtifactUpdateEvent(r.artifactUpdate) };
  throw new TypeError('StreamResponse: no payload');
}

export function decodeSendMessageResponse(w: WireSendMessageResponse): SendMessageResponse {
  const member = w.payload ?? (w.task ? 'task' : w.message ? 'message' : undefined);
  if (member === 'task') return { task: decodeTask(requiredMessage(w.task, 'task')) };
  if (member === 'message') return { message: decodeMessage(requiredMessage(w.message, 'message')) };
  throw invalidParams('payload', 'one of task or message is required');
}

export function encodeSendMessageResponse(r: SendMessageResponse): WireSendMessageResponse {
  if ('task' in r) return { task: encodeTask(r.task) };
  if ('message' in r) return { message: encodeMessage(r.message) };
  throw new TypeError('SendMessageResponse: no payload');
}

// ---- Push notification configs ----

function decodeAuthentication(w: WireAuthenticationInfo, field: string): AuthenticationInfo {
  return prune({ scheme: requiredString(w.scheme, `${field}.scheme`), credentials: optString(w.credentials) });
}

export function decodeTaskPushNotificationConfig(w: WireTaskPushNotificationConfig, field = 'config'): TaskPushNotificationConfig {
  return prune({
    tenant: optString(w.tenant),
    id: optString(w.id),
    taskId: optString(w.taskId),
    url: requiredString(w.url, `${field}.url`),
    token: optString(w.token),
    authentication: w.authentication ? decodeAuthentication(w.authentication, `${field}.authentication`) : undefined,
  });
}

export function encodeTaskPushNotificationConfig(c: TaskPushNotificationConfig): WireTaskPushNotificationConfig {
  return prune({
    tenant: c.tenant,
    id: c.id,
    taskId: c.taskId,
    url: c.url,
    token: c.token,
    authentication: c.authentication ? prune({ scheme: c.authentication.scheme, credentials: c.authentication.credentials }) : undefined,
  });
}
