/**
 * Messages: v0.1 `{role, parts, metadata}` ⇄ v1.0 Message. v0.1 messages carried no id, so one
 * is minted on the way in; the id, task and context are dropped on the way out.
 */
import { randomUUID } from 'node:crypto';
import { invalidParams } from '../a2a/errors.js';
import type { Message } from '../a2a/types.js';
import { obj, optJsonObject } from '../a2a-v03/fields.js';
import { partFromV1, partToV1 } from './parts.js';
import type { V01Message } from './types.js';

export function messageToV1(v: unknown, field = 'message'): Message {
  const m = obj(v, field);
  if (m.role !== 'user') throw invalidParams(`${field}.role`, "must be 'user' for client messages");
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalidParams(`${field}.parts`, 'is required and must be a non-empty array');
  const out: Message = { messageId: randomUUID(), role: 'ROLE_USER', parts: m.parts.map((p, i) => partToV1(p, `${field}.parts[${i}]`)) };
  const metadata = optJsonObject(m.metadata, `${field}.metadata`);
  if (metadata) out.metadata = metadata;
  return out;
}

export function messageFromV1(m: Message): V01Message {
  const out: V01Message = { role: m.role === 'ROLE_AGENT' ? 'agent' : 'user', parts: m.parts.map(partFromV1) };
  if (m.metadata !== undefined) out.metadata = m.metadata;
  return out;
}
