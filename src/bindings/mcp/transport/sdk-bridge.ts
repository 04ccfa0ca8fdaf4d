/**
 * The bridge between node's HTTP objects and the SDK's web-standard handler: the request's header
 * fields as a plain record (web `Headers` are built only when the SDK path is taken), the web
 * `Request` the SDK's `fetch` takes, and `writeResponse`, which streams the SDK's `Response` back
 * with backpressure and stops reading it when the client goes (closing the connection aborts the
 * request, which the SDK turns into cancellation of the tool call).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** The request's header fields by lower-case name, without the ones that describe the connection. */
export function headerFields(headers: IncomingHttpHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  // for…in, not Object.entries: no [key, value] pair is built per header on every request.
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined || k === 'host' || k === 'connection' || k === 'content-length' || k === 'transfer-encoding') continue;
    fields[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return fields;
}

export interface BridgedRequest {
  /** `Host`, for the URL the SDK sees */
  host: string | undefined;
  /** path and query as received */
  url: string;
  method: string;
  fields: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

export function webRequest(r: BridgedRequest): Request {
  return new Request(`http://${r.host ?? 'localhost'}${r.url}`, {
    method: r.method,
    headers: new Headers(r.fields),
    ...(r.body !== undefined ? { body: r.body } : {}),
    signal: r.signal,
  });
}

export async function writeResponse(res: ServerResponse, response: Response, signal?: AbortSignal, onFirstChunk?: (chunk: Uint8Array) => void): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  const sse = (headers['content-type'] ?? '').startsWith('text/event-stream');
  if (sse) {
    headers['x-accel-buffering'] = 'no';
    headers['cache-control'] ??= 'no-cache';
  }
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  if (sse) res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (onFirstChunk) {
        onFirstChunk(value);
        onFirstChunk = undefined;
      }
      if (!res.write(value)) await new Promise<void>((resolve) => (res.writableEnded || res.destroyed ? resolve() : res.once('drain', resolve).once('close', resolve)));
      if (res.destroyed) break;
    }
  } catch {
    // the client went away mid-stream
  } finally {
    signal?.removeEventListener('abort', stop);
    res.end();
  }
}
