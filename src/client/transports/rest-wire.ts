/**
 * HTTP+JSON plumbing both A2A versions share: a path under the interface URL, JSON bodies, SSE
 * streams whose `data:` is a bare event, and errors in the body (v1.0: google.rpc.Status under
 * `error`; v0.3: a bare `{code, message, data}`), read into A2AClientError.
 */
import { A2AClientError, reasonOf, TransportError } from '../errors.js';
import { httpSend, isEventStream, isObject, notA2A, readJson, type HttpOptions } from '../http.js';
import { readSseEvents } from '../sse.js';

export interface RestEndpoint {
  http: HttpOptions;
  /** the interface URL, with the tenant prefix already applied */
  base: string;
  version: string | undefined;
  extensionsHeader?: string;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** CallOptions.headers */
  headers?: Record<string, string>;
}

export function restUrl(base: string, path: string, query: RestCall['query'] = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const q = qs.toString();
  return `${base.replace(/\/+$/, '')}${path}${q ? `?${q}` : ''}`;
}

/** An A2A error body in either version's shape, else undefined. */
export function restError(body: unknown, httpStatus: number): A2AClientError | undefined {
  if (!isObject(body)) return undefined;
  if (isObject(body.error)) {
    const e = body.error;
    const reason = reasonOf(e.details);
    return new A2AClientError(typeof e.message === 'string' ? e.message : `HTTP ${httpStatus}`, {
      httpStatus,
      ...(reason === undefined ? {} : { reason }),
      ...(Array.isArray(e.details) ? { details: e.details } : {}),
    });
  }
  if (typeof body.code === 'number' && typeof body.message === 'string') {
    const reason = isObject(body.data) && typeof body.data.reason === 'string' ? body.data.reason : undefined;
    return new A2AClientError(body.message, { code: body.code, httpStatus, ...(reason === undefined ? {} : { reason }), data: body.data });
  }
  return undefined;
}

export async function restCall(ep: RestEndpoint, call: RestCall): Promise<unknown> {
  const url = restUrl(ep.base, call.path, call.query);
  const res = await httpSend(ep.http, {
    method: call.method,
    url,
    version: ep.version,
    ...(call.body === undefined ? {} : { body: call.body }),
    headers: { ...call.headers, accept: 'application/a2a+json, application/json' },
    ...(ep.extensionsHeader ? { extensionsHeader: ep.extensionsHeader } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
  });
  const body = await readJson(res);
  if (res.ok) return body;
  throw restError(body, res.status) ?? notA2A(res, url);
}

export async function* restStream(ep: RestEndpoint, call: RestCall & { lastEventId?: string }, retryWithPostOn405 = false): AsyncGenerator<{ data: unknown; id?: string }> {
  const url = restUrl(ep.base, call.path, call.query);
  const send = (method: RestCall['method']) =>
    httpSend(ep.http, {
      method,
      url,
      version: ep.version,
      ...(call.body === undefined ? {} : { body: call.body }),
      headers: { ...call.headers, accept: 'text/event-stream', ...(call.lastEventId === undefined ? {} : { 'last-event-id': call.lastEventId }) },
      stream: true,
      ...(ep.extensionsHeader ? { extensionsHeader: ep.extensionsHeader } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
  let res = await send(call.method);
  // Subscribe is GET in the proto and POST in the spec's table (digest §12.1): try the other on 405.
  if (res.status === 405 && retryWithPostOn405) {
    await res.body?.cancel().catch(() => {});
    res = await send('POST');
  }
  if (!isEventStream(res) || !res.body) {
    const body = await readJson(res);
    throw restError(body, res.status) ?? notA2A(res, url);
  }
  try {
    for await (const ev of readSseEvents(res.body)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(ev.data);
      } catch {
        throw new TransportError(`${url} sent an SSE event that is not JSON`, url);
      }
      const error = ev.event === 'error' || (isObject(parsed) && isObject(parsed.error)) ? restError(parsed, res.status) : undefined;
      if (error) throw error;
      yield { data: parsed, ...(ev.id === undefined ? {} : { id: ev.id }) };
    }
  } catch (err) {
    if (err instanceof A2AClientError || err instanceof TransportError || call.signal?.aborted) throw err;
    throw new TransportError(`stream from ${url} broke: ${(err as Error).message}`, url, { cause: err });
  }
}
