/**
 * A `fetch` that only reaches addresses the SSRF guard approved (remote MCP and A2A agents, the
 * upstream OIDC login). Each request checks the URL and connects through the pinned client, so a
 * DNS answer that changes after the check (rebinding) cannot steer the socket elsewhere.
 * Redirects are returned, not followed: the SDK follows same-origin ones through this fetch again.
 * With tracing on, each request is a client span (ended when the answer's head arrives) whose
 * context the request carries (`traceparent`). Its parent is named explicitly: `init.trace`, or
 * else a `traceparent` header the caller put on the request (what a library that only lets us add
 * headers can carry, e.g. the A2A client's per-call headers); without either it starts a trace.
 */
import { Readable } from 'node:stream';
import { pinnedRequest } from './pinned-request.js';
import type { SsrfGuard } from './ssrf-guard.js';
import { contextOfTraceparent, contextWith, failSpan, SpanKind, startSpan, tracingOn, type Context, type Span } from '../observability/tracing/index.js';

/** Status codes whose responses must not carry a body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A fetch's options, and the trace context the request is made in (tracing on). */
export type GuardedRequestInit = RequestInit & { trace?: Context | undefined };

export function guardedFetch(guard: SsrfGuard): (url: string | URL, init?: GuardedRequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const { url, addresses } = await guard.check(String(input));
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = await bodyBytes(init.body);
    if (body) headers['content-length'] = String(body.length);

    const parent = tracingOn() ? (init.trace ?? contextOfTraceparent(headers.traceparent)) : undefined;
    const span = tracingOn() ? clientSpan(init.method ?? 'GET', url, parent) : undefined;
    const send = (trace?: Context) =>
      new Promise<Response>((resolve, reject) => {
        const req = pinnedRequest({ url, addresses }, { method: init.method ?? 'GET', headers, trace }, (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v === undefined) continue;
            for (const value of Array.isArray(v) ? v : [v]) out.append(k, value);
          }
          const status = res.statusCode ?? 502;
          if (NULL_BODY.has(status)) {
            res.resume();
            return resolve(new Response(null, { status, headers: out }));
          }
          resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, statusText: res.statusMessage ?? '', headers: out }));
        });
        const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError'));
        signal?.addEventListener('abort', onAbort, { once: true });
        req.on('close', () => signal?.removeEventListener('abort', onAbort));
        req.on('error', reject);
        req.end(body);
      });
    if (!span) return send();
    return send(contextWith(span, parent)).then(
      (res) => {
        span.setAttribute('http.response.status_code', res.status);
        span.end();
        return res;
      },
      (err: unknown) => {
        failSpan(span, err);
        span.end();
        throw err;
      },
    );
  };
}

/** An HTTP client span (OTel HTTP conventions: named by the method; the URL without its query). */
function clientSpan(method: string, url: URL, parent: Context | undefined): Span {
  return startSpan(method, {
    kind: SpanKind.CLIENT,
    parent,
    attributes: { 'http.request.method': method, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80), 'url.full': `${url.origin}${url.pathname}` },
  });
}

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}
