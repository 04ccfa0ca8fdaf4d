/**
 * v0.3 JSON-RPC methods and their params, translated into the core's v1.0 requests. Only
 * request-side translation lives here; results go back through events, tasks, push and cards.
 */
import type { CancelTaskRequest, GetTaskRequest, Message, ListTaskPushNotificationConfigsRequest, SendMessageRequest, SubscribeToTaskRequest } from '../a2a/types.js';
import { invalidParams } from '../a2a/errors.js';
import { obj, optBool, optJsonObject, optNonNegativeInt, optObj, optStrArray, str } from './fields.js';
import { messageToV1 } from './messages.js';
import { pushNotificationConfigToV1 } from './push.js';

/** Each v0.3 slash method and the v1.0 operation it becomes. */
export const V03_METHODS = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
} as const;
export type V03Method = keyof typeof V03_METHODS;

export const isV03Method = (m: string): m is V03Method => Object.hasOwn(V03_METHODS, m);
export const isV03StreamingMethod = (m: V03Method): boolean => m === 'message/stream' || m === 'tasks/resubscribe';

/**
 * `MessageSendParams` → `SendMessageRequest`. `blocking` becomes `returnImmediately = !blocking`;
 * an absent `blocking` (undefined in v0.3) stays absent, so the v1.0 default applies: wait for the
 * task to finish or be interrupted (v1.0 §3.2.2), as a2a-python's v0.3 server did.
 */
export function sendParamsToV1(v: unknown, parseMessage: (m: unknown) => Message = messageToV1): SendMessageRequest {
  const p = obj(v, 'params');
  if (p.message === undefined || p.message === null) throw invalidParams('message', 'is required');
  const out: SendMessageRequest = { message: parseMessage(p.message) };
  const cfg = optObj(p.configuration, 'configuration');
  if (cfg) {
    out.configuration = {};
    const modes = optStrArray(cfg.acceptedOutputModes, 'configuration.acceptedOutputModes');
    if (modes) out.configuration.acceptedOutputModes = modes;
    const hl = optNonNegativeInt(cfg.historyLength, 'configuration.historyLength');
    if (hl !== undefined) out.configuration.historyLength = hl;
    const blocking = optBool(cfg.blocking, 'configuration.blocking');
    if (blocking !== undefined) out.configuration.returnImmediately = !blocking;
    if (cfg.pushNotificationConfig !== undefined && cfg.pushNotificationConfig !== null) {
      out.configuration.taskPushNotificationConfig = pushNotificationConfigToV1(cfg.pushNotificationConfig, 'configuration.pushNotificationConfig');
    }
  }
  const metadata = optJsonObject(p.metadata, 'metadata');
  if (metadata) out.metadata = metadata;
  return out;
}

/** `TaskQueryParams` (`tasks/get`). */
export function taskQueryToV1(v: unknown): GetTaskRequest {
  const p = obj(v, 'params');
  const out: GetTaskRequest = { id: str(p.id, 'id') };
  const hl = optNonNegativeInt(p.historyLength, 'historyLength');
  if (hl !== undefined) out.historyLength = hl;
  return out;
}

/** `TaskIdParams` (`tasks/cancel`). */
export function cancelParamsToV1(v: unknown): CancelTaskRequest {
  const p = obj(v, 'params');
  const out: CancelTaskRequest = { id: str(p.id, 'id') };
  const metadata = optJsonObject(p.metadata, 'metadata');
  if (metadata) out.metadata = metadata;
  return out;
}

/** `TaskIdParams` (`tasks/resubscribe`); v1.0 SubscribeToTask has no metadata. */
export function resubscribeParamsToV1(v: unknown): SubscribeToTaskRequest {
  const p = obj(v, 'params');
  optJsonObject(p.metadata, 'metadata');
  return { id: str(p.id, 'id') };
}

/** `ListTaskPushNotificationConfigParams`: v0.3 `id` is the task id; v0.3 lists are not paged. */
export function listPushConfigsParamsToV1(v: unknown): ListTaskPushNotificationConfigsRequest {
  const p = obj(v, 'params');
  return { taskId: str(p.id, 'id') };
}
