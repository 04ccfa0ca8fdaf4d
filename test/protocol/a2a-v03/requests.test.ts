import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { V03_METHODS, cancelParamsToV1, isV03Method, listPushConfigsParamsToV1, resubscribeParamsToV1, sendParamsToV1, taskQueryToV1 } from '../../../src/protocol/a2a-v03/requests.js';

const field = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof A2AError) return e.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
};
const message = { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

describe('v0.3 requests', () => {
  it('knows exactly the ten v0.3 JSON-RPC methods', () => {
    expect(Object.keys(V03_METHODS).sort()).toEqual(
      [
        'agent/getAuthenticatedExtendedCard',
        'message/send',
        'message/stream',
        'tasks/cancel',
        'tasks/get',
        'tasks/pushNotificationConfig/delete',
        'tasks/pushNotificationConfig/get',
        'tasks/pushNotificationConfig/list',
        'tasks/pushNotificationConfig/set',
        'tasks/resubscribe',
      ].sort(),
    );
    expect(isV03Method('SendMessage')).toBe(false);
    expect(isV03Method('toString')).toBe(false);
  });

  it('maps MessageSendParams, blocking becoming returnImmediately = !blocking', () => {
    expect(sendParamsToV1({ message, configuration: { blocking: true, historyLength: 2, acceptedOutputModes: ['text/plain'] }, metadata: { a: 1 } })).toEqual({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { returnImmediately: false, historyLength: 2, acceptedOutputModes: ['text/plain'] },
      metadata: { a: 1 },
    });
    expect(sendParamsToV1({ message, configuration: { blocking: false } }).configuration).toEqual({ returnImmediately: true });
  });

  it('leaves an absent blocking absent, so the v1.0 default (wait) applies', () => {
    expect(sendParamsToV1({ message, configuration: {} }).configuration).toEqual({});
    expect(sendParamsToV1({ message }).configuration).toBeUndefined();
  });

  it('maps configuration.pushNotificationConfig to taskPushNotificationConfig', () => {
    expect(sendParamsToV1({ message, configuration: { pushNotificationConfig: { url: 'https://h/x', authentication: { schemes: ['Bearer'] } } } }).configuration).toEqual({
      taskPushNotificationConfig: { url: 'https://h/x', authentication: { scheme: 'Bearer' } },
    });
  });

  it('maps task query and id params', () => {
    expect(taskQueryToV1({ id: 't', historyLength: 3 })).toEqual({ id: 't', historyLength: 3 });
    expect(cancelParamsToV1({ id: 't', metadata: { why: 'x' } })).toEqual({ id: 't', metadata: { why: 'x' } });
    expect(resubscribeParamsToV1({ id: 't' })).toEqual({ id: 't' });
    expect(listPushConfigsParamsToV1({ id: 't' })).toEqual({ taskId: 't' });
  });

  it('refuses invalid params naming the v0.3 field', () => {
    expect(field(() => sendParamsToV1({}))).toBe('message');
    expect(field(() => sendParamsToV1({ message, configuration: { historyLength: -1 } }))).toBe('configuration.historyLength');
    expect(field(() => taskQueryToV1({ id: 't', historyLength: 1.5 }))).toBe('historyLength');
    expect(field(() => taskQueryToV1({}))).toBe('id');
    expect(field(() => cancelParamsToV1({ id: 7 }))).toBe('id');
  });
});
