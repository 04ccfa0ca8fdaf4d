/**
 * Signed caller identity for trusted internal remotes (`agents[].remote.auth`
 * with `kind: signed-identity`): on each outbound call Agentport signs a short-lived JWT naming the
 * caller it acts for (subject, usecase, scopes) with its own keys, the ones of /.well-known/jwks.json.
 * The remote verifies it at our JWKS instead of trusting a shared secret, and the caller's own token
 * never leaves Agentport. See docs/auth.md "Acting as the caller".
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, type CryptoKey, type KeyObject } from 'jose';
import type { Principal } from '../authz/principal.js';

/**
 * JWT `typ` (RFC 8725 §3.11): the remote checks it, and none of Agentport's own verifiers accepts it,
 * so an identity assertion never passes as an Agentport access token (`at+jwt`) or a push JWT.
 */
export const CALLER_IDENTITY_JWT_TYPE = 'agentport-caller+jwt';
export const DEFAULT_CALLER_IDENTITY_TTL_SECONDS = 60;

export interface CallerIdentityKeySource {
  getSigningKey(): Promise<{ kid: string; privateKey: CryptoKey | KeyObject; alg: 'ES256' }>;
}

export interface CallerIdentityOptions {
  keys: CallerIdentityKeySource;
  /** `iss`: Agentport's public base URL, where its JWKS is found (read per call; the port may be bound late) */
  issuer: () => string;
  /** epoch ms; for tests */
  now?: () => number;
}

export interface CallerIdentityInput {
  /** `aud`: the remote it is for */
  audience: string;
  caller: Pick<Principal, 'subject' | 'scopes' | 'usecase' | 'clientId'>;
  ttlSeconds?: number;
}

/** What a built-in agent needs to sign a caller identity; the server builds it over the KeyStore. */
export interface CallerIdentitySigner {
  sign(input: CallerIdentityInput): Promise<string>;
  /**
   * Agentport's own identity, for a remote's requests made for no caller (an MCP session's
   * `initialize`, `tools/list`): `sub` is the issuer itself, as in an RFC 7523 client assertion,
   * and `scope` is empty, so a remote can tell it from any caller and grant it no user's rights.
   */
  signService(input: Omit<CallerIdentityInput, 'caller'>): Promise<string>;
  /** the `iss` it signs with, for usage records (`remoteIssuer`) */
  issuer?(): string;
}

export class KeyStoreCallerIdentity implements CallerIdentitySigner {
  private readonly now: () => number;

  constructor(private readonly o: CallerIdentityOptions) {
    this.now = o.now ?? Date.now;
  }

  issuer(): string {
    return this.o.issuer();
  }

  signService(input: Omit<CallerIdentityInput, 'caller'>): Promise<string> {
    return this.sign({ ...input, caller: { subject: this.o.issuer(), scopes: [] } });
  }

  async sign(input: CallerIdentityInput): Promise<string> {
    const key = await this.o.keys.getSigningKey();
    const iat = Math.floor(this.now() / 1000);
    const c = input.caller;
    // `scope` and `client_id` as RFC 9068 names them, so a remote reads them like an access token's.
    return new SignJWT({
      scope: c.scopes.join(' '),
      ...(c.usecase ? { usecase: c.usecase } : {}),
      ...(c.clientId ? { client_id: c.clientId } : {}),
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: CALLER_IDENTITY_JWT_TYPE })
      .setIssuer(this.o.issuer())
      .setSubject(c.subject)
      .setAudience(input.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (input.ttlSeconds ?? DEFAULT_CALLER_IDENTITY_TTL_SECONDS))
      .setJti(randomUUID())
      .sign(key.privateKey);
  }
}
