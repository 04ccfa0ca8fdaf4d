/**
 * The one outbound HTTP client for URLs that passed the SSRF guard (push webhooks, guarded fetch,
 * client metadata documents): the socket connects only to the addresses the guard approved.
 *
 * Built on node:http/https rather than fetch: pinning the resolved address on fetch needs an undici
 * dispatcher, and undici is not a dependency. Redirects are never followed here; a 3xx is handed to
 * the caller like any other answer (its target was never checked).
 *
 * With tracing on, a request given a trace context (`trace`) carries its `traceparent` and `tracestate`.
 */
import http, { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pinnedLookup } from './pinned-lookup.js';
import type { SsrfCheckResult } from './ssrf-guard.js';
import { injectTraceContext, tracingOn, type Context } from '../observability/tracing/index.js';

export interface PinnedRequestOptions {
  method: string;
  headers: OutgoingHttpHeaders;
  /** extra trusted CAs (PEM) for https targets, for tests and private PKI */
  ca?: string[];
  /** aborts the request (node:http destroys it with an AbortError) */
  signal?: AbortSignal;
  /** with tracing on, the span this request is made in (its `traceparent` goes out with it) */
  trace?: Context | undefined;
}

/** Opens a request to a checked target; the caller writes the body and ends it. */
export function pinnedRequest(target: Pick<SsrfCheckResult, 'url' | 'addresses'>, opts: PinnedRequestOptions, onResponse: (res: IncomingMessage) => void): ClientRequest {
  const { url, addresses } = target;
  const transport = url.protocol === 'https:' ? https : http;
  let headers = opts.headers;
  if (opts.trace && tracingOn()) {
    const trace: Record<string, string> = {};
    injectTraceContext(opts.trace, trace);
    headers = { ...headers, ...trace };
  }
  return transport.request(
    {
      method: opts.method,
      protocol: url.protocol,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers,
      lookup: pinnedLookup(addresses),
      // a fresh socket per request: a pooled socket could be bound to an earlier pin
      agent: false,
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
    onResponse,
  );
}
