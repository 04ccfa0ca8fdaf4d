/**
 * One streamed model request over HTTP: 429 and 5xx answers (and a connection that fails before
 * any answer) are retried, after the server's Retry-After when it sends one, else with exponential
 * backoff; any other error status is read once and classified by the provider (context length,
 * refusal, bad request). The API key travels in headers only and is never part of an error.
 */
import { ModelError } from './model.js';

export interface ModelHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** one attempt, from request to the last streamed byte (the caller reads the stream under it) */
  timeoutMs: number;
  maxRetries: number;
  /** what an error answer means, from its status and body (JSON when it parses) */
  classify(status: number, body: unknown): ModelError;
  /** waits between attempts; a test may shorten them */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The longest wait between attempts, whatever Retry-After asks. */
const MAX_WAIT_MS = 30_000;
const BASE_BACKOFF_MS = 500;

/** Resolves with a 2xx response whose body is still to be read, and the signal bounding the read. */
export async function postForStream(r: ModelHttpRequest): Promise<{ res: Response; signal: AbortSignal }> {
  const sleep = r.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    const signal = AbortSignal.any([r.signal, AbortSignal.timeout(r.timeoutMs)]);
    let res: Response;
    try {
      res = await fetch(r.url, { method: 'POST', headers: r.headers, body: JSON.stringify(r.body), signal });
    } catch (e) {
      if (r.signal.aborted) throw e;
      const timedOut = (e as Error).name === 'TimeoutError';
      if (attempt < r.maxRetries && !timedOut) {
        await sleep(backoff(attempt), r.signal);
        continue;
      }
      throw new ModelError(timedOut ? 'timeout' : 'unavailable', timedOut ? `the model did not answer within ${r.timeoutMs} ms` : 'the model endpoint could not be reached');
    }
    if (res.ok) return { res, signal };
    const text = await res.text().catch(() => '');
    const retryable = res.status === 429 || res.status >= 500;
    if (retryable && attempt < r.maxRetries) {
      await sleep(retryAfterMs(res.headers) ?? backoff(attempt), r.signal);
      continue;
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the classifier gets the text
    }
    if (retryable)
      throw res.status === 429
        ? new ModelError('rate_limited', `the model endpoint is rate limiting (HTTP 429 after ${r.maxRetries + 1} attempts)`, 429)
        : new ModelError('unavailable', `the model endpoint failed (HTTP ${res.status} after ${r.maxRetries + 1} attempts)`, res.status);
    throw r.classify(res.status, body);
  }
}

function backoff(attempt: number): number {
  const ms = BASE_BACKOFF_MS * 2 ** attempt;
  return Math.min(MAX_WAIT_MS, ms / 2 + Math.random() * (ms / 2));
}

/** `retry-after-ms` (OpenAI), else Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return Math.min(MAX_WAIT_MS, ms);
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Math.min(MAX_WAIT_MS, Number(value.trim()) * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.min(MAX_WAIT_MS, Math.max(0, date - now)) : undefined;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The provider's error message, cut to a readable length (never the request, which holds the key only in headers). */
export function errorMessageOf(body: unknown): string {
  const e = (body as { error?: { message?: unknown } } | undefined)?.error;
  const m = typeof e?.message === 'string' ? e.message : typeof body === 'string' ? body : '';
  return m.replace(/\s+/g, ' ').slice(0, 300);
}
