/**
 * The login delegated to an upstream OpenID Provider (`auth.oauth.upstream`): the login page's
 * "Sign in with …" button sends the browser there with an authorization code request (PKCE S256,
 * `state`, `nonce`); the upstream sends it back to `/oauth/upstream/callback`, where the code is
 * exchanged and the ID token verified (signature against the upstream's JWKS, iss, aud, exp,
 * nonce). The account is `<issuer>#<subject>`, the namespace tokens of `auth.issuers` get in
 * src/auth/jwt-bearer.ts, so one person owns the same tasks whichever way they came in.
 *
 * The protocol is oauth4webapi's and jose's; this file decides only what is stored between the
 * steps and who may sign in. Every call to the upstream goes through the SSRF guard with the
 * approved addresses pinned (hosts in `allowHosts` are let through, e.g. an IdP on a private
 * network), with a 5 s time cap, so a dead upstream gives an error page, never a hanging one.
 *
 * Binding to the browser: `state` is also set as an HttpOnly cookie scoped to the callback path,
 * and the callback needs both to match. Without it, someone who started a sign-in could get a
 * victim to finish the upstream part and then resume the interaction as the victim.
 */
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { timingSafeEqual } from 'node:crypto';
import type { UpstreamLoginConfig } from '../../config/oauth-schema.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { guardedFetch, SsrfGuard } from '../../net/index.js';
import { oauthUrl, publicPath } from '../oauth-paths.js';

export const UPSTREAM_CALLBACK_PATH = '/oauth/upstream/callback';
const COOKIE = 'agentport_upstream_state';
const PENDING = 'UpstreamLogin';
const VERIFIED = 'UpstreamLoginVerified';
/** as long as oidc-provider keeps the interaction itself */
const PENDING_TTL_MS = 600_000;
/** between the callback and the interaction step that finishes the login (one redirect) */
const VERIFIED_TTL_MS = 120_000;
const TIMEOUT_MS = 5000;
const DISCOVERY_TTL_MS = 600_000;

/** A refusal with the page the browser should see; `message` never carries upstream internals. */
export class UpstreamLoginError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamLogin {
  readonly label: string;
  /** the upstream authorization URL for interaction `uid`, and the Set-Cookie binding it to this browser */
  begin(uid: string): Promise<{ location: string; setCookie: string }>;
  /** the callback: verifies everything and returns the interaction to continue */
  complete(callback: URL, cookieHeader: string | undefined): Promise<{ uid: string; state: string }>;
  /** the verified account of a completed callback, once (undefined: unknown, used or for another interaction) */
  take(state: string, uid: string): Promise<string | undefined>;
  /** the Set-Cookie that clears the binding cookie */
  readonly clearCookie: string;
  /** scopes this account may grant, when it came from the upstream */
  scopesOf(accountId: string): readonly string[] | undefined;
}

export function createUpstreamLogin(o: {
  config: UpstreamLoginConfig;
  store: OAuthStore;
  /** the public URL, path included (the callback and its cookie live below it) */
  publicUrl: () => string;
  log: { warn(o: object, m?: string): void };
}): UpstreamLogin {
  const cfg = o.config;
  const issuer = new URL(cfg.issuer);
  const label = cfg.label ?? issuer.host;
  const insecure = issuer.protocol === 'http:';
  const fetchImpl = guardedFetch(new SsrfGuard({ allow: cfg.allowHosts, allowHttp: insecure, label: 'upstream OIDC provider URL' }));
  const client: oauth.Client = { client_id: cfg.clientId };
  const clientAuth = cfg.clientSecret ? oauth.ClientSecretBasic(cfg.clientSecret) : oauth.None();
  const scope = [...new Set(['openid', ...cfg.scopes])].join(' ');
  const secure = () => o.publicUrl().startsWith('https:');
  const redirectUri = () => oauthUrl(o.publicUrl(), UPSTREAM_CALLBACK_PATH);
  const request = () => ({ [oauth.customFetch]: fetchImpl, [oauth.allowInsecureRequests]: insecure, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const unreachable = (err: unknown) => {
    o.log.warn({ err, issuer: cfg.issuer }, 'oauth: upstream sign-in failed');
    return new UpstreamLoginError(502, `${label} could not be reached or answered unexpectedly. Try again later.`);
  };

  let metadata: { as: oauth.AuthorizationServer; keys: JWTVerifyGetKey; until: number } | undefined;
  const discover = async () => {
    if (metadata && metadata.until > Date.now()) return metadata;
    try {
      // processDiscoveryResponse refuses a document naming another issuer (OIDC Discovery §4.3).
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...request() }));
      if (!as.jwks_uri || !as.authorization_endpoint || !as.token_endpoint) throw new Error('the discovery document lacks an endpoint');
      const keys = createRemoteJWKSet(new URL(as.jwks_uri), { timeoutDuration: TIMEOUT_MS, [customFetch]: (url, init) => fetchImpl(url, init) });
      metadata = { as, keys, until: Date.now() + DISCOVERY_TTL_MS };
      return metadata;
    } catch (err) {
      throw unreachable(err);
    }
  };

  const cookie = (value: string, maxAge: number) => `${COOKIE}=${value}; Path=${publicPath(o.publicUrl(), UPSTREAM_CALLBACK_PATH)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure() ? '; Secure' : ''}`;

  return {
    label,
    clearCookie: cookie('', 0),

    async begin(uid) {
      const { as } = await discover();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const verifier = oauth.generateRandomCodeVerifier();
      await o.store.upsertRecord(PENDING, state, { payload: { uid, nonce, verifier }, expiresAt: Date.now() + PENDING_TTL_MS });
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: cfg.clientId,
        redirect_uri: redirectUri(),
        response_type: 'code',
        scope,
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();
      return { location: url.href, setCookie: cookie(state, PENDING_TTL_MS / 1000) };
    },

    async complete(callback, cookieHeader) {
      const state = callback.searchParams.get('state') ?? '';
      const bound = cookieValue(cookieHeader, COOKIE);
      if (!state || !bound || !sameString(state, bound)) throw new UpstreamLoginError(400, 'This sign-in was not started in this browser. Start again from the application.');
      const pending = await o.store.findRecord(PENDING, state, Date.now());
      if (!pending || pending.consumedAt !== undefined) throw new UpstreamLoginError(400, 'This sign-in has expired or was already used. Start again from the application.');
      // Single use: a replayed callback finds it consumed.
      await o.store.consumeRecord(PENDING, state, Date.now());
      const { uid, nonce, verifier } = pending.payload as { uid: string; nonce: string; verifier: string };
      const { as, keys } = await discover();

      let params: URLSearchParams;
      try {
        // state and RFC 9207 `iss` (when the upstream announces it)
        params = oauth.validateAuthResponse(as, client, callback, state);
      } catch (err) {
        if (err instanceof oauth.AuthorizationResponseError) throw new UpstreamLoginError(403, `${label} did not sign you in (${err.error}).`);
        throw new UpstreamLoginError(400, `The answer from ${label} could not be used. Start again from the application.`);
      }
      let idToken: string;
      let accessToken: string;
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri(), verifier, request());
        // iss, aud, azp, exp, iat and nonce of the ID token are checked here ...
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
        idToken = tokens.id_token!;
        accessToken = tokens.access_token;
      } catch (err) {
        if (err instanceof oauth.ResponseBodyError || err instanceof oauth.OperationProcessingError) {
          o.log.warn({ err: { name: err.name, message: err.message }, issuer: cfg.issuer }, 'oauth: upstream token response refused');
          throw new UpstreamLoginError(403, `The sign-in from ${label} could not be verified. Start again from the application.`);
        }
        throw unreachable(err);
      }
      // ... and its signature here, against the upstream's published keys.
      let claims: Record<string, unknown>;
      try {
        claims = (await jwtVerify(idToken, keys, { issuer: as.issuer, audience: cfg.clientId })).payload;
      } catch (err) {
        o.log.warn({ err: { name: (err as Error).name, message: (err as Error).message }, issuer: cfg.issuer }, 'oauth: upstream ID token signature refused');
        throw new UpstreamLoginError(403, `The sign-in from ${label} could not be verified. Start again from the application.`);
      }
      // Some providers (oidc-provider, Entra) keep scope claims such as `email` out of the ID
      // token; then they come from the UserInfo endpoint, whose `sub` must be the ID token's.
      const needed = [cfg.subjectClaim, ...(cfg.allowedDomains ? ['email', 'email_verified'] : [])];
      if (needed.some((c) => claims[c] === undefined) && as.userinfo_endpoint) {
        try {
          const info = await oauth.processUserInfoResponse(as, client, String(claims.sub), await oauth.userInfoRequest(as, client, accessToken, request()));
          claims = { ...info, ...claims };
        } catch (err) {
          throw unreachable(err);
        }
      }
      const subject = claims[cfg.subjectClaim];
      if (typeof subject !== 'string' || subject === '') throw new UpstreamLoginError(403, `${label} did not say who you are (no ${cfg.subjectClaim}).`);
      if (!allowed(cfg, subject, claims)) {
        o.log.warn({ issuer: cfg.issuer, subject: subject.slice(0, 128) }, 'oauth: upstream account not allowed');
        throw new UpstreamLoginError(403, `Your ${label} account may not sign in to this server.`);
      }
      await o.store.upsertRecord(VERIFIED, state, { payload: { uid, accountId: `${cfg.issuer}#${subject}` }, expiresAt: Date.now() + VERIFIED_TTL_MS });
      return { uid, state };
    },

    async take(state, uid) {
      const r = await o.store.findRecord(VERIFIED, state, Date.now());
      if (!r || r.consumedAt !== undefined || r.payload.uid !== uid || typeof r.payload.accountId !== 'string') return undefined;
      await o.store.consumeRecord(VERIFIED, state, Date.now());
      return r.payload.accountId;
    },

    scopesOf(accountId) {
      return accountId.startsWith(`${cfg.issuer}#`) ? cfg.userScopes : undefined;
    },
  };
}

/** allowedSubjects and allowedDomains: either list admits; no list at all admits everyone the upstream signs in. */
function allowed(cfg: UpstreamLoginConfig, subject: string, claims: Record<string, unknown>): boolean {
  if (!cfg.allowedSubjects && !cfg.allowedDomains) return true;
  if (cfg.allowedSubjects?.includes(subject)) return true;
  const email = claims.email;
  if (cfg.allowedDomains && claims.email_verified === true && typeof email === 'string' && email.includes('@')) {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    return cfg.allowedDomains.some((d) => d.toLowerCase() === domain);
  }
  return false;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
