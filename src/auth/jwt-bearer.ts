/**
 * Bearer JWTs: Agentport's own (ES256, its KeyStore), external issuers (OIDC discovery → JWKS),
 * and an optional HS256 shared secret. A token is routed by its header and unverified `iss`
 * before anything is verified, and each route allows only its own algorithms, so an HS token
 * never meets a public key and an RS/ES token never meets the secret (RFC 8725 §2.1, §3.1).
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { ExternalIssuerConfig, SharedSecretConfig } from '../config/config.js';
import type { Principal } from '../core/authz/principal.js';
import type { KeyStore } from '../core/keys/key-store.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { ACCESS_TOKEN_TYP } from './access-tokens.js';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(s: string): boolean {
  return JWT_SHAPE.test(s);
}

export interface JwtBearerOptions {
  keys: KeyStore;
  /** the server's public URL: `iss` of its own tokens (read per request; the port may be bound late) */
  ownIssuer: () => string;
  /** accepted `aud` of own tokens; default [ownIssuer()] */
  audience?: readonly string[];
  issuers?: readonly ExternalIssuerConfig[];
  sharedSecret?: SharedSecretConfig;
  clockSkewSeconds: number;
  /** discovery and JWKS fetches; default 5 s */
  fetchTimeoutMs?: number;
  /** whether an own token was revoked (src/auth/oauth/token-revocations.ts); absent: never */
  isRevoked?: (claims: JWTPayload) => Promise<boolean>;
}

export interface BearerContext {
  /**
   * The RFC 8707 resource identifier the request is for (`resourceIdentifier(publicUrl, path)`).
   * Own tokens must name it or the server's base audience in `aud`: a token obtained for one
   * agent is refused by another.
   */
  resource?: string;
}

const refuse = (why: string) => new A2AError('Unauthenticated', why);

export class JwtBearer {
  private readonly external = new Map<string, ExternalIssuer>();
  private readonly secret: Uint8Array | undefined;
  private ownJwks: { kids: string; set: JWTVerifyGetKey } | undefined;
  /** own tokens whose signature was verified; the same token is sent on every request of a session */
  private readonly verified = new VerifiedTokens();

  constructor(private readonly o: JwtBearerOptions) {
    for (const i of o.issuers ?? []) this.external.set(i.issuer, new ExternalIssuer(i, o.fetchTimeoutMs ?? 5000));
    this.secret = o.sharedSecret ? new TextEncoder().encode(o.sharedSecret.secret) : undefined;
  }

  async authenticate(token: string, ctx: BearerContext = {}): Promise<Principal> {
    // A token verified before is ours; skip decoding and routing (the hot path of every session).
    const known = this.verified.get(token, this.audienceFor(ctx), this.o.clockSkewSeconds);
    if (known) return this.ownPrincipal(known);
    let alg: unknown;
    let iss: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
      iss = decodeJwt(token).iss;
    } catch {
      throw refuse('The bearer token is not a well-formed JWT');
    }
    if (typeof alg !== 'string' || alg === 'none') throw refuse('The bearer token is not signed');
    const skew = this.o.clockSkewSeconds;

    if (alg.startsWith('HS')) {
      const s = this.o.sharedSecret;
      if (!s || !this.secret) throw refuse('Symmetrically signed tokens are not accepted here');
      if (s.issuer !== undefined && iss !== s.issuer) throw refuse('The token issuer is not trusted');
      const payload = await verify(token, this.secret, {
        algorithms: ['HS256'],
        audience: [...(s.audience ?? this.ownAudience())],
        ...(s.issuer === undefined ? {} : { issuer: s.issuer }),
        clockTolerance: skew,
      });
      return principalOf(payload, payload.sub!, true);
    }

    if (typeof iss !== 'string') throw refuse('The bearer token names no issuer');
    if (iss === this.o.ownIssuer()) {
      const audience = this.audienceFor(ctx);
      const payload = await verify(token, await this.ownKeys(), { algorithms: ['ES256'], issuer: iss, audience, typ: ACCESS_TOKEN_TYP, clockTolerance: skew });
      return this.ownPrincipal(this.verified.put(token, payload));
    }
    const external = this.external.get(iss);
    if (!external) throw refuse('The token issuer is not trusted');
    const payload = await verify(token, await external.keys(), {
      algorithms: external.config.algorithms,
      issuer: iss,
      audience: external.config.audience,
      clockTolerance: skew,
    });
    // Subjects of another issuer live in its namespace: `alice` at an IdP is not the local
    // `alice` an API key names, so tasks owned by one are never visible to the other.
    return principalOf(payload, `${iss}#${payload.sub!}`, false);
  }

  /** An own token is accepted for the resource it names or for the whole server (its base audience). */
  private audienceFor(ctx: BearerContext): string[] {
    return ctx.resource === undefined ? [...this.ownAudience()] : [ctx.resource, ...this.ownAudience()];
  }

  private async ownPrincipal(payload: JWTPayload & { sub: string }): Promise<Principal> {
    if (this.o.isRevoked && (await this.o.isRevoked(payload))) throw refuse('The bearer token has been revoked');
    return principalOf(payload, payload.sub, true);
  }

  private ownAudience(): readonly string[] {
    return this.o.audience ?? [this.o.ownIssuer()];
  }

  /** A local JWKS over the KeyStore's published keys, rebuilt only when they change (rotation). */
  private async ownKeys(): Promise<JWTVerifyGetKey> {
    const jwks = await this.o.keys.jwks();
    const kids = jwks.keys.map((k) => k.kid).join(',');
    if (this.ownJwks?.kids !== kids) this.ownJwks = { kids, set: createLocalJWKSet(jwks) };
    return this.ownJwks.set;
  }
}

/**
 * Own tokens already verified, by their exact text. An ES256 verification costs more than the rest
 * of a blocking echo (docs/benchmarks.md), and a client sends the same token until it expires, so
 * the signature is checked once; time (`exp`, `nbf`) and audience are checked on every use, and
 * revocation is asked separately by the caller. Bounded: the oldest entry leaves first.
 */
class VerifiedTokens {
  private readonly tokens = new Map<string, JWTPayload & { sub: string }>();
  constructor(private readonly max = 10_000) {}

  get(token: string, audience: readonly string[], skew: number): (JWTPayload & { sub: string }) | undefined {
    const p = this.tokens.get(token);
    if (!p) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (typeof p.exp !== 'number' || p.exp <= now - skew) {
      this.tokens.delete(token);
      return undefined; // verified again, so the caller gets jose's own "expired" reason
    }
    if (typeof p.nbf === 'number' && p.nbf > now + skew) return undefined;
    const aud = Array.isArray(p.aud) ? p.aud : [p.aud];
    if (!aud.some((a) => typeof a === 'string' && audience.includes(a))) return undefined;
    return p;
  }

  put(token: string, payload: JWTPayload & { sub: string }): JWTPayload & { sub: string } {
    if (this.tokens.size >= this.max) this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.set(token, payload);
    return payload;
  }
}

/** One configured external issuer: its JWKS URL from the config or from OIDC discovery, fetched once. */
export class ExternalIssuer {
  private jwks: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    readonly config: ExternalIssuerConfig,
    private readonly timeoutMs: number,
  ) {}

  keys(): Promise<JWTVerifyGetKey> {
    this.jwks ??= this.resolve().catch((err: unknown) => {
      this.jwks = undefined; // retried on the next token
      throw err;
    });
    return this.jwks;
  }

  private async resolve(): Promise<JWTVerifyGetKey> {
    const uri = this.config.jwksUri ?? (await this.discover());
    return createRemoteJWKSet(new URL(uri), { timeoutDuration: this.timeoutMs });
  }

  /** OpenID Connect Discovery 1.0 §4: the document must name this exact issuer. */
  private async discover(): Promise<string> {
    const url = `${this.config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const unavailable = (why: string) => new A2AError('Unavailable', `The token issuer's metadata could not be used: ${why}`);
    let doc: unknown;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
      if (!res.ok) throw unavailable(`HTTP ${res.status} from the discovery document`);
      doc = await res.json();
    } catch (err) {
      if (err instanceof A2AError) throw err;
      throw unavailable('the discovery document could not be fetched');
    }
    const d = doc as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (!d || d.issuer !== this.config.issuer) throw unavailable('the discovery document names another issuer');
    if (typeof d.jwks_uri !== 'string' || !URL.canParse(d.jwks_uri)) throw unavailable('the discovery document has no jwks_uri');
    return d.jwks_uri;
  }
}

async function verify(
  token: string,
  key: Uint8Array | JWTVerifyGetKey,
  options: { algorithms: string[]; audience: string[]; issuer?: string; typ?: string; clockTolerance: number },
): Promise<JWTPayload & { sub: string }> {
  try {
    const { payload } = key instanceof Uint8Array ? await jwtVerify(token, key, { ...options, requiredClaims: ['exp', 'sub'] }) : await jwtVerify(token, key, { ...options, requiredClaims: ['exp', 'sub'] });
    if (typeof payload.sub !== 'string' || payload.sub === '') throw refuse('The bearer token has no subject');
    return payload as JWTPayload & { sub: string };
  } catch (err) {
    throw describe(err);
  }
}

/** jose's errors as the reason a client can act on; key-fetch trouble is ours (503), not theirs. */
function describe(err: unknown): A2AError {
  if (err instanceof A2AError) return err;
  if (err instanceof errors.JWTExpired) return refuse('The bearer token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return refuse('The bearer token is not valid yet');
    if (err.claim === 'aud') return refuse('The bearer token is for another audience');
    if (err.claim === 'iss') return refuse('The token issuer is not trusted');
    if (err.claim === 'typ') return refuse('The bearer token is not an access token');
    return refuse(`The bearer token's ${err.claim} claim is not valid`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return refuse('The bearer token is signed with an algorithm not accepted here');
  if (err instanceof errors.JWSSignatureVerificationFailed) return refuse('The bearer token signature is not valid');
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return refuse('The bearer token was signed by an unknown key');
  if (err instanceof errors.JWKSTimeout) return new A2AError('Unavailable', "The token issuer's keys could not be fetched in time");
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid || err instanceof errors.JOSENotSupported) {
    return refuse('The bearer token is not a valid JWT');
  }
  // jose reports a JWKS answered with a non-200 status as a generic JOSEError: ours to fix.
  if (err instanceof errors.JOSEError && !(err instanceof errors.JWKSInvalid) && err.code !== 'ERR_JOSE_GENERIC') return refuse('The bearer token is not valid');
  return new A2AError('Unavailable', "The token issuer's keys could not be fetched");
}

/** `scope` (RFC 9068, space-separated) or `scp` (a list, as Azure AD and Okta send it). */
function scopesOf(p: JWTPayload): string[] {
  if (typeof p.scope === 'string') return p.scope.split(' ').filter(Boolean);
  if (Array.isArray(p.scp)) return p.scp.filter((s): s is string => typeof s === 'string');
  if (typeof p.scp === 'string') return p.scp.split(' ').filter(Boolean);
  return [];
}

function principalOf(p: JWTPayload, subject: string, ours: boolean): Principal {
  const clientId = typeof p.client_id === 'string' ? p.client_id : typeof p.azp === 'string' ? p.azp : undefined;
  // `usecase` is our own claim: only tokens minted by Agentport or the deployment carry it.
  const usecase = ours && typeof p.usecase === 'string' ? p.usecase : undefined;
  // `grant_id` names one of our grants only in a token we issued.
  const grantId = ours && typeof p.grant_id === 'string' && p.grant_id !== '' ? p.grant_id : undefined;
  return Object.freeze({
    subject,
    authenticated: true,
    scopes: Object.freeze(scopesOf(p)),
    ...(clientId === undefined ? {} : { clientId }),
    ...(usecase === undefined ? {} : { usecase }),
    ...(grantId === undefined ? {} : { grantId }),
  });
}
