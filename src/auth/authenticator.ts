/**
 * The one Authenticator every binding calls: request headers (or gRPC metadata) in, a Principal
 * out. No credential is the anonymous principal; a credential that fails is an
 * A2AError('Unauthenticated') whose message says why (never silently anonymous).
 *
 * Order: config API keys (exact match), stored API keys (`ap_` prefix), bearer JWTs (three
 * base64url segments). A config key may look like either of the others, so it is tried first.
 * A request with none of them may be the web console's: its session cookie with the session's
 * CSRF header (src/auth/sessions/console-sessions.ts); the cookie alone is anonymous.
 */
import { DEFAULT_CLOCK_SKEW_SECONDS, type AuthConfig } from '../config/config.js';
import { ANONYMOUS, promisedPrincipal, type Principal } from '../core/authz/principal.js';
import type { KeyStore } from '../core/keys/key-store.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { ConfigApiKeys } from './config-api-keys.js';
import { API_KEY_PREFIX, StoredApiKeys, type ApiKeyLookup } from './api-keys.js';
import { bearerChallenge } from './challenge.js';
import { presentedCredential, type CredentialHeaders } from './credentials.js';
import { issuerOf, perPublicUrl, resourceIdentifier } from './oauth-paths.js';
import { JwtBearer, looksLikeJwt, type BearerContext } from './jwt-bearer.js';
import type { JWTPayload } from 'jose';

export interface AuthenticatorOptions {
  config: AuthConfig;
  /** the server's public URL, read when a token arrives (port 0 is bound after construction) */
  publicUrl: () => string;
  keys: KeyStore;
  /** where stored API keys are looked up; absent: only config keys and tokens */
  apiKeys?: ApiKeyLookup;
  /** revocation of own tokens issued by the OAuth server (grant or jti); absent: none */
  revocations?: { isRevoked(claims: JWTPayload): Promise<boolean> };
  /**
   * the web console's sessions, asked when a request carries no other credential
   * (sessions/console-sessions.ts); `carriesSession` false: the request names none, and is anonymous
   * without asking (absent: always asked)
   */
  sessions?: { authenticate(headers: CredentialHeaders): Promise<Principal | undefined>; carriesSession?(headers: CredentialHeaders): boolean };
  now?: () => number;
}

const ANONYMOUS_ANSWER: Promise<Principal> = Promise.resolve(ANONYMOUS);

const NO_CONTEXT: BearerContext & { resourcePath?: string } = Object.freeze({});

export class Authenticator {
  private readonly configKeys: ConfigApiKeys;
  private readonly storedKeys: StoredApiKeys | undefined;
  private readonly jwt: JwtBearer;
  private readonly publicUrl: () => string;
  private readonly sessions: AuthenticatorOptions['sessions'];

  constructor(o: AuthenticatorOptions) {
    this.publicUrl = o.publicUrl;
    this.sessions = o.sessions;
    this.configKeys = new ConfigApiKeys(o.config.apiKeys);
    this.storedKeys = o.apiKeys ? new StoredApiKeys(o.apiKeys, o.now) : undefined;
    this.jwt = new JwtBearer({
      keys: o.keys,
      ownIssuer: () => this.issuer(),
      ...(o.config.audience ? { audience: o.config.audience } : {}),
      ...(o.config.issuers ? { issuers: o.config.issuers } : {}),
      ...(o.config.sharedSecret ? { sharedSecret: o.config.sharedSecret } : {}),
      clockSkewSeconds: o.config.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
      ...(o.revocations ? { isRevoked: (claims: JWTPayload) => o.revocations!.isRevoked(claims) } : {}),
    });
  }

  /**
   * `resource`: the RFC 8707 identifier of what is being called (`resourceIdentifier(publicUrl,
   * '/mcp' | '/a2a/{id}' | '/a2a/{id}/mcp')`), or `resourcePath` to have it built from the public
   * URL (bindings built before the port is bound); own tokens must be for it or for the whole server.
   */
  authenticate(headers: CredentialHeaders, context: BearerContext & { resourcePath?: string } = NO_CONTEXT): Promise<Principal> {
    const presented = presentedCredential(headers);
    if (presented === undefined) return this.noSessionIn(headers) ? ANONYMOUS_ANSWER : this.sessionCaller(headers);
    return promisedPrincipal(this.answerPresented(presented, context.resource, context.resourcePath));
  }

  /**
   * `authenticate` for a resource path (the edge's question), without the context object for a
   * caller with no credential (nearly every request of an open server).
   */
  authenticateFor(headers: CredentialHeaders, resourcePath: string | undefined): Promise<Principal> {
    const presented = presentedCredential(headers);
    if (presented === undefined) return this.noSessionIn(headers) ? ANONYMOUS_ANSWER : this.sessionCaller(headers);
    return promisedPrincipal(this.answerPresented(presented, undefined, resourcePath));
  }

  /**
   * `authenticateFor`, with the caller itself when it is known without waiting: a caller with no
   * credential and no console session, a configured key, a stored key whose record is kept (ADR
   * 0052). Otherwise a promise, rejected with the A2AError of a refusal; never throws. The edge
   * asks this, so a request with a kept key waits for nothing: no promise, no await (issue 26,
   * CPU a request with a key).
   */
  answerFor(headers: CredentialHeaders, resourcePath: string | undefined): Principal | Promise<Principal> {
    const presented = presentedCredential(headers);
    if (presented === undefined) return this.noSessionIn(headers) ? ANONYMOUS : this.sessionCaller(headers);
    return this.answerPresented(presented, undefined, resourcePath);
  }

  /**
   * The one answer to every caller with no credential and no console session, fulfilled with
   * ANONYMOUS: no async frame, promise and awaits a request (issue 26, bytes allocated a request).
   * The edge notes such a caller in its usage record at once when it is handed this promise.
   */
  readonly anonymousAnswer: Promise<Principal> = ANONYMOUS_ANSWER;

  /** The request names no console session (the sessions say so without a lookup), or there are none. */
  private noSessionIn(headers: CredentialHeaders): boolean {
    return this.sessions === undefined || this.sessions.carriesSession?.(headers) === false;
  }

  private async sessionCaller(headers: CredentialHeaders): Promise<Principal> {
    return (await this.sessions?.authenticate(headers)) ?? ANONYMOUS;
  }

  /**
   * The caller a credential names, at once where that needs no wait (a configured key, a kept
   * stored key's record); a refusal as a rejected promise, never thrown. `resource`, else
   * `resourcePath`: what an own token must be for.
   */
  private answerPresented(presented: string, resource: string | undefined, resourcePath: string | undefined): Principal | Promise<Principal> {
    try {
      const configured = this.configKeys.match(presented);
      if (configured) return configured;
      if (presented.startsWith(API_KEY_PREFIX) && this.storedKeys) return this.storedKeys.answer(presented);
      if (looksLikeJwt(presented)) {
        const audience = resource ?? (resourcePath === undefined ? undefined : this.resourceOf(resourcePath));
        return this.jwt.authenticate(presented, audience === undefined ? {} : { resource: audience });
      }
      throw new A2AError('Unauthenticated', 'The credential presented is not valid');
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The authorization server's issuer: the public URL, path included (oauth-paths.ts). Asked on
   * every request (the base audience).
   */
  private readonly issuer = perPublicUrl(() => this.publicUrl(), issuerOf);
  /** resourceIdentifier() parses URLs; the few paths a server has are remembered per public URL. */
  private readonly resources = perPublicUrl(
    () => this.publicUrl(),
    () => new Map<string, string>(),
  );

  private resourceOf(path: string): string {
    const resources = this.resources();
    let r = resources.get(path);
    if (r === undefined) {
      r = resourceIdentifier(this.publicUrl(), path);
      // paths come from routes of known agents, but bound the map anyway
      if (resources.size >= 1024) resources.clear();
      resources.set(path, r);
    }
    return r;
  }

  /**
   * The `WWW-Authenticate` value for a refused request. `resource_metadata` is added once the
   * RFC 9728 document is served (a later step of issue 5); until then it would point nowhere.
   */
  challenge(err: A2AError, o: { scope?: string; resourceMetadata?: string } = {}): string {
    return bearerChallenge({
      ...(err.kind === 'Unauthenticated' ? { error: 'invalid_token' as const, description: err.message } : {}),
      ...o,
    });
  }
}
