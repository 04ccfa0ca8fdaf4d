/**
 * Authentication by API key from the config, until the OAuth issue brings the full set. A key is
 * accepted as `Authorization: Bearer <key>` or `X-API-Key: <key>`; no credential means anonymous,
 * a wrong one is an error (never silently anonymous).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyConfig } from '../config/index.js';
import { ANONYMOUS, type Principal } from '../core/authz/principal.js';
import { A2AError } from '../protocol/a2a/errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export class ApiKeyAuthenticator {
  private readonly keys: Array<{ hash: Buffer; principal: Principal }>;

  constructor(keys: ApiKeyConfig[]) {
    this.keys = keys.map((k) => ({
      hash: digest(k.key),
      principal: Object.freeze({ subject: k.subject, authenticated: true, scopes: k.scopes }),
    }));
  }

  /** Reads a credential from headers (HTTP) or metadata values (gRPC, lower-cased names). */
  authenticate(headers: IncomingHttpHeaders | Record<string, string | undefined>): Principal {
    const auth = headerValue(headers.authorization);
    const apiKey = headerValue(headers['x-api-key']);
    let presented: string | undefined;
    if (apiKey) presented = apiKey;
    else if (auth && /^bearer\s+/i.test(auth)) presented = auth.replace(/^bearer\s+/i, '').trim();
    if (!presented) return ANONYMOUS;
    const h = digest(presented);
    for (const k of this.keys) if (timingSafeEqual(k.hash, h)) return k.principal;
    throw new A2AError('Unauthenticated', 'The credential presented is not valid');
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
