/**
 * The JSON form (ProtoJSON) of the v0.3.0 proto (specification/grpc/a2a.proto at v0.3.0), which
 * v0.3 HTTP+JSON clients send and expect: a2a-python's v0.3 REST and a2a-js 1.3's
 * `LegacyRestTransport` both go through the proto. It differs from the v0.3 JSON-RPC shape:
 * Message `content` instead of `parts`, `ROLE_*` and `TASK_STATE_*` enums (`…_CANCELLED`),
 * `file:{fileWithUri|fileWithBytes, mimeType}`, `data:{data:{…}}`, no `kind`, resource names
 * (`tasks/{id}/pushNotificationConfigs/{cid}`) and oneof wrappers (`{task}`, `{message}`).
 *
 * Input is lenient: a message in the v0.3 JSON-RPC shape (`parts`, `kind`) is accepted too, since
 * earlier a2a-js REST clients sent that (digest §11).
 */
import { invalidParams } from '../a2a/errors.js';
import { toJsonObject, toJsonValue } from '../a2a/json.js';
import type { AgentCard, Artifact, JsonObject, Message, Part, SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskPushNotificationConfig, TaskState, TaskStatus } from '../a2a/types.js';
import { agentCardFromV1, type V03AgentCard } from './cards.js';
import { isFinalState } from './events.js';
import { checkDepth, isObject, obj, optStr, str } from './fields.js';
import { messageToV1, withOptionalMessageFields } from './messages.js';
import { partToV1 } from './parts.js';
import { pushNotificationConfigFromV1, pushNotificationConfigToV1 } from './push.js';
import { sendParamsToV1 } from './requests.js';
import type { V03PushNotificationConfig } from './types.js';

export type ProtoPart = { text: string } | { file: { fileWithUri?: string; fileWithBytes?: string; mimeType?: string } } | { data: { data: JsonObject } };

export interface ProtoMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  content: ProtoPart[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface ProtoTaskStatus {
  state: string;
  message?: ProtoMessage;
  timestamp?: string;
}

export interface ProtoArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: ProtoPart[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface ProtoTask {
  id: string;
  contextId: string;
  status: ProtoTaskStatus;
  artifacts?: ProtoArtifact[];
  history?: ProtoMessage[];
  metadata?: JsonObject;
}

export interface ProtoTaskPushNotificationConfig {
  name: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

/** The v0.3 proto spells CANCELLED with two Ls; every other state keeps its v1.0 name. */
export const stateToProto = (s: TaskState): string => (s === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : s);

/**
 * Lossy: the v0.3 proto Part has no `metadata` and FilePart no `name`, so both are dropped. A
 * non-object `data` (v1.0 allows any JSON) is sent as `{value: …}`.
 */
export function partToProto(p: Part): ProtoPart {
  if (p.text !== undefined) return { text: p.text };
  if (p.raw !== undefined || p.url !== undefined) {
    const file = p.raw !== undefined ? { fileWithBytes: p.raw } : { fileWithUri: p.url as string };
    return { file: p.mediaType ? { ...file, mimeType: p.mediaType } : file };
  }
  const data = p.data ?? null;
  return { data: { data: isObject(data) ? (data as JsonObject) : { value: data } } };
}

/** Lossy: `referenceTaskIds` has no place in the v0.3 proto Message. */
export function messageToProto(m: Message): ProtoMessage {
  const out: ProtoMessage = { messageId: m.messageId, role: m.role, content: m.parts.map(partToProto) };
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions?.length) out.extensions = m.extensions;
  return out;
}

export function statusToProto(s: TaskStatus): ProtoTaskStatus {
  const out: ProtoTaskStatus = { state: stateToProto(s.state) };
  if (s.message) out.message = messageToProto(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

export function artifactToProto(a: Artifact): ProtoArtifact {
  const out: ProtoArtifact = { artifactId: a.artifactId, parts: a.parts.map(partToProto) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions?.length) out.extensions = a.extensions;
  return out;
}

export function taskToProto(t: Task): ProtoTask {
  const out: ProtoTask = { id: t.id, contextId: t.contextId, status: statusToProto(t.status) };
  if (t.artifacts?.length) out.artifacts = t.artifacts.map(artifactToProto);
  if (t.history?.length) out.history = t.history.map(messageToProto);
  if (t.metadata !== undefined) out.metadata = t.metadata;
  return out;
}

/** `SendMessageResponse`: the oneof `payload` (`task` | `msg`, JSON name `message`). */
export function sendResponseToProto(r: SendMessageResponse): { task: ProtoTask } | { message: ProtoMessage } {
  return 'task' in r ? { task: taskToProto(r.task) } : { message: messageToProto(r.message) };
}

/** `StreamResponse`; status updates carry `final` (derived as on JSON-RPC, see events.ts). */
export function streamResponseToProto(r: StreamResponse): JsonObject {
  if ('task' in r) return { task: toJsonObject(taskToProto(r.task)) };
  if ('message' in r) return { message: toJsonObject(messageToProto(r.message)) };
  if ('statusUpdate' in r) {
    const e = r.statusUpdate;
    const ev: JsonObject = { taskId: e.taskId, contextId: e.contextId, status: toJsonObject(statusToProto(e.status)), final: isFinalState(e.status.state) };
    if (e.metadata !== undefined) ev.metadata = e.metadata;
    return { statusUpdate: ev };
  }
  const e = r.artifactUpdate;
  const ev: JsonObject = { taskId: e.taskId, contextId: e.contextId, artifact: toJsonObject(artifactToProto(e.artifact)) };
  if (e.append !== undefined) ev.append = e.append;
  if (e.lastChunk !== undefined) ev.lastChunk = e.lastChunk;
  if (e.metadata !== undefined) ev.metadata = e.metadata;
  return { artifactUpdate: ev };
}

export const pushConfigName = (taskId: string, id: string): string => `tasks/${taskId}/pushNotificationConfigs/${id}`;

export function taskPushConfigToProto(c: TaskPushNotificationConfig, taskId = c.taskId ?? ''): ProtoTaskPushNotificationConfig {
  return { name: pushConfigName(taskId, c.id ?? ''), pushNotificationConfig: pushNotificationConfigFromV1(c) };
}

/**
 * The v0.3 proto AgentCard: the v0.3 card's fields, with security in the proto's own form (oneof
 * scheme wrappers, `{schemes:{name:{list}}}` requirements), which v1.0 kept unchanged.
 */
export function agentCardToProto(c: AgentCard): JsonObject {
  const { securitySchemes: _s, security: _r, skills, ...rest }: V03AgentCard = agentCardFromV1(c);
  const out = toJsonObject({ ...rest, skills: skills.map(({ security: _k, ...s }, i) => ({ ...s, ...(c.skills[i]?.securityRequirements ? { security: c.skills[i]!.securityRequirements } : {}) })) });
  if (c.securitySchemes) out.securitySchemes = toJsonObject(c.securitySchemes);
  if (c.securityRequirements) out.security = toJsonValue(c.securityRequirements);
  return out;
}

// ---- Input.

/** True for a proto-form message (`content`, `ROLE_*`); false for the JSON-RPC form. */
function isProtoMessage(m: Record<string, unknown>): boolean {
  return Array.isArray(m.content) || (typeof m.role === 'string' && m.role.startsWith('ROLE_'));
}

function protoPartToV1(v: unknown, field: string): Part {
  const p = obj(v, field);
  if (p.kind !== undefined) return partToV1(p, field);
  if (typeof p.text === 'string') return { text: p.text };
  if (isObject(p.file)) {
    const f = p.file;
    const uri = optStr(f.fileWithUri, `${field}.file.fileWithUri`);
    const bytes = optStr(f.fileWithBytes, `${field}.file.fileWithBytes`);
    if ((uri === undefined) === (bytes === undefined)) throw invalidParams(`${field}.file`, 'must carry exactly one of fileWithUri, fileWithBytes');
    if (bytes !== undefined && !/^[A-Za-z0-9+/_-]*={0,2}$/.test(bytes)) throw invalidParams(`${field}.file.fileWithBytes`, 'must be base64');
    const out: Part = uri !== undefined ? { url: uri } : { raw: bytes };
    const mimeType = optStr(f.mimeType, `${field}.file.mimeType`);
    if (mimeType) out.mediaType = mimeType;
    return out;
  }
  if (isObject(p.data)) {
    const inner = isObject(p.data.data) ? p.data.data : undefined;
    if (!inner) throw invalidParams(`${field}.data.data`, 'is required and must be an object');
    checkDepth(inner, `${field}.data.data`);
    return { data: inner as JsonObject };
  }
  throw invalidParams(field, 'must carry one of text, file, data');
}

/** A v0.3 message in either form. */
export function messageFromProto(v: unknown, field = 'message'): Message {
  const m = obj(v, field);
  if (!isProtoMessage(m)) return messageToV1(m, field);
  if (!Array.isArray(m.content) || m.content.length === 0) throw invalidParams(`${field}.content`, 'is required and must be a non-empty array');
  if (m.role !== 'ROLE_USER' && m.role !== 'ROLE_AGENT') throw invalidParams(`${field}.role`, "must be 'ROLE_USER' or 'ROLE_AGENT'");
  const out: Message = {
    messageId: str(m.messageId, `${field}.messageId`),
    role: m.role,
    parts: m.content.map((p, i) => protoPartToV1(p, `${field}.content[${i}]`)),
  };
  withOptionalMessageFields(out, m, field);
  return out;
}

/**
 * The body of `POST /v1/message:send|stream`: proto `SendMessageRequest` (`message`, its
 * configuration's `pushNotification`) or the JSON-RPC `MessageSendParams` (`pushNotificationConfig`).
 */
export function sendRequestFromProto(v: unknown): SendMessageRequest {
  const b = obj(v, 'body');
  const params: Record<string, unknown> = { ...b, message: b.message ?? b.request };
  let cfg = isObject(b.configuration) ? b.configuration : undefined;
  if (cfg && cfg.pushNotification !== undefined && cfg.pushNotificationConfig === undefined) {
    const { pushNotification, ...rest } = cfg;
    cfg = { ...rest, pushNotificationConfig: pushNotification };
  }
  // ProtoJSON omits a false bool, so in a proto-form configuration an absent `blocking` IS false
  // (a2a-js's LegacyRestTransport sends `returnImmediately` that way); a2a-python's v0.3 server
  // read it so too. Without any configuration the v1.0 default (wait) applies, as in a2a-python.
  const message = params.message;
  if (cfg && cfg.blocking === undefined && isObject(message) && isProtoMessage(message)) cfg = { ...cfg, blocking: false };
  if (cfg) params.configuration = cfg;
  return sendParamsToV1(params, (m) => messageFromProto(m));
}

/**
 * The body of `POST /v1/tasks/{id}/pushNotificationConfigs`: the proto TaskPushNotificationConfig
 * `{name, pushNotificationConfig}` (or the JSON-RPC `{taskId, pushNotificationConfig}`). Without
 * an id in the config or in `name`, the config is named after its task, as on JSON-RPC.
 */
export function pushConfigFromProto(v: unknown, taskId: string): TaskPushNotificationConfig {
  const b = obj(v, 'body');
  const cfg = pushNotificationConfigToV1(b.pushNotificationConfig ?? b.config, 'pushNotificationConfig');
  const fromName = typeof b.name === 'string' ? /\/pushNotificationConfigs\/([^/]+)$/.exec(b.name)?.[1] : undefined;
  return { ...cfg, taskId, id: cfg.id ?? fromName ?? taskId };
}
