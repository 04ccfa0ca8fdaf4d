/**
 * The v0.3.0 gRPC messages (proto/a2a-v03.proto, package a2a.v1) between the plain objects
 * @grpc/proto-loader hands grpc-js and the v0.3 ProtoJSON of ./protojson.ts, which already
 * translates to and from the core. So gRPC and HTTP+JSON v0.3 share one translation; this file only
 * undoes what protobuf's object form adds: Struct/Timestamp/bytes objects, and the three fields
 * whose JSON name differs from their proto name (`TaskStatus.update`, `SendMessageRequest.request`,
 * the `msg` payloads), which proto-loader keys by proto name.
 */
import { invalidParams } from '../a2a/errors.js';
import { toJsonObject, toJsonValue } from '../a2a/json.js';
import type { JsonObject } from '../a2a/types.js';
import type { WireBytes, WireEnum, WireStruct, WireTimestamp } from '../a2a/grpc-codec-wire.js';
import { decodeBytes, decodeStruct, encodeBytes, encodeStruct, encodeTimestamp, optString } from '../a2a/grpc-codec-wkt.js';
import type { ProtoArtifact, ProtoMessage, ProtoPart, ProtoTask, ProtoTaskPushNotificationConfig, ProtoTaskStatus } from './protojson.js';
import type { V03PushNotificationConfig } from './types.js';

export interface V03WirePart {
  text?: string;
  file?: { fileWithUri?: string; fileWithBytes?: WireBytes; mimeType?: string };
  data?: { data?: WireStruct };
}
export interface V03WireMessage {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  role?: WireEnum;
  content?: V03WirePart[];
  metadata?: WireStruct;
  extensions?: string[];
}
export interface V03WirePushConfig {
  id?: string;
  url?: string;
  token?: string;
  authentication?: { schemes?: string[]; credentials?: string };
}
export interface V03WireSendMessageRequest {
  request?: V03WireMessage;
  configuration?: { acceptedOutputModes?: string[]; pushNotification?: V03WirePushConfig; historyLength?: number; blocking?: boolean };
  metadata?: WireStruct;
}
export interface V03WireNamed {
  name?: string;
  historyLength?: number;
}
export interface V03WireCreatePushConfigRequest {
  parent?: string;
  configId?: string;
  config?: { name?: string; pushNotificationConfig?: V03WirePushConfig };
}
export interface V03WireListPushConfigsRequest {
  parent?: string;
  pageSize?: number;
  pageToken?: string;
}

interface V03WireTaskStatus {
  state: string;
  update?: V03WireMessage;
  timestamp?: WireTimestamp;
}
interface V03WireArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03WirePart[];
  metadata?: WireStruct;
  extensions?: string[];
}
export interface V03WireTask {
  id: string;
  contextId: string;
  status: V03WireTaskStatus;
  artifacts?: V03WireArtifact[];
  history?: V03WireMessage[];
  metadata?: WireStruct;
}
export type V03WireStreamResponse = { task: V03WireTask } | { msg: V03WireMessage } | { statusUpdate: object } | { artifactUpdate: object };

// ---- resource names (AIP-122), the v0.3 proto's way of naming tasks and configs ----

const TASK_NAME = /^tasks\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;

/** `tasks/{id}` → the task id. */
export function taskIdFromName(name: string | undefined, field = 'name'): string {
  const id = TASK_NAME.exec(name ?? '')?.[1];
  if (!id) throw invalidParams(field, "must be 'tasks/{task_id}'");
  return id;
}

/** `tasks/{id}/pushNotificationConfigs/{cid}` → both ids. */
export function configRefFromName(name: string | undefined, field = 'name'): { taskId: string; id: string } {
  const m = CONFIG_NAME.exec(name ?? '');
  if (!m) throw invalidParams(field, "must be 'tasks/{task_id}/pushNotificationConfigs/{config_id}'");
  return { taskId: m[1]!, id: m[2]! };
}

// ---- wire → ProtoJSON (requests) ----

function partToJson(p: V03WirePart, field: string): Record<string, unknown> {
  if (p.text !== undefined) return { text: p.text };
  if (p.file) {
    const f = p.file;
    const out: Record<string, unknown> = {};
    if (f.fileWithUri !== undefined) out.fileWithUri = f.fileWithUri;
    if (f.fileWithBytes !== undefined) out.fileWithBytes = decodeBytes(f.fileWithBytes);
    if (optString(f.mimeType)) out.mimeType = f.mimeType;
    return { file: out };
  }
  if (p.data) return { data: { data: p.data.data ? decodeStruct(p.data.data, `${field}.data.data`) : {} } };
  throw invalidParams(field, 'must carry one of text, file, data');
}

export function messageToJson(m: V03WireMessage, field = 'message'): Record<string, unknown> {
  const out: Record<string, unknown> = {
    messageId: m.messageId ?? '',
    role: m.role ?? 'ROLE_UNSPECIFIED',
    content: (m.content ?? []).map((p, i) => partToJson(p, `${field}.content[${i}]`)),
  };
  if (optString(m.contextId)) out.contextId = m.contextId;
  if (optString(m.taskId)) out.taskId = m.taskId;
  if (m.metadata) out.metadata = decodeStruct(m.metadata, `${field}.metadata`);
  if (m.extensions?.length) out.extensions = m.extensions;
  return out;
}

function pushConfigToJson(c: V03WirePushConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { url: c.url ?? '' };
  if (optString(c.id)) out.id = c.id;
  if (optString(c.token)) out.token = c.token;
  if (c.authentication) {
    out.authentication = { schemes: c.authentication.schemes ?? [], ...(optString(c.authentication.credentials) ? { credentials: c.authentication.credentials } : {}) };
  }
  return out;
}

/** `SendMessageRequest` as the proto-form JSON body `sendRequestFromProto` reads. */
export function sendMessageRequestToJson(w: V03WireSendMessageRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (w.request) out.message = messageToJson(w.request);
  if (w.configuration) {
    const c = w.configuration;
    const cfg: Record<string, unknown> = {};
    if (c.acceptedOutputModes?.length) cfg.acceptedOutputModes = c.acceptedOutputModes;
    if (c.pushNotification) cfg.pushNotification = pushConfigToJson(c.pushNotification);
    if (c.historyLength) cfg.historyLength = c.historyLength;
    // proto3 cannot tell false from unset: leave it out, as ProtoJSON would (protojson.ts reads that as false)
    if (c.blocking) cfg.blocking = true;
    out.configuration = cfg;
  }
  if (w.metadata) out.metadata = decodeStruct(w.metadata, 'metadata');
  return out;
}

/** `CreateTaskPushNotificationConfigRequest`: the task from `parent`, the config id from `config_id` or `config.name`. */
export function createPushConfigRequestToJson(w: V03WireCreatePushConfigRequest): { taskId: string; body: Record<string, unknown> } {
  const taskId = taskIdFromName(w.parent, 'parent');
  const inner = w.config?.pushNotificationConfig;
  if (!inner) throw invalidParams('config.pushNotificationConfig', 'is required');
  const cfg = pushConfigToJson(inner);
  if (!cfg.id && optString(w.configId)) cfg.id = w.configId;
  return { taskId, body: { ...(w.config?.name ? { name: w.config.name } : {}), pushNotificationConfig: cfg } };
}

// ---- ProtoJSON → wire (responses) ----

function partToWire(p: ProtoPart, field: string): V03WirePart {
  if ('text' in p) return { text: p.text };
  if ('file' in p) {
    const f = p.file;
    return {
      file: {
        ...(f.fileWithUri !== undefined ? { fileWithUri: f.fileWithUri } : {}),
        ...(f.fileWithBytes !== undefined ? { fileWithBytes: encodeBytes(f.fileWithBytes, `${field}.file.fileWithBytes`) } : {}),
        ...(f.mimeType ? { mimeType: f.mimeType } : {}),
      },
    };
  }
  return { data: { data: encodeStruct(p.data.data, `${field}.data.data`) } };
}

const structOf = (o: JsonObject | undefined, field: string): WireStruct | undefined => (o === undefined ? undefined : encodeStruct(o, field));

export function messageToWire(m: ProtoMessage, field = 'message'): V03WireMessage {
  const out: V03WireMessage = { messageId: m.messageId, role: m.role, content: m.content.map((p, i) => partToWire(p, `${field}.content[${i}]`)) };
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.metadata !== undefined) out.metadata = encodeStruct(m.metadata, `${field}.metadata`);
  if (m.extensions?.length) out.extensions = m.extensions;
  return out;
}

function statusToWire(s: ProtoTaskStatus, field: string): V03WireTaskStatus {
  const out: V03WireTaskStatus = { state: s.state };
  if (s.message) out.update = messageToWire(s.message, `${field}.message`);
  if (s.timestamp !== undefined) out.timestamp = encodeTimestamp(s.timestamp, `${field}.timestamp`);
  return out;
}

function artifactToWire(a: ProtoArtifact, field: string): V03WireArtifact {
  const out: V03WireArtifact = { artifactId: a.artifactId, parts: a.parts.map((p, i) => partToWire(p, `${field}.parts[${i}]`)) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = encodeStruct(a.metadata, `${field}.metadata`);
  if (a.extensions?.length) out.extensions = a.extensions;
  return out;
}

export function taskToWire(t: ProtoTask): V03WireTask {
  const out: V03WireTask = { id: t.id, contextId: t.contextId, status: statusToWire(t.status, 'task.status') };
  if (t.artifacts?.length) out.artifacts = t.artifacts.map((a, i) => artifactToWire(a, `task.artifacts[${i}]`));
  if (t.history?.length) out.history = t.history.map((m, i) => messageToWire(m, `task.history[${i}]`));
  if (t.metadata !== undefined) out.metadata = encodeStruct(t.metadata, 'task.metadata');
  return out;
}

/** `SendMessageResponse` / `StreamResponse` from their ProtoJSON (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`). */
export function payloadToWire(r: Record<string, unknown>): V03WireStreamResponse {
  if ('task' in r) return { task: taskToWire(r.task as ProtoTask) };
  if ('message' in r) return { msg: messageToWire(r.message as ProtoMessage) };
  if ('statusUpdate' in r) {
    const e = r.statusUpdate as { status: ProtoTaskStatus; metadata?: JsonObject } & Record<string, unknown>;
    return { statusUpdate: { ...e, status: statusToWire(e.status, 'statusUpdate.status'), metadata: structOf(e.metadata, 'statusUpdate.metadata') } };
  }
  const e = r.artifactUpdate as { artifact: ProtoArtifact; metadata?: JsonObject } & Record<string, unknown>;
  return { artifactUpdate: { ...e, artifact: artifactToWire(e.artifact, 'artifactUpdate.artifact'), metadata: structOf(e.metadata, 'artifactUpdate.metadata') } };
}

export function taskPushConfigToWire(c: ProtoTaskPushNotificationConfig): { name: string; pushNotificationConfig: V03PushNotificationConfig } {
  return { name: c.name, pushNotificationConfig: c.pushNotificationConfig };
}

/** The card's only Struct fields are extension `params`; everything else is plain in both forms. */
export function agentCardToWire(card: JsonObject): JsonObject {
  const caps = card.capabilities as { extensions?: Array<{ params?: JsonObject } & JsonObject> } | undefined;
  if (!caps?.extensions?.length) return card;
  const extensions = caps.extensions.map((e, i) => (e.params ? { ...e, params: toJsonValue(encodeStruct(e.params, `capabilities.extensions[${i}].params`)) } : e));
  return { ...card, capabilities: toJsonObject({ ...caps, extensions }) };
}
