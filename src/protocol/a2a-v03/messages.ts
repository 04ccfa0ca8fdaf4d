/** Messages: v0.3 `{kind:"message", role:"user"|"agent"}` ⇄ v1.0 `{role:"ROLE_USER"|"ROLE_AGENT"}`. */
import { invalidParams } from '../a2a/errors.js';
import type { Message, Role } from '../a2a/types.js';
import { expectKind, obj, optJsonObject, optStr, optStrArray, str } from './fields.js';
import { partFromV1, partToV1 } from './parts.js';
import type { V03Message, V03Role } from './types.js';

const ROLE_TO_V1: Record<V03Role, Role> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };
const ROLE_FROM_V1: Record<Role, V03Role> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };

export function roleToV1(v: unknown, field: string): Role {
  if (v === 'user' || v === 'agent') return ROLE_TO_V1[v];
  throw invalidParams(field, "must be 'user' or 'agent'");
}

export const roleFromV1 = (r: Role): V03Role => ROLE_FROM_V1[r];

export function messageToV1(v: unknown, field = 'message'): Message {
  const m = obj(v, field);
  expectKind(m, 'message', field);
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalidParams(`${field}.parts`, 'is required and must be a non-empty array');
  const out: Message = {
    messageId: str(m.messageId, `${field}.messageId`),
    role: roleToV1(m.role, `${field}.role`),
    parts: m.parts.map((p, i) => partToV1(p, `${field}.parts[${i}]`)),
  };
  withOptionalMessageFields(out, m, field);
  const refs = optStrArray(m.referenceTaskIds, `${field}.referenceTaskIds`);
  if (refs?.length) out.referenceTaskIds = refs;
  return out;
}

/** The optional message fields both v0.3 wire shapes (JSON-RPC and proto JSON) carry alike. */
export function withOptionalMessageFields(out: Message, m: Record<string, unknown>, field: string): void {
  const contextId = optStr(m.contextId, `${field}.contextId`);
  if (contextId) out.contextId = contextId;
  const taskId = optStr(m.taskId, `${field}.taskId`);
  if (taskId) out.taskId = taskId;
  const metadata = optJsonObject(m.metadata, `${field}.metadata`);
  if (metadata) out.metadata = metadata;
  const extensions = optStrArray(m.extensions, `${field}.extensions`);
  if (extensions?.length) out.extensions = extensions;
}

export function messageFromV1(m: Message): V03Message {
  const out: V03Message = { kind: 'message', messageId: m.messageId, role: roleFromV1(m.role), parts: m.parts.map(partFromV1) };
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions?.length) out.extensions = m.extensions;
  if (m.referenceTaskIds?.length) out.referenceTaskIds = m.referenceTaskIds;
  return out;
}
