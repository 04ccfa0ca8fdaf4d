import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { pushConfigRefToV1, pushNotificationConfigToV1, taskPushConfigFromV1, taskPushConfigToV1 } from '../../../src/protocol/a2a-v03/push.js';

const field = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof A2AError) return e.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
};

describe('v0.3 push configs', () => {
  it('flattens set params, keeping the first authentication scheme', () => {
    expect(taskPushConfigToV1({ taskId: 't', pushNotificationConfig: { id: 'c', url: 'https://h/x', token: 'k', authentication: { schemes: ['Bearer', 'Basic'], credentials: 's' } } })).toEqual({
      taskId: 't',
      id: 'c',
      url: 'https://h/x',
      token: 'k',
      authentication: { scheme: 'Bearer', credentials: 's' },
    });
  });

  it('names a config without an id after its task', () => {
    expect(taskPushConfigToV1({ taskId: 't', pushNotificationConfig: { url: 'https://h/x' } })).toEqual({ taskId: 't', id: 't', url: 'https://h/x' });
  });

  it('reads v0.3 get/delete params: id is the task, pushNotificationConfigId the config', () => {
    expect(pushConfigRefToV1({ id: 't', pushNotificationConfigId: 'c' }, true)).toEqual({ taskId: 't', id: 'c' });
    expect(pushConfigRefToV1({ id: 't' }, false)).toEqual({ taskId: 't', id: 't' });
    expect(field(() => pushConfigRefToV1({ id: 't' }, true))).toBe('pushNotificationConfigId');
    expect(field(() => pushConfigRefToV1({ taskId: 't', id: '' }, false))).toBe('id');
  });

  it('refuses bad urls and empty scheme lists', () => {
    expect(field(() => pushNotificationConfigToV1({ url: 'not a url' }, 'pushNotificationConfig'))).toBe('pushNotificationConfig.url');
    expect(field(() => pushNotificationConfigToV1({ url: 'https://h', authentication: {} }, 'c'))).toBe('c.authentication.schemes');
    expect(field(() => taskPushConfigToV1({ pushNotificationConfig: { url: 'https://h' } }))).toBe('taskId');
  });

  it('nests a v1.0 config for v0.3 clients', () => {
    expect(taskPushConfigFromV1({ taskId: 't', id: 'c', url: 'https://h/x', authentication: { scheme: 'Bearer' } })).toEqual({
      taskId: 't',
      pushNotificationConfig: { id: 'c', url: 'https://h/x', authentication: { schemes: ['Bearer'] } },
    });
  });
});
