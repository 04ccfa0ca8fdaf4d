/**
 * Token requests with a JSON body, as Auth0-style scripts send them (`{"grant_type":
 * "client_credentials", "client_id", "client_secret", "audience", "scope"}`); RFC 6749 §4.4.2 says
 * form-encoded, which stays the standard. The body is rewritten into the form request it stands
 * for before oidc-provider reads it: `client_id`/`client_secret` become HTTP Basic client
 * authentication (RFC 6749 §2.3.1, the method Agentport's machine clients are registered with),
 * and Auth0's `audience` is the RFC 8707 `resource`.
 */
import { IncomingMessage } from 'node:http';
import type { RequestContext } from '../../edge/face.js';

const LIMIT = 16 * 1024;

export function isJsonBody(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

type OAuthError = { error: string; error_description: string };

/**
 * The form request a JSON token request stands for: a fresh IncomingMessage on the same socket
 * whose body is the form (oidc-provider then reads it like any other), or the OAuth error to send
 * instead when the body is unusable.
 */
export async function rewriteJsonTokenRequest(req: IncomingMessage, readBody: RequestContext['body']): Promise<{ req: IncomingMessage } | OAuthError> {
  const raw = await readBody(LIMIT);
  if (typeof raw !== 'string') return { error: 'invalid_request', error_description: 'The request body could not be read' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { error: 'invalid_request', error_description: 'The request body is not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'invalid_request', error_description: 'The request body must be a JSON object' };
  const form: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === 'string') form[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) form[k] = v as string[];
    else return { error: 'invalid_request', error_description: `Parameter ${k} must be a string` };
  }
  if (form.audience !== undefined && form.resource === undefined) form.resource = form.audience;
  delete form.audience;
  const headers = { ...req.headers };
  const id = form.client_id;
  const secret = form.client_secret;
  if (typeof id === 'string' && typeof secret === 'string' && headers.authorization === undefined) {
    headers.authorization = `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`;
    delete form.client_id;
    delete form.client_secret;
  }
  const body = Buffer.from(new URLSearchParams(Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString());
  const replay = new IncomingMessage(req.socket);
  replay.method = req.method;
  replay.url = req.url;
  replay.httpVersion = req.httpVersion;
  replay.headers = { ...headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) };
  // A whole message: otherwise, once read, it counts as aborted and takes the socket down with it.
  replay.complete = true;
  replay.push(body);
  replay.push(null);
  return { req: replay };
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding. */
function formEncode(s: string): string {
  return new URLSearchParams({ v: s }).toString().slice(2);
}
