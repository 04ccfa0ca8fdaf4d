/**
 * v0.3 answers → the v1.0 model, for v0.3 servers. Both v0.3 wire shapes are read: the JSON-RPC
 * one (`kind`, kebab-case states, `parts`, `file:{uri|bytes}`) and the proto JSON one of v0.3
 * HTTP+JSON (`content`, `TASK_STATE_CANCELLED`, `file:{fileWithUri|fileWithBytes}`, `data:{data}`,
 * `{task}`/`{statusUpdate}` wrappers). The inverse of src/protocol/a2a-v03, whose request-side
 * helpers (messageToV1, partToV1, stateToV1) are reused. `final` is dropped: in v1.0 the stream's
 * end is the signal.
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import type { Artifact, JsonObject, Message, Part, SendMessageResponse, StreamResponse, Task, TaskPushNotificationConfig, TaskState, TaskStatus } from '../../protocol/a2a/types.js';
import { TASK_STATES } from '../../protocol/a2a/types.js';
import { messageFromProto } from '../../protocol/a2a-v03/protojson.js';
import { partToV1 } from '../../protocol/a2a-v03/parts.js';
import { stateToV1 } from '../../protocol/a2a-v03/tasks.js';
import { isObject } from '../http.js';
import { invalidResponse } from '../responses.js';

type Obj = Record<string, unknown>;

/** The request-side parsers throw A2AError InvalidParams; coming from a server it is an invalid response. */
export function fromV03<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof A2AError) throw invalidResponse(err.fieldViolations?.[0]?.field ?? 'result', err.fieldViolations?.[0]?.description ?? err.message);
    throw err;
  }
}

function obj(v: unknown, field: string): Obj {
  if (!isObject(v)) throw invalidResponse(field, 'is not an object');
  return v;
}

function stateOf(v: unknown, field: string): TaskState {
  if (v === 'TASK_STATE_CANCELLED') return 'TASK_STATE_CANCELED';
  if (typeof v === 'string' && (TASK_STATES as readonly string[]).includes(v)) return v as TaskState;
  return stateToV1(v, field);
}

export function partFromV03(v: unknown, field: string): Part {
  const p = obj(v, field);
  if (p.kind === undefined && isObject(p.file) && (p.file.fileWithUri !== undefined || p.file.fileWithBytes !== undefined)) {
    const f = p.file;
    const out: Part = typeof f.fileWithUri === 'string' ? { url: f.fileWithUri } : { raw: String(f.fileWithBytes) };
    if (typeof f.mimeType === 'string' && f.mimeType) out.mediaType = f.mimeType;
    return out;
  }
  if (p.kind === undefined && isObject(p.data) && Object.keys(p.data).length === 1 && isObject(p.data.data)) {
    return { data: p.data.data as JsonObject };
  }
  return partToV1(p, field);
}

function messageFromV03(v: unknown, field: string): Message {
  return messageFromProto(v, field);
}

function statusFromV03(v: unknown, field: string): TaskStatus {
  const s = obj(v, field);
  const out: TaskStatus = { state: stateOf(s.state, `${field}.state`) };
  const message = s.message ?? s.update;
  if (message !== undefined && message !== null) out.message = messageFromV03(message, `${field}.message`);
  if (typeof s.timestamp === 'string') out.timestamp = s.timestamp;
  return out;
}

function artifactFromV03(v: unknown, field: string): Artifact {
  const a = obj(v, field);
  const parts = Array.isArray(a.parts) ? a.parts : [];
  const out: Artifact = { artifactId: String(a.artifactId ?? ''), parts: parts.map((p, i) => partFromV03(p, `${field}.parts[${i}]`)) };
  if (typeof a.name === 'string') out.name = a.name;
  if (typeof a.description === 'string') out.description = a.description;
  if (isObject(a.metadata)) out.metadata = a.metadata as JsonObject;
  if (Array.isArray(a.extensions) && a.extensions.length) out.extensions = a.extensions as string[];
  return out;
}

export function taskFromV03(v: unknown, field = 'task'): Task {
  const t = obj(v, field);
  if (typeof t.id !== 'string') throw invalidResponse(`${field}.id`, 'is missing');
  const out: Task = { id: t.id, contextId: String(t.contextId ?? ''), status: statusFromV03(t.status, `${field}.status`) };
  if (Array.isArray(t.artifacts)) out.artifacts = t.artifacts.map((a, i) => artifactFromV03(a, `${field}.artifacts[${i}]`));
  if (Array.isArray(t.history)) out.history = t.history.map((m, i) => messageFromV03(m, `${field}.history[${i}]`));
  if (isObject(t.metadata)) out.metadata = t.metadata as JsonObject;
  return out;
}

function statusUpdateFromV03(v: unknown, field: string): StreamResponse {
  const e = obj(v, field);
  const out = { taskId: String(e.taskId ?? ''), contextId: String(e.contextId ?? ''), status: statusFromV03(e.status, `${field}.status`) };
  return { statusUpdate: isObject(e.metadata) ? { ...out, metadata: e.metadata as JsonObject } : out };
}

function artifactUpdateFromV03(v: unknown, field: string): StreamResponse {
  const e = obj(v, field);
  return {
    artifactUpdate: {
      taskId: String(e.taskId ?? ''),
      contextId: String(e.contextId ?? ''),
      artifact: artifactFromV03(e.artifact, `${field}.artifact`),
      ...(typeof e.append === 'boolean' ? { append: e.append } : {}),
      ...(typeof e.lastChunk === 'boolean' ? { lastChunk: e.lastChunk } : {}),
      ...(isObject(e.metadata) ? { metadata: e.metadata as JsonObject } : {}),
    },
  };
}

/** A v0.3 stream result: a bare object with `kind` (JSON-RPC) or a proto StreamResponse wrapper (REST). */
export function streamResponseFromV03(v: unknown): StreamResponse {
  return fromV03(() => {
    const r = obj(v, 'result');
    switch (r.kind) {
      case 'task':
        return { task: taskFromV03(r) };
      case 'message':
        return { message: messageFromV03(r, 'message') };
      case 'status-update':
        return statusUpdateFromV03(r, 'statusUpdate');
      case 'artifact-update':
        return artifactUpdateFromV03(r, 'artifactUpdate');
    }
    if (r.task !== undefined) return { task: taskFromV03(r.task) };
    if (r.message !== undefined || r.msg !== undefined) return { message: messageFromV03(r.message ?? r.msg, 'message') };
    if (r.statusUpdate !== undefined) return statusUpdateFromV03(r.statusUpdate, 'statusUpdate');
    if (r.artifactUpdate !== undefined) return artifactUpdateFromV03(r.artifactUpdate, 'artifactUpdate');
    throw invalidResponse('result', 'is none of task, message, status-update, artifact-update');
  });
}

export function sendResponseFromV03(v: unknown): SendMessageResponse {
  const r = streamResponseFromV03(v);
  if ('task' in r || 'message' in r) return r;
  throw invalidResponse('result', 'is neither a task nor a message');
}

/** `{taskId, pushNotificationConfig}` (JSON-RPC) or `{name: "tasks/{t}/pushNotificationConfigs/{c}", pushNotificationConfig}` (proto). */
export function pushConfigFromV03(v: unknown): TaskPushNotificationConfig {
  const c = obj(v, 'result');
  const inner = obj(c.pushNotificationConfig, 'result.pushNotificationConfig');
  if (typeof inner.url !== 'string') throw invalidResponse('result.pushNotificationConfig.url', 'is missing');
  const named = typeof c.name === 'string' ? /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/.exec(c.name) : null;
  const out: TaskPushNotificationConfig = { url: inner.url };
  const taskId = typeof c.taskId === 'string' ? c.taskId : named?.[1];
  if (taskId) out.taskId = taskId;
  const id = typeof inner.id === 'string' && inner.id ? inner.id : named?.[2];
  if (id) out.id = id;
  if (typeof inner.token === 'string') out.token = inner.token;
  const auth = isObject(inner.authentication) ? inner.authentication : undefined;
  if (auth && Array.isArray(auth.schemes) && typeof auth.schemes[0] === 'string') {
    out.authentication = { scheme: auth.schemes[0], ...(typeof auth.credentials === 'string' ? { credentials: auth.credentials } : {}) };
  }
  return out;
}
