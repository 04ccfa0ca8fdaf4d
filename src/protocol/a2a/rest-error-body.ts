/**
 * The HTTP+JSON error body (spec §11): a google.rpc.Status in `{"error": …}` with the HTTP status
 * from the error table. A wire format, so every route answering in the REST shape (the binding,
 * the edge, the management and OAuth routes) encodes errors here.
 */
import { toA2AError } from './errors.js';

export function restErrorBody(err: unknown): { status: number; body: string } {
  const e = toA2AError(err);
  return {
    status: e.identity.http,
    body: JSON.stringify({ error: { code: e.identity.http, status: e.identity.grpc, message: e.message, details: e.details() } }),
  };
}
