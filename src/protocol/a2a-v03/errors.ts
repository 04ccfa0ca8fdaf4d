/**
 * Errors for v0.3 clients. Codes -32001…-32007 and the JSON-RPC standard codes are the same in
 * both versions (v0.3.0 a2a.json); v0.3 has no -32008/-32009 and a free-form `error.data`, where
 * v1.0 sends an array of google.rpc details. The ErrorInfo reason and metadata move into `data`.
 */
import { A2A_ERRORS, toA2AError, type A2AErrorKind } from '../a2a/errors.js';
import type { JsonObject } from '../a2a/types.js';
import type { V03JsonRpcError } from './types.js';

/** The v0.3.0 default message of each A2A error, where it differs from v1.0's. */
const V03_MESSAGES: Partial<Record<A2AErrorKind, string>> = {
  PushNotificationNotSupported: 'Push Notification is not supported',
  ExtendedAgentCardNotConfigured: 'Authenticated Extended Card is not configured',
};

/** v1.0-only errors: v0.3 clients get the closest standard code (the reason stays in `data`). */
const V03_CODES: Partial<Record<A2AErrorKind, number>> = {
  ExtensionSupportRequired: -32600, // InvalidRequest: the request lacks an activation it needs
  VersionNotSupported: -32600,
};

export function errorFromV1(err: unknown): V03JsonRpcError {
  const e = toA2AError(err);
  const code = V03_CODES[e.kind] ?? e.identity.jsonrpc;
  const message = e.message === A2A_ERRORS[e.kind].message ? (V03_MESSAGES[e.kind] ?? e.message) : e.message;
  const data: JsonObject = { reason: e.identity.reason };
  if (e.metadata) data.metadata = e.metadata;
  if (e.fieldViolations?.length) data.fieldViolations = e.fieldViolations.map((v) => ({ field: v.field, description: v.description }));
  return { code, message, data };
}
