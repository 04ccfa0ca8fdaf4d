/**
 * Where a caller's credential is read from: `X-API-Key: <key>` first, else
 * `Authorization: Bearer <token>` (RFC 6750 §2.1; never a query parameter, §2.3 is not supported).
 * HTTP headers and gRPC metadata both arrive as lower-cased names.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type CredentialHeaders = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

export function presentedCredential(headers: CredentialHeaders): string | undefined {
  const apiKey = first(headers['x-api-key'])?.trim();
  if (apiKey) return apiKey;
  const auth = first(headers.authorization);
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim() || undefined;
  return undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
