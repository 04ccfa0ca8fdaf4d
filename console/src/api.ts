/**
 * How the console reaches the server. The console is served at `<base>/console/`, so every server
 * route is resolved one level up from the page: the same build works at the root, under a path
 * prefix and behind a reverse proxy. Calls carry the session cookie (same origin) and the
 * session's CSRF token in a header; the server accepts the cookie only with that header.
 */

/** The URL of a server route (`api/v1/usage`, `readyz`). */
export function serverUrl(path: string): string {
  return new URL(`../${path.replace(/^\/+/, '')}`, consoleUrl('')).href;
}

/** The URL of one of the console's own routes (`session`). */
export function consoleUrl(path: string): string {
  return new URL(path, new URL('.', location.href)).href;
}

let csrfToken = '';
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Fired when a call finds the session gone (401): the app shows the sign-in page again. */
export const SIGNED_OUT = 'agentport:signed-out';

/** The message of an error answer (HTTP+JSON `{error: {message}}`), or the status line. */
async function errorMessage(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'object' && body.error?.message) return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (body.message) return body.message;
  } catch {
    // not JSON: the status says it
  }
  return `${res.status} ${res.statusText}`;
}

export async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (csrfToken) headers.set('X-CSRF-Token', csrfToken);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  const res = await fetch(url, { ...init, headers, credentials: 'same-origin', cache: 'no-store' });
  if (res.status === 401 && csrfToken) window.dispatchEvent(new Event(SIGNED_OUT));
  if (!res.ok) throw new ApiError(res.status, await errorMessage(res));
  return res;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await call(serverUrl(path))).json() as Promise<T>;
}

export async function sendJson<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T | undefined> {
  const res = await call(serverUrl(path), { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }) });
  return res.status === 204 ? undefined : ((await res.json()) as T);
}
