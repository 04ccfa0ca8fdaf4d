/** Building user messages: a fresh `messageId` each time (spec: unique per message, chosen by its author). */
import { randomUUID } from 'node:crypto';
import type { Message, Part } from '../protocol/a2a/types.js';

export interface MessageInput {
  contextId?: string;
  taskId?: string;
  /** parts after the text (files, data) */
  parts?: Part[];
}

export function textMessage(text: string | undefined, o: MessageInput = {}): Message {
  const parts: Part[] = [...(text === undefined || text === '' ? [] : [{ text }]), ...(o.parts ?? [])];
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(o.contextId ? { contextId: o.contextId } : {}),
    ...(o.taskId ? { taskId: o.taskId } : {}),
  };
}
