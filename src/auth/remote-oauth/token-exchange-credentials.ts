/**
 * `agents[].mcp.auth` / `agents[].remote.auth` with `kind: token-exchange` (ADR 0039): the remote
 * gets a token its own security token service issued for the caller, obtained by RFC 8693 token
 * exchange. The subject token is the caller's Agentport access token, signed here for the call
 * (`typ: at+jwt`, our issuer, `aud` the STS, a minute long): tasks run after the request that
 * started them and API-key callers carry no token, so the one the caller presented is not at hand,
 * and a token meant for the STS alone is useless anywhere else. It goes to the STS only, never to
 * the remote (no passthrough).
 *
 * Exchanged tokens are kept in memory per caller and remote until shortly before they expire: they
 * are obtained again at any time without the user, carry no refresh token to protect, and a
 * replica that restarts or another replica exchanges once more at no cost to anyone. The vault is
 * for what only the user can give.
 */
import type { TokenExchangeAuthConfig } from '../../config/config.js';
import type { CredentialCaller, RemoteCredential } from '../../core/vault/index.js';
import type { FetchLike } from './remote-authorization-server.js';
import { mcpClientSdk } from './mcp-client-sdk.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** an exchanged token is not used in its last 30 s (clock skew, a call in flight) */
const EXPIRY_MARGIN_MS = 30_000;
/** a token without `expires_in` is used this long */
const DEFAULT_LIFETIME_MS = 300_000;
const MAX_CACHED = 10_000;

/** Signs the caller's Agentport access token (the server's KeyStore, issueAccessToken). */
export type SubjectTokenSigner = (caller: CredentialCaller, audience: string, ttlSeconds: number) => Promise<string>;

export interface ExchangeRemote {
  /** the agent id */
  id: string;
  auth: TokenExchangeAuthConfig;
  fetch: FetchLike;
}

export interface TokenExchangeCredentialsOptions {
  remotes: readonly ExchangeRemote[];
  signSubjectToken: SubjectTokenSigner;
  now?: () => number;
}

/** An exchange that cannot be made; the message is shown to the caller. */
class ExchangeUnavailable extends Error {}

interface Cached {
  authorization: string;
  until: number;
}

export class TokenExchangeCredentials {
  private readonly remotes: ReadonlyMap<string, ExchangeRemote>;
  private readonly endpoints = new Map<string, Promise<string>>();
  private readonly cache = new Map<string, Cached>();
  private readonly now: () => number;

  constructor(private readonly o: TokenExchangeCredentialsOptions) {
    this.remotes = new Map(o.remotes.map((r) => [r.id, r]));
    this.now = o.now ?? Date.now;
  }

  has(remote: string): boolean {
    return this.remotes.has(remote);
  }

  async credentialFor(caller: CredentialCaller, remoteId: string): Promise<RemoteCredential> {
    const key = cacheKey(caller, remoteId);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return { kind: 'token', authorization: hit.authorization };
    this.cache.delete(key);
    const remote = this.remotes.get(remoteId);
    if (!remote) return { kind: 'unavailable', reason: `no token service is configured for ${remoteId}` };
    let exchanged: Cached;
    try {
      exchanged = await this.exchange(remote, caller);
    } catch (err) {
      if (err instanceof ExchangeUnavailable) return { kind: 'unavailable', reason: err.message };
      throw err;
    }
    this.cache.set(key, exchanged);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return { kind: 'token', authorization: exchanged.authorization };
  }

  /** The remote refused an exchanged token: it is forgotten, and a new one exchanged. */
  async refused(caller: CredentialCaller, remoteId: string): Promise<RemoteCredential> {
    this.cache.delete(cacheKey(caller, remoteId));
    return this.credentialFor(caller, remoteId);
  }

  private async exchange(remote: ExchangeRemote, caller: CredentialCaller): Promise<Cached> {
    const a = remote.auth;
    const endpoint = await this.tokenEndpoint(remote);
    // The subject token is meant for the STS alone: its issuer when known, else the endpoint's origin.
    const subjectToken = await this.o.signSubjectToken(caller, a.issuer ?? new URL(endpoint).origin, a.subjectTokenTtlSeconds);
    const body = new URLSearchParams({ grant_type: GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE });
    if (a.audience) body.set('audience', a.audience);
    if (a.resource) body.set('resource', a.resource);
    if (a.scopes?.length) body.set('scope', a.scopes.join(' '));
    // RFC 6749 §2.3.1: id and secret form-encoded before base64.
    const basic = Buffer.from(`${encodeURIComponent(a.clientId)}:${encodeURIComponent(a.clientSecret)}`).toString('base64');
    let res: Response;
    try {
      res = await remote.fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` }, body: body.toString() });
    } catch {
      throw new ExchangeUnavailable(`the token service for ${remote.id} could not be reached`);
    }
    const answer = (await res.json().catch(() => undefined)) as { access_token?: unknown; token_type?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
    if (!res.ok || !answer || typeof answer.access_token !== 'string' || answer.access_token === '') {
      const code = typeof answer?.error === 'string' ? answer.error.slice(0, 60) : `HTTP ${res.status}`;
      const why = typeof answer?.error_description === 'string' ? `: ${answer.error_description.slice(0, 200)}` : '';
      throw new ExchangeUnavailable(`the token service for ${remote.id} refused to exchange your token (${code}${why})`);
    }
    const type = typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer' ? answer.token_type : 'Bearer';
    const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    // Short-lived tokens are used for half their life rather than not at all.
    return { authorization: `${type} ${answer.access_token}`, until: this.now() + Math.max(lifetime / 2, lifetime - EXPIRY_MARGIN_MS) };
  }

  private tokenEndpoint(remote: ExchangeRemote): Promise<string> {
    if (remote.auth.tokenEndpoint) return Promise.resolve(remote.auth.tokenEndpoint);
    const issuer = remote.auth.issuer!;
    let found = this.endpoints.get(remote.id);
    if (!found) {
      found = mcpClientSdk()
        .then((sdk) => sdk.discoverAuthorizationServerMetadata(issuer, { fetchFn: remote.fetch }))
        .then(
          (m) => {
            if (!m?.token_endpoint) throw new ExchangeUnavailable(`the token service ${issuer} names no token endpoint`);
            return m.token_endpoint;
          },
          () => {
            throw new ExchangeUnavailable(`the token service ${issuer} could not be discovered`);
          },
        );
      found.catch(() => this.endpoints.delete(remote.id));
      this.endpoints.set(remote.id, found);
    }
    return found;
  }
}

/** One exchanged token per caller as the subject token describes them: another key or usecase may get other scopes. */
function cacheKey(c: CredentialCaller, remote: string): string {
  return JSON.stringify([remote, c.subject, c.usecase ?? '', c.clientId ?? '', [...c.scopes].sort()]);
}
