/**
 * JSON-RPC 2.0 over HTTP as both A2A versions use it: one POST per call, SSE for streams where each
 * `data:` is a whole JSON-RPC response. Errors come back as A2AClientError; v1.0 puts google.rpc
 * details in `error.data` (an array), v0.3 a free-form object that Agentport and a2a-js fill with
 * `{reason}`; both are read.
 */
import { randomUUID } from 'node:crypto';
import { A2AClientError, reasonOf, TransportError } from '../errors.js';
import { httpSend, isEventStream, isObject, notA2A, readJson, type HttpOptions } from '../http.js';
import { readSseEvents } from '../sse.js';
import type { CallOptions, SubscribeOptions } from '../transport.js';

export interface JsonRpcEndpoint {
  http: HttpOptions;
  url: string;
  /** `A2A-Version` header value; undefined sends none (v0.3 servers that predate the header) */
  version: string | undefined;
  extensionsHeader?: string;
}

export interface RawStreamEvent {
  result: unknown;
  id?: string;
}

function errorFrom(body: Record<string, unknown>, httpStatus: number): A2AClientError {
  const e = body.error as Record<string, unknown>;
  const data = e.data;
  const reason = reasonOf(data) ?? (isObject(data) && typeof data.reason === 'string' ? data.reason : undefined);
  return new A2AClientError(typeof e.message === 'string' ? e.message : 'A2A error', {
    code: typeof e.code === 'number' ? e.code : undefined,
    httpStatus,
    ...(reason === undefined ? {} : { reason }),
    ...(Array.isArray(data) ? { details: data } : {}),
    data,
  });
}

function envelope(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: randomUUID(), method, ...(params === undefined ? {} : { params }) };
}

/** A unary call: the `result`, or an A2AClientError, or TransportError when the answer is not JSON-RPC. */
export async function jsonRpcCall(ep: JsonRpcEndpoint, method: string, params: unknown, o: CallOptions = {}): Promise<unknown> {
  const signal = o.signal;
  const res = await httpSend(ep.http, {
    method: 'POST',
    url: ep.url,
    version: ep.version,
    body: envelope(method, params),
    headers: { ...o.headers, accept: 'application/json' },
    ...(ep.extensionsHeader ? { extensionsHeader: ep.extensionsHeader } : {}),
    ...(signal ? { signal } : {}),
  });
  const body = await readJson(res);
  if (isObject(body) && isObject(body.error)) throw errorFrom(body, res.status);
  if (isObject(body) && 'result' in body && res.ok) return body.result;
  throw notA2A(res, ep.url);
}

/** A streaming call: each event's `result` with its SSE id, until the server closes the stream. */
export async function* jsonRpcStream(ep: JsonRpcEndpoint, method: string, params: unknown, opts: SubscribeOptions = {}): AsyncGenerator<RawStreamEvent> {
  const res = await httpSend(ep.http, {
    method: 'POST',
    url: ep.url,
    version: ep.version,
    body: envelope(method, params),
    headers: { ...opts.headers, accept: 'text/event-stream', ...(opts.lastEventId === undefined ? {} : { 'last-event-id': opts.lastEventId }) },
    stream: true,
    ...(ep.extensionsHeader ? { extensionsHeader: ep.extensionsHeader } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!isEventStream(res) || !res.body) {
    // Errors before the first event come as an ordinary JSON-RPC response (spec §2 de facto).
    const body = await readJson(res);
    if (isObject(body) && isObject(body.error)) throw errorFrom(body, res.status);
    throw notA2A(res, ep.url);
  }
  try {
    for await (const ev of readSseEvents(res.body)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(ev.data);
      } catch {
        throw new TransportError(`${ep.url} sent an SSE event that is not JSON`, ep.url);
      }
      if (isObject(parsed) && isObject(parsed.error)) throw errorFrom(parsed, res.status);
      if (!isObject(parsed) || !('result' in parsed)) throw new TransportError(`${ep.url} sent an SSE event that is not a JSON-RPC response`, ep.url);
      yield { result: parsed.result, ...(ev.id === undefined ? {} : { id: ev.id }) };
    }
  } catch (err) {
    if (err instanceof A2AClientError || err instanceof TransportError || opts.signal?.aborted) throw err;
    // the connection dropped mid-stream (undici: "terminated")
    throw new TransportError(`stream from ${ep.url} broke: ${(err as Error).message}`, ep.url, { cause: err });
  }
}
