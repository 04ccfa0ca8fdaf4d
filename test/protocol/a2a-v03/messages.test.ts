import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { messageFromV1, messageToV1, roleFromV1, roleToV1 } from '../../../src/protocol/a2a-v03/messages.js';

const field = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof A2AError) return e.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
};

describe('v0.3 messages', () => {
  it('maps roles both ways and refuses v1.0 role names on v0.3 input', () => {
    expect(roleToV1('user', 'r')).toBe('ROLE_USER');
    expect(roleToV1('agent', 'r')).toBe('ROLE_AGENT');
    expect(roleFromV1('ROLE_AGENT')).toBe('agent');
    expect(field(() => roleToV1('ROLE_USER', 'message.role'))).toBe('message.role');
  });

  it('translates a full v0.3 message and back', () => {
    const v03 = {
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      contextId: 'c1',
      taskId: 't1',
      parts: [{ kind: 'text', text: 'hi' }],
      metadata: { a: 1 },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
    };
    const v1 = messageToV1(v03);
    expect(v1).toEqual({ messageId: 'm1', role: 'ROLE_USER', contextId: 'c1', taskId: 't1', parts: [{ text: 'hi' }], metadata: { a: 1 }, extensions: ['urn:x'], referenceTaskIds: ['t0'] });
    expect(messageFromV1(v1)).toEqual(v03);
  });

  it('refuses a wrong kind, a missing messageId and empty parts', () => {
    expect(field(() => messageToV1({ kind: 'task', messageId: 'm', role: 'user', parts: [{ text: 'x' }] }))).toBe('message.kind');
    expect(field(() => messageToV1({ role: 'user', parts: [{ text: 'x' }] }))).toBe('message.messageId');
    expect(field(() => messageToV1({ messageId: 'm', role: 'user', parts: [] }))).toBe('message.parts');
  });
});
