/**
 * Push notification helpers for clients that run a webhook: a config with a fresh random token to
 * register, and a check of an incoming delivery (the token header both SDKs and Agentport send, and
 * the StreamResponse body every A2A version since v1.0 posts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthenticationInfo, StreamResponse, TaskPushNotificationConfig } from '../protocol/a2a/types.js';
import { asStreamResponse } from './responses.js';

export interface PushConfigInput {
  url: string;
  /** config id; the server assigns one when absent */
  id?: string;
  /** shared secret echoed in `X-A2A-Notification-Token`; generated when absent */
  token?: string;
  /** credentials the agent must send (`Authorization: <scheme> <credentials>`) */
  authentication?: AuthenticationInfo;
}

export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';

export function newPushConfig(taskId: string, input: PushConfigInput): TaskPushNotificationConfig {
  return {
    taskId,
    url: input.url,
    token: input.token ?? randomBytes(24).toString('base64url'),
    ...(input.id ? { id: input.id } : {}),
    ...(input.authentication ? { authentication: input.authentication } : {}),
  };
}

export interface PushDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * The event of a delivery whose token matches `expectedToken` (constant-time compare), or undefined
 * when the token is missing or wrong: the receiver should then answer 401 and ignore the body.
 */
export function readPushDelivery(d: PushDelivery, expectedToken: string): StreamResponse | undefined {
  const raw = d.headers[NOTIFICATION_TOKEN_HEADER];
  const got = Buffer.from(Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? ''));
  const want = Buffer.from(expectedToken);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  return asStreamResponse(d.body);
}
