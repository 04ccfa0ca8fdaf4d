/**
 * Errors for v0.1 clients (docs/specification.md §8 at v0.1.0). -32001…-32005 mean what they mean
 * in v1.0; v0.1's -32006…-32009 meant something else (StreamingNotSupported, AuthenticationRequired,
 * AuthorizationFailed, InvalidTaskState), so v1.0 errors in that range are renumbered, and auth
 * failures get v0.1's own codes. `data` is free-form: the reason and field violations.
 */
import { A2A_ERRORS, toA2AError, type A2AErrorKind } from '../a2a/errors.js';
import type { JsonObject } from '../a2a/types.js';
import type { V01JsonRpcError } from './types.js';

const NAMESPACED_ID = /(\S+)\.[0-9a-f]{12}\b/g;

const V01_CODES: Partial<Record<A2AErrorKind, number>> = {
  Unauthenticated: -32007,
  PermissionDenied: -32008,
  InvalidAgentResponse: -32603,
  ExtendedAgentCardNotConfigured: -32004,
  ExtensionSupportRequired: -32600,
  VersionNotSupported: -32600,
};

/** v0.1's wording, where the error's message is the default one. */
const V01_MESSAGES: Partial<Record<A2AErrorKind, string>> = {
  PushNotificationNotSupported: 'Push Notification is not supported',
  Unauthenticated: 'Authentication required',
  PermissionDenied: 'Authorization failed',
};

export function errorFromV1(err: unknown): V01JsonRpcError {
  const e = toA2AError(err);
  const code = V01_CODES[e.kind] ?? e.identity.jsonrpc;
  // Messages name tasks by server id; a v0.1 client knows its own (task-ids.ts).
  const message = e.message === A2A_ERRORS[e.kind].message ? (V01_MESSAGES[e.kind] ?? e.message) : e.message.replace(NAMESPACED_ID, '$1');
  const data: JsonObject = { reason: e.identity.reason };
  if (e.fieldViolations?.length) data.fieldViolations = e.fieldViolations.map((v) => ({ field: v.field, description: v.description }));
  return { code, message, data };
}
