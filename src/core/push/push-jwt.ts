/**
 * The optional signed-notification pattern of A2A v1.0.1 §9: the server signs a short-lived JWT
 * per delivery and publishes the public key in its JWKS; the receiver verifies the signature, the
 * audience (its own URL), freshness, `jti` (replay) and `body_sha256` (the JWT is bound to the exact
 * body bytes, so a captured JWT cannot be replayed with another body). See docs/decisions/0004-push.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, type CryptoKey, type KeyObject } from 'jose';

/** JWT `typ`: explicit typing (RFC 8725 §3.11) keeps a push JWT from passing as any other token signed by the same key. */
export const PUSH_JWT_TYPE = 'a2a-push+jwt';
export const DEFAULT_PUSH_JWT_TTL_SECONDS = 300;

export interface PushSigningKey {
  kid: string;
  privateKey: CryptoKey | KeyObject;
  alg: 'ES256';
}

/** The slice of the key store the signer needs; the key store also serves the matching JWKS. */
export interface PushSigningKeySource {
  getSigningKey(): Promise<PushSigningKey>;
}

export interface PushJwtSignerOptions {
  keys: PushSigningKeySource;
  /** `iss`: the agent's public base URL, where its JWKS is found */
  issuer: string;
  ttlSeconds?: number;
  /** epoch ms; for tests */
  now?: () => number;
}

export interface PushJwtInput {
  /** `aud`: the webhook URL exactly as registered */
  audience: string;
  taskId: string;
  /** the exact bytes of the request body */
  body: Uint8Array;
}

/** Lower-case hex SHA-256 of the body, the value of the `body_sha256` claim. */
export function bodySha256(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

export class PushJwtSigner {
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(private readonly opts: PushJwtSignerOptions) {
    this.ttlSeconds = opts.ttlSeconds ?? DEFAULT_PUSH_JWT_TTL_SECONDS;
    this.now = opts.now ?? Date.now;
  }

  async sign(input: PushJwtInput): Promise<string> {
    const key = await this.opts.keys.getSigningKey();
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ taskId: input.taskId, body_sha256: bodySha256(input.body) })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: PUSH_JWT_TYPE })
      .setIssuer(this.opts.issuer)
      .setAudience(input.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(randomUUID())
      .sign(key.privateKey);
  }
}
