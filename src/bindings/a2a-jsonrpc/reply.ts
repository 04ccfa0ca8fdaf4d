/** JSON-RPC replies and the HTTP status an error gets on this binding, shared by v1.0 and v0.3. */
import type { IncomingMessage } from 'node:http';
import { toA2AError } from '../../protocol/a2a/errors.js';
import { resultJson, writtenTaskText } from '../../protocol/a2a/written-json.js';
import { jsonRpcHttpStatus } from '../../protocol/jsonrpc/http-status.js';
import { withChallenge } from '../auth-challenge.js';
import { withRateLimit } from '../rate-limit-headers.js';

export type Id = string | number | null;

export interface JsonRpcReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the body's UTF-8 length when the reply counted it from its parts (resultReply); absent, the sender counts */
  bodyBytes?: number;
}

/**
 * An error reply to a call; `encode` renders the JSON-RPC error object in the caller's protocol
 * version. The status is protocol/jsonrpc/http-status.ts's; the headers go with it: a 401 or 403
 * carries its challenge (RFC 9110 §11.6.1), a 503 its Retry-After.
 */
export function errorReply(headers: Record<string, string>, err: unknown, encode: (err: unknown) => string): JsonRpcReply {
  const a2a = toA2AError(err);
  const status = jsonRpcHttpStatus(a2a, 'call');
  const kind = a2a.kind;
  if (kind === 'Unauthenticated' || kind === 'PermissionDenied') return { status, headers: withChallenge(headers, err), body: encode(err) };
  if (kind === 'Unavailable') return { status, headers: { ...headers, 'Retry-After': '1' }, body: encode(err) };
  // A quota refusal is a JSON-RPC error like TooManyStreams (HTTP 200); the fields say when to retry all the same.
  if (kind === 'QuotaExceeded') return { status, headers: withRateLimit(headers, err), body: encode(err) };
  return { status, headers, body: encode(err) };
}

/**
 * `{"jsonrpc":"2.0","id":…,"result":…}`; an undefined result is JSON `null`. A task the store has
 * just written is not serialised again (protocol/a2a/written-json.ts).
 */
export function resultBody(id: Id, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"result":${result === undefined ? 'null' : typeof result === 'object' && result !== null ? resultJson(result) : JSON.stringify(result)}}`;
}

/** `{"jsonrpc":"2.0","id":` and `,"result":`, in UTF-8 bytes (ASCII: one a character) */
const ENVELOPE_BYTES = 32;

/**
 * A 200 answering `result`, the body as resultBody writes it, with its byte length counted on the
 * parts it is joined from. `Buffer.byteLength` of the joined body (a rope of its parts) first
 * copies it into one string, and Node copies it again with the head into the socket's write: a
 * blocking send's answer was copied twice a request, ~0.5 KB more of young generation (issue 26).
 */
export function resultReply(headers: Record<string, string>, id: Id, result: unknown): JsonRpcReply {
  const idText = idJson(id);
  const task = typeof result === 'object' && result !== null ? writtenTaskText(result) : undefined;
  if (task !== undefined) {
    // `{"task":` and `}}`
    return { status: 200, headers, body: `{"jsonrpc":"2.0","id":${idText},"result":{"task":${task}}}`, bodyBytes: ENVELOPE_BYTES + Buffer.byteLength(idText) + Buffer.byteLength(task) + 10 };
  }
  const json = result === undefined ? 'null' : typeof result === 'object' && result !== null ? resultJson(result) : JSON.stringify(result);
  return { status: 200, headers, body: `{"jsonrpc":"2.0","id":${idText},"result":${json}}`, bodyBytes: ENVELOPE_BYTES + Buffer.byteLength(idText) + Buffer.byteLength(json) + 1 };
}

/**
 * A request id as JSON. A number id (finite: it was parsed from JSON) is written as `String` writes
 * it, which is what `JSON.stringify` writes for a finite number; only a string id needs the
 * serialiser's escaping (the serialiser's start-up costs more than the few characters of an id).
 */
function idJson(id: Id): string {
  if (typeof id === 'number') return String(id);
  return id === null ? 'null' : JSON.stringify(id);
}

export function queryParam(req: IncomingMessage, name: string): string | undefined {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get(name) ?? undefined;
}
