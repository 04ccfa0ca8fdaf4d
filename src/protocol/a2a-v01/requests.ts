/**
 * v0.1 JSON-RPC methods and their params. `tasks/send` and `tasks/sendSubscribe` carry the task id
 * the client chose and `sessionId` as the context; see task-ids.ts for how that id maps to ours.
 */
import { invalidParams } from '../a2a/errors.js';
import type { SendMessageRequest } from '../a2a/types.js';
import { obj, optJsonObject, optNonNegativeInt, optStr, str } from '../a2a-v03/fields.js';
import { messageToV1 } from './messages.js';
import { pushConfigToV1 } from './push.js';

/** Methods only v0.1 had; detected by name on the JSON-RPC endpoints. */
export const V01_ONLY_METHODS = ['tasks/send', 'tasks/sendSubscribe', 'tasks/pushNotification/set', 'tasks/pushNotification/get'] as const;
/** Methods v0.1 shares with v0.3 by name and params; which version asked is told by the task id (src/bindings/a2a-legacy/jsonrpc.ts). */
export const V01_SHARED_METHODS = ['tasks/get', 'tasks/cancel', 'tasks/resubscribe'] as const;
export type V01Method = (typeof V01_ONLY_METHODS)[number] | (typeof V01_SHARED_METHODS)[number];

export const isV01OnlyMethod = (m: string): m is V01Method => (V01_ONLY_METHODS as readonly string[]).includes(m);
export const isV01SharedMethod = (m: string): m is V01Method => (V01_SHARED_METHODS as readonly string[]).includes(m);
export const isV01StreamingMethod = (m: V01Method): boolean => m === 'tasks/sendSubscribe' || m === 'tasks/resubscribe';

export interface V01SendParams {
  /** the id the client chose */
  clientId: string;
  sessionId?: string;
  historyLength?: number;
  /** the request, without task or context: the dispatcher adds them once it knows whether the task exists */
  request: SendMessageRequest;
}

/**
 * `TaskSendParams`. v0.1 `tasks/send` returned the task once the agent was done with this message
 * (the client polled otherwise), so it blocks like v1.0's default. The inline push config is
 * completed by the dispatcher, which knows the server task id.
 */
export function sendParamsToV1(v: unknown): V01SendParams {
  const p = obj(v, 'params');
  const clientId = str(p.id, 'id');
  if (p.message === undefined || p.message === null) throw invalidParams('message', 'is required');
  const request: SendMessageRequest = { message: messageToV1(p.message) };
  const historyLength = optNonNegativeInt(p.historyLength, 'historyLength');
  const metadata = optJsonObject(p.metadata, 'metadata');
  if (metadata) request.metadata = metadata;
  const sessionId = optStr(p.sessionId, 'sessionId');
  return { clientId, request, ...(sessionId ? { sessionId } : {}), ...(historyLength !== undefined ? { historyLength } : {}) };
}

/** The inline `pushNotification` of TaskSendParams, once the server task id is known. */
export function inlinePushToV1(v: unknown, serverTaskId: string) {
  const p = obj(v, 'params');
  if (p.pushNotification === undefined || p.pushNotification === null) return undefined;
  return pushConfigToV1(p.pushNotification, serverTaskId, 'pushNotification');
}

/** `TaskQueryParams` / `TaskIdParams`: the client's task id and, for get, historyLength. */
export function taskQueryToV1(v: unknown): { clientId: string; historyLength?: number } {
  const p = obj(v, 'params');
  const clientId = str(p.id, 'id');
  optJsonObject(p.metadata, 'metadata');
  const hl = optNonNegativeInt(p.historyLength, 'historyLength');
  return { clientId, ...(hl !== undefined ? { historyLength: hl } : {}) };
}

/** `TaskPushNotificationConfig` params of `tasks/pushNotification/set`. */
export function setPushParams(v: unknown): { clientId: string; config: unknown } {
  const p = obj(v, 'params');
  return { clientId: str(p.id, 'id'), config: p.pushNotificationConfig };
}
