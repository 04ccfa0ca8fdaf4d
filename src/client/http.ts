/**
 * The HTTP plumbing every HTTP transport shares: headers (version, auth, extensions, caller's),
 * timeouts, JSON parsing, and turning what fetch throws into TransportError.
 */
import type { AuthProvider } from './auth.js';
import { networkError, TransportError } from './errors.js';

export interface HttpOptions {
  fetch?: typeof fetch;
  auth?: AuthProvider;
  /** extension URIs to activate (`A2A-Extensions`) */
  extensions?: string[];
  /** extra headers on every request */
  headers?: Record<string, string>;
  /** per unary request; streams are bounded by `signal` only (default 30 s) */
  timeoutMs?: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** `A2A-Version` value; omitted when undefined */
  version: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** true for SSE: no timeout once the response started */
  stream?: boolean;
  /** header name for extensions (v0.3 used `X-A2A-Extensions`) */
  extensionsHeader?: string;
}

export async function httpSend(opts: HttpOptions, req: HttpRequest): Promise<Response> {
  const headers: Record<string, string> = { ...lowerKeys(opts.headers ?? {}), ...(opts.auth ? await opts.auth.headers() : {}), ...lowerKeys(req.headers ?? {}) };
  if (req.version !== undefined) headers['a2a-version'] = req.version;
  if (opts.extensions?.length) headers[(req.extensionsHeader ?? 'A2A-Extensions').toLowerCase()] = opts.extensions.join(',');
  if (req.body !== undefined) headers['content-type'] ??= 'application/json';
  const timeout = req.stream ? undefined : AbortSignal.timeout(opts.timeoutMs ?? 30_000);
  const signal = timeout && req.signal ? AbortSignal.any([timeout, req.signal]) : (timeout ?? req.signal);
  try {
    return await (opts.fetch ?? fetch)(req.url, {
      method: req.method,
      headers,
      ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (req.signal?.aborted) throw err;
    throw networkError(req.url, err);
  }
}

/** The body as JSON, or undefined when it is not JSON (an HTML error page, an empty 204). */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text().catch((err: unknown) => {
    throw networkError(res.url, err);
  });
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const isEventStream = (res: Response): boolean => (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

/** An answer that is not from an A2A endpoint at all: the interface is unusable, try another. */
export function notA2A(res: Response, url: string): TransportError {
  return new TransportError(`${url} answered HTTP ${res.status} without an A2A response`, url);
}

export function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
