/**
 * Push notification configs. v0.3 nests the config (`{taskId, pushNotificationConfig:{id,url,…}}`)
 * and lets authentication name several schemes; v1.0 is flat with one `scheme`.
 */
import { invalidParams } from '../a2a/errors.js';
import type { TaskPushConfigRef, TaskPushNotificationConfig } from '../a2a/types.js';
import { obj, optObj, optStr, str } from './fields.js';
import type { V03PushNotificationConfig, V03TaskPushNotificationConfig } from './types.js';

/**
 * A v0.3 `PushNotificationConfig` (the inner object). Lossy: v1.0 carries one authentication
 * scheme, so only the first of `schemes` is kept.
 */
export function pushNotificationConfigToV1(v: unknown, field: string): TaskPushNotificationConfig {
  const c = obj(v, field);
  const url = str(c.url, `${field}.url`);
  try {
    new URL(url);
  } catch {
    throw invalidParams(`${field}.url`, 'must be an absolute URL');
  }
  const out: TaskPushNotificationConfig = { url };
  const id = optStr(c.id, `${field}.id`);
  if (id) out.id = id;
  const token = optStr(c.token, `${field}.token`);
  if (token) out.token = token;
  const auth = optObj(c.authentication, `${field}.authentication`);
  if (auth) {
    const schemes = auth.schemes;
    if (!Array.isArray(schemes) || schemes.length === 0 || schemes.some((s) => typeof s !== 'string' || s === '')) {
      throw invalidParams(`${field}.authentication.schemes`, 'is required and must be a non-empty array of strings');
    }
    out.authentication = { scheme: schemes[0] as string };
    const credentials = optStr(auth.credentials, `${field}.authentication.credentials`);
    if (credentials) out.authentication.credentials = credentials;
  }
  return out;
}

/**
 * `tasks/pushNotificationConfig/set` params. A config without an id gets the task id, as the v0.3
 * SDKs did, so that `get` with only the task id (no `pushNotificationConfigId`) finds it again.
 */
export function taskPushConfigToV1(v: unknown): TaskPushNotificationConfig {
  const p = obj(v, 'params');
  const taskId = str(p.taskId, 'taskId');
  const cfg = pushNotificationConfigToV1(p.pushNotificationConfig, 'pushNotificationConfig');
  return { ...cfg, taskId, id: cfg.id ?? taskId };
}

/**
 * `tasks/pushNotificationConfig/get` and `…/delete` params: v0.3 `id` is the TASK id and
 * `pushNotificationConfigId` the config id; v1.0 calls them `taskId` and `id`. `get` may omit the
 * config id (v0.3 allowed bare TaskIdParams): the task id then names the config, see above.
 */
export function pushConfigRefToV1(v: unknown, requireConfigId: boolean): TaskPushConfigRef {
  const p = obj(v, 'params');
  const taskId = str(p.id, 'id');
  const configId = requireConfigId ? str(p.pushNotificationConfigId, 'pushNotificationConfigId') : optStr(p.pushNotificationConfigId, 'pushNotificationConfigId');
  return { taskId, id: configId ?? taskId };
}

export function pushNotificationConfigFromV1(c: TaskPushNotificationConfig): V03PushNotificationConfig {
  const out: V03PushNotificationConfig = { url: c.url };
  if (c.id !== undefined) out.id = c.id;
  if (c.token !== undefined) out.token = c.token;
  if (c.authentication) {
    out.authentication = { schemes: [c.authentication.scheme] };
    if (c.authentication.credentials !== undefined) out.authentication.credentials = c.authentication.credentials;
  }
  return out;
}

export function taskPushConfigFromV1(c: TaskPushNotificationConfig, taskId = c.taskId ?? ''): V03TaskPushNotificationConfig {
  return { taskId, pushNotificationConfig: pushNotificationConfigFromV1(c) };
}
