/**
 * Token requests with a JSON body, as Auth0-style scripts send them (`{"grant_type":
 * "client_credentials", "client_id", "client_secret", "audience", "scope"}`); RFC 6749 §4.4.2 says
 * form-encoded, which stays the standard. The body is rewritten into the form request it stands
 * for before oidc-provider reads it: `client_id`/`client_secret` become HTTP Basic client
 * authentication (RFC 6749 §2.3.1, the method Agentport's machine clients are registered with),
 * and Auth0's `audience` is the RFC 8707 `resource`.
 */
import type { IncomingMessage } from 'node:http';
import { readLimitedBody } from '../../bindings/read-limited-body.js';

const LIMIT = 16 * 1024;

export function isJsonBody(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Rewrites the request in place; returns an OAuth error to send instead when the body is unusable. */
export async function rewriteJsonTokenRequest(req: IncomingMessage): Promise<{ error: string; error_description: string } | undefined> {
  const raw = await readLimitedBody(req, LIMIT);
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
  const id = form.client_id;
  const secret = form.client_secret;
  if (typeof id === 'string' && typeof secret === 'string' && req.headers.authorization === undefined) {
    req.headers.authorization = `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`;
    delete form.client_id;
    delete form.client_secret;
  }
  // oidc-provider reads an already-consumed body from `req.body` as the form it parsed.
  // (its content type check wants a body length too: that of the form it stands for)
  req.headers['content-type'] = 'application/x-www-form-urlencoded';
  const encoded = new URLSearchParams(Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])));
  req.headers['content-length'] = String(Buffer.byteLength(encoded.toString()));
  (req as IncomingMessage & { body?: unknown }).body = form;
  return undefined;
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding. */
function formEncode(s: string): string {
  return new URLSearchParams({ v: s }).toString().slice(2);
}
