/**
 * A client-credentials token request without `scope` (issue 25, OA1: the MCP SDK 1.x client and
 * `openid-client` send none) gets the client's registered scopes, or `auth.oauth.defaultScopes`
 * for a client registered without any (docs/auth.md). oidc-provider would otherwise issue a token
 * with no scope at all, which every call then refuses with 403: RFC 6749 §3.3 lets the server
 * apply a default, and the default has to be one the client can use.
 *
 * The form body is read here and replayed to oidc-provider (as json-token-request.ts does), with
 * `scope` added when the rule applies; any other request passes through unchanged.
 */
import { IncomingMessage } from 'node:http';
import type { RequestContext } from '../../edge/face.js';

const LIMIT = 16 * 1024;

export interface ClientScopeLookup {
  /** the client's registered `scope`, '' when it registered none, undefined when no such client */
  registeredScope(clientId: string): Promise<string | undefined>;
  defaultScopes: readonly string[];
}

export function isFormBody(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/** The request to hand to oidc-provider: `req` itself, or a replay of it with the default scope. */
export async function withClientCredentialsScope(
  req: IncomingMessage,
  readBody: (limit: number) => ReturnType<RequestContext['body']>,
  lookup: ClientScopeLookup,
): Promise<{ req: IncomingMessage } | { error: string; error_description: string }> {
  const raw = await readBody(LIMIT);
  if (typeof raw !== 'string') return { error: 'invalid_request', error_description: 'The request body could not be read' };
  const form = new URLSearchParams(raw);
  if (form.get('grant_type') === 'client_credentials' && !form.get('scope')?.trim()) {
    const clientId = clientIdOf(req, form);
    const registered = clientId === undefined ? undefined : await lookup.registeredScope(clientId);
    if (registered !== undefined) form.set('scope', registered.trim() || lookup.defaultScopes.join(' '));
  }
  return { req: replay(req, form.toString()) };
}

/** RFC 6749 §2.3.1: HTTP Basic (form-encoded id), else the `client_id` parameter. */
function clientIdOf(req: IncomingMessage, form: URLSearchParams): string | undefined {
  const auth = req.headers.authorization;
  if (auth && /^basic\s+/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i <= 0) return undefined;
    try {
      return decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' '));
    } catch {
      return undefined;
    }
  }
  return form.get('client_id') ?? undefined;
}

/** The body of a request replayed in process (json-token-request.ts): already whole, in memory. */
export async function readReplay(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function replay(req: IncomingMessage, text: string): IncomingMessage {
  const body = Buffer.from(text);
  const again = new IncomingMessage(req.socket);
  again.method = req.method;
  again.url = req.url;
  again.httpVersion = req.httpVersion;
  again.headers = { ...req.headers, 'content-length': String(body.length) };
  // A whole message: otherwise, once read, it counts as aborted and takes the socket down with it.
  again.complete = true;
  again.push(body);
  again.push(null);
  return again;
}
