/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) as an AuthProvider: a token is fetched on first use,
 * reused until shortly before `expires_in` runs out, and fetched again then or when the resource
 * server refuses it (refresh). Concurrent calls share one token request.
 */
import type { AuthProvider } from './auth.js';

export interface ClientCredentialsOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string | string[];
  /** RFC 8707 resource indicator (the audience the token is for) */
  resource?: string;
  /** `client_secret_basic` (default, RFC 6749 §2.3.1) or `client_secret_post` */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** renew this long before expiry (default 30 s, never more than half the lifetime) */
  refreshSkewMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
}

export class OAuthTokenError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly error: string | undefined,
  ) {
    super(message);
    this.name = 'OAuthTokenError';
  }
}

interface CachedToken {
  accessToken: string;
  /** epoch ms after which a new token is fetched */
  renewAt: number;
}

/** RFC 6749 §2.3.1: form-urlencode each part before base64 (so ':' in an id survives). */
const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');

export class ClientCredentialsAuth implements AuthProvider {
  private token: CachedToken | undefined;
  private pending: Promise<CachedToken> | undefined;
  /** how many tokens were obtained; lets callers (and tests) see refreshes happen */
  tokensIssued = 0;

  constructor(private readonly opts: ClientCredentialsOptions) {}

  async headers(): Promise<Record<string, string>> {
    const now = (this.opts.now ?? Date.now)();
    const token = this.token && now < this.token.renewAt ? this.token : await this.fetchToken();
    return { authorization: `Bearer ${token.accessToken}` };
  }

  async refresh(): Promise<boolean> {
    this.token = undefined;
    await this.fetchToken();
    return true;
  }

  private fetchToken(): Promise<CachedToken> {
    this.pending ??= this.requestToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async requestToken(): Promise<CachedToken> {
    const o = this.opts;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    const scope = Array.isArray(o.scope) ? o.scope.join(' ') : o.scope;
    if (scope) body.set('scope', scope);
    if (o.resource) body.set('resource', o.resource);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if ((o.authMethod ?? 'client_secret_basic') === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${formEncode(o.clientId)}:${formEncode(o.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', o.clientId);
      body.set('client_secret', o.clientSecret);
    }
    let res: Response;
    try {
      res = await (o.fetch ?? fetch)(o.tokenUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) });
    } catch (err) {
      throw new OAuthTokenError(`token endpoint ${o.tokenUrl} unreachable: ${(err as Error).message}`, undefined, undefined);
    }
    const json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!res.ok || !json || typeof json.access_token !== 'string') {
      const error = typeof json?.error === 'string' ? json.error : undefined;
      const description = typeof json?.error_description === 'string' ? `: ${json.error_description}` : '';
      throw new OAuthTokenError(`token endpoint answered ${res.status}${error ? ` ${error}` : ''}${description}`, res.status, error);
    }
    // RFC 6750 token type is case-insensitive; anything but Bearer needs a scheme we do not speak.
    if (typeof json.token_type === 'string' && json.token_type.toLowerCase() !== 'bearer') {
      throw new OAuthTokenError(`token endpoint issued a ${json.token_type} token; only Bearer is supported`, res.status, undefined);
    }
    const now = (o.now ?? Date.now)();
    const lifetimeMs = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in * 1000 : 3_600_000;
    const skew = Math.min(o.refreshSkewMs ?? 30_000, lifetimeMs / 2);
    this.tokensIssued++;
    this.token = { accessToken: json.access_token, renewAt: now + lifetimeMs - skew };
    return this.token;
  }
}

export const clientCredentialsAuth = (opts: ClientCredentialsOptions): ClientCredentialsAuth => new ClientCredentialsAuth(opts);
