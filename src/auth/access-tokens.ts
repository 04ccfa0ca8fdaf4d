/**
 * Access tokens Agentport issues itself: RFC 9068 JWTs (`typ: at+jwt`) signed ES256 with the
 * server's KeyStore. The explicit `typ` keeps push-notification JWTs, signed by the same key with
 * the same issuer, from ever passing as access tokens (RFC 8725 §3.11). The OAuth endpoints that
 * hand these out come later; the CLI and tests mint them through this function.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { KeyStore } from '../core/keys/key-store.js';

export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenClaims {
  issuer: string;
  audience: string | string[];
  subject: string;
  scopes?: readonly string[];
  clientId?: string;
  usecase?: string;
  /** lifetime in seconds; default 1 hour */
  ttlSeconds?: number;
  /** epoch seconds; default now */
  issuedAt?: number;
  notBefore?: number;
}

export async function issueAccessToken(keys: KeyStore, c: AccessTokenClaims): Promise<string> {
  const key = await keys.getSigningKey();
  const iat = c.issuedAt ?? Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({
    ...(c.scopes?.length ? { scope: c.scopes.join(' ') } : {}),
    ...(c.clientId === undefined ? {} : { client_id: c.clientId }),
    ...(c.usecase === undefined ? {} : { usecase: c.usecase }),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(c.issuer)
    .setAudience(c.audience)
    .setSubject(c.subject)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + (c.ttlSeconds ?? 3600));
  if (c.notBefore !== undefined) jwt.setNotBefore(c.notBefore);
  return jwt.sign(key.privateKey);
}
