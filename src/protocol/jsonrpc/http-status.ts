/**
 * The HTTP status a JSON-RPC error goes out with, for every face that speaks JSON-RPC over HTTP
 * (A2A v1.0, v0.3 and v0.1, MCP): decided here once, not by each face.
 *
 * JSON-RPC over HTTP answers a call's error with 200: the error is in the body, the transport
 * worked. Three call errors are HTTP-level all the same: a missing or refused credential (401, with
 * its challenge, RFC 9110 §11.6.1), a refused permission (403), and a backing service that is down
 * (503 with Retry-After, which HTTP clients retry). A request the edge refused before a JSON-RPC
 * message was read (a body too large or too slow, the server starting or failed to start, the face
 * throwing) has no call to answer: the HTTP status says what happened, as on HTTP+JSON.
 */
import type { A2AError, A2AErrorKind } from '../a2a/errors.js';

/** `call`: the error answers a JSON-RPC call; `edge`: the request was refused before one was read. */
export type JsonRpcErrorStage = 'call' | 'edge';

/** The call errors whose HTTP status is their own (HTTP+JSON's), not 200. */
const HTTP_LEVEL_IN_A_CALL: ReadonlySet<A2AErrorKind> = new Set(['Unauthenticated', 'PermissionDenied', 'Unavailable']);

export function jsonRpcHttpStatus(err: A2AError, stage: JsonRpcErrorStage): number {
  if (stage === 'edge' || HTTP_LEVEL_IN_A_CALL.has(err.kind)) return err.identity.http;
  return 200;
}
