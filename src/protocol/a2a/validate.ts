/**
 * Runtime validation of A2A v1.0 requests at the trust boundary. Hand-written rather than schema
 * driven because it is on the hot path and must name the offending field in ProtoJSON terms.
 * Lenient where ProtoJSON is (integer enums, unknown fields ignored), strict on REQUIRED fields.
 */
import { invalidParams } from './errors.js';
import {
  TASK_STATE_NUMBERS,
  TASK_STATES,
  type JsonObject,
  type ListTaskPushNotificationConfigsRequest,
  type ListTasksRequest,
  type Message,
  type Part,
  type Role,
  type SendMessageRequest,
  type TaskPushNotificationConfig,
  type TaskState,
} from './types.js';

type Obj = Record<string, unknown>;

/** Deeper JSON than this in data parts or metadata is refused: it is no real payload, and it would exhaust the stack of every serializer after us. */
export const MAX_JSON_DEPTH = 64;

function checkDepth(v: unknown, field: string): void {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > MAX_JSON_DEPTH) throw invalidParams(field, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
}

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(v: unknown, field: string): Obj {
  if (!isObject(v)) throw invalidParams(field, 'must be an object');
  return v;
}
function optObj(v: unknown, field: string): Obj | undefined {
  return v === undefined || v === null ? undefined : obj(v, field);
}
function str(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.length === 0) throw invalidParams(field, 'is required and must be a non-empty string');
  return v;
}
function optStr(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalidParams(field, 'must be a string');
  return v;
}
function optBool(v: unknown, field: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalidParams(field, 'must be a boolean');
  return v;
}
function optInt(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalidParams(field, 'must be an integer');
  return n;
}
function optStrArray(v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidParams(field, 'must be an array of strings');
  return v as string[];
}
function optMetadata(v: unknown, field: string): JsonObject | undefined {
  const o = optObj(v, field) as JsonObject | undefined;
  if (o) checkDepth(o, field);
  return o;
}

export function historyLength(v: unknown, field = 'historyLength'): number | undefined {
  const n = optInt(v, field);
  if (n !== undefined && n < 0) throw invalidParams(field, 'must not be negative');
  return n;
}

const ROLE_BY_NUMBER: Record<number, Role> = { 1: 'ROLE_USER', 2: 'ROLE_AGENT' };

function role(v: unknown, field: string): Role {
  if (v === 'ROLE_USER' || v === 'ROLE_AGENT') return v;
  if (typeof v === 'number' && ROLE_BY_NUMBER[v]) return ROLE_BY_NUMBER[v];
  throw invalidParams(field, 'must be ROLE_USER or ROLE_AGENT');
}

export function taskState(v: unknown, field: string): TaskState {
  if (typeof v === 'string' && (TASK_STATES as readonly string[]).includes(v)) return v as TaskState;
  if (typeof v === 'number') {
    const name = Object.entries(TASK_STATE_NUMBERS).find(([, n]) => n === v)?.[0];
    if (name && name !== 'TASK_STATE_UNSPECIFIED') return name as TaskState;
  }
  throw invalidParams(field, `must be one of ${TASK_STATES.join(', ')}`);
}

export function part(v: unknown, field: string): Part {
  return partAt(v, field, -1);
}

/**
 * The field a value of a part or message is named by in an error: `message.parts[0].text`. Built
 * only when a value is refused: the names of the values that pass were each a string a request
 * (issue 26, bytes allocated a request).
 */
function fieldName(field: string, index: number, sub?: string): string {
  const at = index < 0 ? field : `${field}.parts[${index}]`;
  return sub === undefined ? at : `${at}.${sub}`;
}

/** `field.parts[index]` (or `field` itself for an index < 0): the part, with the values it carries checked, copied without what it does not know. */
function partAt(v: unknown, field: string, index: number): Part {
  if (!isObject(v)) throw invalidParams(fieldName(field, index), 'must be an object');
  const p = v;
  // exactly one of the four (counted, not filtered into an array)
  const present = (p.text !== undefined ? 1 : 0) + (p.raw !== undefined ? 1 : 0) + (p.url !== undefined ? 1 : 0) + (p.data !== undefined ? 1 : 0);
  if (present !== 1) throw invalidParams(fieldName(field, index), 'must carry exactly one of text, raw, url, data');
  const out: Part = {};
  if (p.text !== undefined) {
    if (typeof p.text !== 'string') throw invalidParams(fieldName(field, index, 'text'), 'must be a string');
    out.text = p.text;
  } else if (p.raw !== undefined) {
    if (typeof p.raw !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(p.raw)) throw invalidParams(fieldName(field, index, 'raw'), 'must be base64');
    out.raw = p.raw;
  } else if (p.url !== undefined) {
    if (typeof p.url !== 'string' || p.url.length === 0) throw invalidParams(fieldName(field, index, 'url'), 'is required and must be a non-empty string');
    out.url = p.url;
  } else {
    if (typeof p.data === 'object' && p.data !== null) checkDepth(p.data, fieldName(field, index, 'data'));
    out.data = p.data as Part['data'];
  }
  if (p.filename !== undefined) {
    const filename = optStr(p.filename, fieldName(field, index, 'filename'));
    if (filename !== undefined) out.filename = filename;
  }
  const mediaTypeRaw = p.mediaType ?? p.media_type;
  if (mediaTypeRaw !== undefined) {
    const mediaType = optStr(mediaTypeRaw, fieldName(field, index, 'mediaType'));
    if (mediaType !== undefined) out.mediaType = mediaType;
  }
  if (p.metadata !== undefined && p.metadata !== null) {
    const metadata = optMetadata(p.metadata, fieldName(field, index, 'metadata'));
    if (metadata) out.metadata = metadata;
  }
  return out;
}

export function message(v: unknown, field = 'message'): Message {
  const m = obj(v, field);
  const partsRaw = m.parts;
  if (!Array.isArray(partsRaw) || partsRaw.length === 0) throw invalidParams(`${field}.parts`, 'is required and must be a non-empty array');
  const messageId = m.messageId ?? m.message_id;
  if (typeof messageId !== 'string' || messageId.length === 0) throw invalidParams(`${field}.messageId`, 'is required and must be a non-empty string');
  const out: Message = {
    messageId,
    role: roleOf(m.role, field),
    parts: partsOf(partsRaw, field),
  };
  // The optional fields are named (a string built) only when one is present and refused.
  const contextIdRaw = m.contextId ?? m.context_id;
  if (contextIdRaw !== undefined) {
    const contextId = optStr(contextIdRaw, `${field}.contextId`);
    if (contextId) out.contextId = contextId;
  }
  const taskIdRaw = m.taskId ?? m.task_id;
  if (taskIdRaw !== undefined) {
    const taskId = optStr(taskIdRaw, `${field}.taskId`);
    if (taskId) out.taskId = taskId;
  }
  if (m.metadata !== undefined && m.metadata !== null) {
    const metadata = optMetadata(m.metadata, `${field}.metadata`);
    if (metadata) out.metadata = metadata;
  }
  if (m.extensions !== undefined && m.extensions !== null) {
    const extensions = optStrArray(m.extensions, `${field}.extensions`);
    if (extensions?.length) out.extensions = extensions;
  }
  const refsRaw = m.referenceTaskIds ?? m.reference_task_ids;
  if (refsRaw !== undefined && refsRaw !== null) {
    const refs = optStrArray(refsRaw, `${field}.referenceTaskIds`);
    if (refs?.length) out.referenceTaskIds = refs;
  }
  return out;
}

function roleOf(v: unknown, field: string): Role {
  if (v === 'ROLE_USER' || v === 'ROLE_AGENT') return v;
  return role(v, `${field}.role`);
}

/** The parts checked; a message of one part (most of them) without `map`'s closure. */
function partsOf(raw: unknown[], field: string): Part[] {
  if (raw.length === 1) return [partAt(raw[0], field, 0)];
  return raw.map((p, i) => partAt(p, field, i));
}

export function pushConfig(v: unknown, field: string, requireUrl = true): TaskPushNotificationConfig {
  const c = obj(v, field);
  const url = requireUrl ? str(c.url, `${field}.url`) : (optStr(c.url, `${field}.url`) ?? '');
  if (url) {
    try {
      new URL(url);
    } catch {
      throw invalidParams(`${field}.url`, 'must be an absolute URL');
    }
  }
  const out: TaskPushNotificationConfig = { url };
  const id = optStr(c.id, `${field}.id`);
  if (id) out.id = id;
  const taskId = optStr(c.taskId ?? c.task_id, `${field}.taskId`);
  if (taskId) out.taskId = taskId;
  const tenant = optStr(c.tenant, `${field}.tenant`);
  if (tenant) out.tenant = tenant;
  const token = optStr(c.token, `${field}.token`);
  if (token) out.token = token;
  const auth = optObj(c.authentication, `${field}.authentication`);
  if (auth) {
    out.authentication = { scheme: str(auth.scheme, `${field}.authentication.scheme`) };
    const credentials = optStr(auth.credentials, `${field}.authentication.credentials`);
    if (credentials) out.authentication.credentials = credentials;
  }
  return out;
}

export function sendMessageRequest(v: unknown): SendMessageRequest {
  const p = obj(v, 'params');
  if (p.message === undefined || p.message === null) throw invalidParams('message', 'is required');
  const out: SendMessageRequest = { message: message(p.message) };
  const tenant = optStr(p.tenant, 'tenant');
  if (tenant) out.tenant = tenant;
  const cfg = optObj(p.configuration, 'configuration');
  if (cfg) {
    out.configuration = {};
    const modes = optStrArray(cfg.acceptedOutputModes ?? cfg.accepted_output_modes, 'configuration.acceptedOutputModes');
    if (modes) out.configuration.acceptedOutputModes = modes;
    const hl = historyLength(cfg.historyLength ?? cfg.history_length, 'configuration.historyLength');
    if (hl !== undefined) out.configuration.historyLength = hl;
    const ri = optBool(cfg.returnImmediately ?? cfg.return_immediately, 'configuration.returnImmediately');
    if (ri !== undefined) out.configuration.returnImmediately = ri;
    const push = cfg.taskPushNotificationConfig ?? cfg.task_push_notification_config;
    if (push !== undefined && push !== null) out.configuration.taskPushNotificationConfig = pushConfig(push, 'configuration.taskPushNotificationConfig');
  }
  const metadata = optMetadata(p.metadata, 'metadata');
  if (metadata) out.metadata = metadata;
  return out;
}

export function idRequest(v: unknown, idField = 'id'): { tenant?: string; id: string } & Obj {
  const p = obj(v ?? {}, 'params');
  return { ...p, tenant: optStr(p.tenant, 'tenant'), id: str(p[idField], idField) };
}

export function listTasksRequest(v: unknown): ListTasksRequest {
  const p = obj(v ?? {}, 'params');
  const out: ListTasksRequest = {};
  const tenant = optStr(p.tenant, 'tenant');
  if (tenant) out.tenant = tenant;
  const contextId = optStr(p.contextId ?? p.context_id, 'contextId');
  if (contextId) out.contextId = contextId;
  const status = p.status;
  if (status !== undefined && status !== null && status !== '' && status !== 'TASK_STATE_UNSPECIFIED' && status !== 0) {
    out.status = taskState(status, 'status');
  }
  const pageSize = optInt(p.pageSize ?? p.page_size, 'pageSize');
  if (pageSize !== undefined) {
    if (pageSize < 1 || pageSize > 100) throw invalidParams('pageSize', 'must be between 1 and 100');
    out.pageSize = pageSize;
  }
  const pageToken = optStr(p.pageToken ?? p.page_token, 'pageToken');
  if (pageToken) out.pageToken = pageToken;
  const hl = historyLength(p.historyLength ?? p.history_length);
  if (hl !== undefined) out.historyLength = hl;
  const after = optStr(p.statusTimestampAfter ?? p.status_timestamp_after, 'statusTimestampAfter');
  if (after) {
    if (Number.isNaN(Date.parse(after))) throw invalidParams('statusTimestampAfter', 'must be an RFC 3339 timestamp');
    out.statusTimestampAfter = after;
  }
  const ia = optBool(p.includeArtifacts ?? p.include_artifacts, 'includeArtifacts');
  if (ia !== undefined) out.includeArtifacts = ia;
  return out;
}

export function listPushConfigsRequest(v: unknown): ListTaskPushNotificationConfigsRequest {
  const p = obj(v ?? {}, 'params');
  const out: ListTaskPushNotificationConfigsRequest = { taskId: str(p.taskId ?? p.task_id, 'taskId') };
  const tenant = optStr(p.tenant, 'tenant');
  if (tenant) out.tenant = tenant;
  const pageSize = optInt(p.pageSize ?? p.page_size, 'pageSize');
  if (pageSize !== undefined) {
    if (pageSize < 0 || pageSize > 100) throw invalidParams('pageSize', 'must be between 0 and 100');
    if (pageSize > 0) out.pageSize = pageSize;
  }
  const pageToken = optStr(p.pageToken ?? p.page_token, 'pageToken');
  if (pageToken) out.pageToken = pageToken;
  return out;
}

export function pushConfigRef(v: unknown): { tenant?: string; taskId: string; id: string } {
  const p = obj(v ?? {}, 'params');
  return { tenant: optStr(p.tenant, 'tenant'), taskId: str(p.taskId ?? p.task_id, 'taskId'), id: str(p.id, 'id') };
}
