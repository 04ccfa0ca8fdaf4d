/**
 * v1.0 requests → v0.3 params. `blocking` is always sent (= !returnImmediately): an absent
 * `blocking` was undefined in v0.3 (a2a-js did not wait, a2a-python did), and v1.0 callers of this
 * client expect the v1.0 default, waiting.
 */
import type { SendMessageRequest, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import { messageFromV1 } from '../../protocol/a2a-v03/messages.js';
import { messageToProto } from '../../protocol/a2a-v03/protojson.js';
import { pushNotificationConfigFromV1 } from '../../protocol/a2a-v03/push.js';

function configuration(req: SendMessageRequest, pushKey: 'pushNotificationConfig' | 'pushNotification'): Record<string, unknown> {
  const c = req.configuration ?? {};
  return {
    blocking: c.returnImmediately !== true,
    ...(c.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
    ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
    ...(c.taskPushNotificationConfig ? { [pushKey]: pushNotificationConfigFromV1(c.taskPushNotificationConfig) } : {}),
  };
}

/** `MessageSendParams` of v0.3 JSON-RPC. */
export function sendParamsToV03(req: SendMessageRequest): Record<string, unknown> {
  return { message: messageFromV1(req.message), configuration: configuration(req, 'pushNotificationConfig'), ...(req.metadata ? { metadata: req.metadata } : {}) };
}

/** The v0.3 proto `SendMessageRequest` in JSON, for v0.3 HTTP+JSON. */
export function sendBodyToV03Proto(req: SendMessageRequest): Record<string, unknown> {
  return { message: messageToProto(req.message), configuration: configuration(req, 'pushNotification'), ...(req.metadata ? { metadata: req.metadata } : {}) };
}

export function pushConfigToV03(c: TaskPushNotificationConfig): { taskId: string; pushNotificationConfig: ReturnType<typeof pushNotificationConfigFromV1> } {
  return { taskId: c.taskId ?? '', pushNotificationConfig: pushNotificationConfigFromV1(c) };
}
