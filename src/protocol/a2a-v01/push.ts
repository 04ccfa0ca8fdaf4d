/**
 * Push notification configs. v0.1 had one config per task (`tasks/pushNotification/set|get`,
 * `{id:<task>, pushNotificationConfig}`), so it is stored under the task's own id as config id,
 * as the v0.3 translation does for configs without an id.
 */
import type { TaskPushNotificationConfig } from '../a2a/types.js';
import { pushNotificationConfigToV1 } from '../a2a-v03/push.js';
import type { V01PushNotificationConfig, V01TaskPushNotificationConfig } from './types.js';

/** A v0.1 PushNotificationConfig (same fields as v0.3's, without `id`). Lossy: only the first scheme is kept. */
export function pushConfigToV1(v: unknown, serverTaskId: string, field = 'pushNotificationConfig'): TaskPushNotificationConfig {
  const { id: _ignored, ...cfg } = pushNotificationConfigToV1(v, field);
  return { ...cfg, taskId: serverTaskId, id: serverTaskId };
}

export function pushConfigFromV1(c: TaskPushNotificationConfig): V01PushNotificationConfig {
  const out: V01PushNotificationConfig = { url: c.url };
  if (c.token !== undefined) out.token = c.token;
  if (c.authentication) {
    out.authentication = { schemes: [c.authentication.scheme] };
    if (c.authentication.credentials !== undefined) out.authentication.credentials = c.authentication.credentials;
  }
  return out;
}

export const taskPushConfigFromV1 = (clientId: string, c: TaskPushNotificationConfig): V01TaskPushNotificationConfig => ({
  id: clientId,
  pushNotificationConfig: pushConfigFromV1(c),
});
