/**
 * Per-user OAuth to remotes (`agents[].mcp.auth: oauth`, ADR 0035): the connect flow and the
 * credentials agents ask for. A user with no usable token gets a connect URL on Agentport
 * (`/connect/start?ticket=…`); opening it discovers the remote's authorization server and
 * redirects there with authorization code + PKCE + `resource` (RFC 8707); the callback
 * (`/connect/callback`) redeems the code and stores the tokens in the vault, where the waiting
 * task finds them. Ticket and state are sealed with the vault's key (AES-256-GCM) rather than
 * stored: any replica can serve either step, and neither can be forged or read by the browser.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import type { RemoteOAuthConfig } from '../../config/config.js';
import { RefreshRefusedError, type CredentialCaller, type RemoteCredential, type RemoteCredentials, type RemoteTokens, type TokenCipher, type TokenVault } from '../../core/vault/index.js';
import { guardedFetch, SsrfGuard } from '../../net/index.js';
import { mcpClientSdk } from './mcp-client-sdk.js';
import { discoverRemoteAuthorizationServer, RemoteAuthorizationError, type RemoteAuthorizationServer } from './remote-authorization-server.js';

export const CONNECT_START_PATH = '/connect/start';
export const CONNECT_CALLBACK_PATH = '/connect/callback';
const TICKET_CONTEXT = 'agentport connect ticket';
const STATE_CONTEXT = 'agentport connect state';
const DISCOVERY_TTL_MS = 600_000;

export interface OAuthRemote {
  /** the agent id, the vault's `remote` */
  id: string;
  /** the remote MCP server's URL */
  url: string;
  auth: RemoteOAuthConfig;
  allowlist: readonly string[];
}

/** A connect step that cannot go on; `status` and `message` are what the browser is shown. */
export class ConnectError extends Error {
  override readonly name = 'ConnectError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RemoteConnectionsOptions {
  remotes: readonly OAuthRemote[];
  vault: TokenVault;
  cipher: TokenCipher;
  /** Agentport's public base URL (read per use: the port may be bound late) */
  publicUrl: () => string;
  /** how long a connect URL and a started consent stay valid (ms) */
  ticketTtlMs?: number;
  now?: () => number;
}

interface Ticket {
  s: string;
  r: string;
  e: number;
}

interface State extends Ticket {
  /** PKCE code verifier */
  v: string;
  n: string;
  /** SHA-256 of the browser binding: the cookie `/connect/start` set in the browser that started (issue 27) */
  b: string;
}

const digestOf = (text: string) => createHash('sha256').update(text).digest();

export class RemoteConnections implements RemoteCredentials {
  private readonly remotes: ReadonlyMap<string, OAuthRemote & { fetch: ReturnType<typeof guardedFetch> }>;
  private readonly servers = new Map<string, { at: number; server: Promise<RemoteAuthorizationServer> }>();
  private readonly now: () => number;
  private readonly ttl: number;

  constructor(private readonly o: RemoteConnectionsOptions) {
    this.now = o.now ?? Date.now;
    this.ttl = o.ticketTtlMs ?? 600_000;
    this.remotes = new Map(o.remotes.map((r) => [r.id, { ...r, fetch: guardedFetch(new SsrfGuard({ allow: [...r.allowlist], allowHttp: true, label: `agents[${r.id}] authorization server URL` })) }]));
  }

  has(remote: string): boolean {
    return this.remotes.has(remote);
  }

  async credentialFor(caller: CredentialCaller, remote: string): Promise<RemoteCredential> {
    const subject = caller.subject;
    const r = await this.o.vault.usable(subject, remote, (refreshToken, current) => this.refresh(remote, refreshToken, current));
    if ('tokens' in r) {
      const t = r.tokens;
      return { kind: 'token', authorization: `Bearer ${t.accessToken}`, ...(t.remoteSubject ? { remoteSubject: t.remoteSubject } : {}), ...(t.issuer ? { remoteIssuer: t.issuer } : {}) };
    }
    return { kind: 'connect', connectUrl: this.connectUrl(subject, remote), reason: r.connect };
  }

  async refused({ subject }: CredentialCaller, remote: string): Promise<RemoteCredential> {
    await this.o.vault.disconnect(subject, remote);
    return { kind: 'connect', connectUrl: this.connectUrl(subject, remote), reason: 'refresh-refused' };
  }

  /** Where `subject` connects their account at `remote`: a page of Agentport, valid for the ticket's lifetime. */
  connectUrl(subject: string, remote: string): string {
    const ticket: Ticket = { s: subject, r: remote, e: this.now() + this.ttl };
    return `${this.o.publicUrl()}${CONNECT_START_PATH}?ticket=${encodeURIComponent(this.o.cipher.seal(JSON.stringify(ticket), TICKET_CONTEXT))}`;
  }

  /** Whom a connect link is for and at which remote, if the link is genuine and not expired. */
  openTicket(ticketParam: string | undefined): { subject: string; remote: string } {
    const ticket = this.openSealed<Ticket>(ticketParam, TICKET_CONTEXT, 'This connect link is not valid.');
    if (!this.remotes.has(ticket.r)) throw new ConnectError(404, 'This connect link names a remote this server does not have.');
    return { subject: ticket.s, remote: ticket.r };
  }

  /** A fresh browser binding: the value of the cookie `/connect/start` sets, which the callback must bring back. */
  static newBrowserBinding(): string {
    return randomBytes(32).toString('base64url');
  }

  /**
   * `/connect/start`, once the caller checked that the browser is signed in as the link's user:
   * the authorization URL at the remote's authorization server to redirect to. The state carries
   * the digest of `browserBinding`, so only the browser holding that cookie can finish.
   */
  async begin(ticketParam: string | undefined, browserBinding: string): Promise<{ location: string; remote: string; subject: string }> {
    const ticket = this.openSealed<Ticket>(ticketParam, TICKET_CONTEXT, 'This connect link is not valid.');
    const remote = this.remotes.get(ticket.r);
    if (!remote) throw new ConnectError(404, 'This connect link names a remote this server does not have.');
    const server = await this.server(remote.id);
    const state: State = { s: ticket.s, r: ticket.r, e: this.now() + this.ttl, v: '', n: randomBytes(8).toString('base64url'), b: digestOf(browserBinding).toString('base64url') };
    const { startAuthorization } = await mcpClientSdk();
    // startAuthorization makes the verifier; the state carries it, so it is built in two steps.
    const draft = await startAuthorization(server.issuer, {
      metadata: server.metadata,
      clientInformation: server.client,
      redirectUrl: this.redirectUri(),
      ...(server.scope ? { scope: server.scope } : {}),
      resource: server.resource,
      state: 'pending',
    });
    state.v = draft.codeVerifier;
    draft.authorizationUrl.searchParams.set('state', this.o.cipher.seal(JSON.stringify(state), STATE_CONTEXT));
    return { location: draft.authorizationUrl.href, remote: remote.id, subject: ticket.s };
  }

  /** `/connect/callback`: redeems the code and stores the user's tokens. */
  async complete(params: URLSearchParams, browserBinding: string | undefined): Promise<{ subject: string; remote: string; remoteSubject?: string }> {
    const state = this.openSealed<State>(params.get('state') ?? undefined, STATE_CONTEXT, 'This sign-in did not start here, or took too long. Start again from the connect link.');
    // Issue 27: a code (and state) carried to another browser binds nothing there.
    const expected = Buffer.from(typeof state.b === 'string' ? state.b : '', 'base64url');
    if (!browserBinding || expected.length !== 32 || !timingSafeEqual(expected, digestOf(browserBinding))) {
      throw new ConnectError(403, 'This sign-in was not started in this browser. Open the connect link again in the browser you are signed in to Agentport with.');
    }
    const error = params.get('error');
    if (error) throw new ConnectError(403, `The remote did not grant access (${error.slice(0, 100)}).`);
    const code = params.get('code');
    if (!code) throw new ConnectError(400, 'The remote sent no authorization code.');
    const remote = this.remotes.get(state.r);
    if (!remote) throw new ConnectError(404, 'This sign-in names a remote this server does not have.');
    const server = await this.server(remote.id);
    const { exchangeAuthorization, OAuthError } = await mcpClientSdk();
    let tokens: OAuthTokens;
    try {
      tokens = await exchangeAuthorization(server.issuer, {
        metadata: server.metadata,
        clientInformation: server.client,
        authorizationCode: code,
        ...(params.get('iss') ? { iss: params.get('iss')! } : {}),
        codeVerifier: state.v,
        redirectUri: this.redirectUri(),
        resource: server.resource,
        fetchFn: remote.fetch,
      });
    } catch (err) {
      throw new ConnectError(502, `The remote's authorization server refused the code (${err instanceof OAuthError ? err.code : 'error'}).`);
    }
    const stored = this.tokensOf(tokens, server.issuer, server.client);
    await this.o.vault.connect(state.s, remote.id, stored);
    return { subject: state.s, remote: remote.id, ...(stored.remoteSubject ? { remoteSubject: stored.remoteSubject } : {}) };
  }

  redirectUri(): string {
    return `${this.o.publicUrl()}${CONNECT_CALLBACK_PATH}`;
  }

  private async refresh(remoteId: string, refreshToken: string, current: RemoteTokens): Promise<RemoteTokens> {
    const remote = this.remotes.get(remoteId);
    if (!remote) throw new RefreshRefusedError('the remote is no longer configured');
    const server = await this.server(remoteId);
    // The client the tokens were issued to (a registered one may differ from today's).
    const client = current.client ? (JSON.parse(current.client) as OAuthClientInformationMixed) : server.client;
    const { refreshAuthorization, OAuthError } = await mcpClientSdk();
    try {
      const tokens = await refreshAuthorization(current.issuer ?? server.issuer, { metadata: server.metadata, clientInformation: client, refreshToken, resource: server.resource, fetchFn: remote.fetch });
      return this.tokensOf(tokens, current.issuer ?? server.issuer, client);
    } catch (err) {
      // RFC 6749 §5.2: the grant or the client is no longer good; anything else may pass.
      if (err instanceof OAuthError && ['invalid_grant', 'invalid_client', 'unauthorized_client'].includes(String(err.code))) throw new RefreshRefusedError(String(err.code));
      throw err;
    }
  }

  private tokensOf(t: OAuthTokens, issuer: string, client: OAuthClientInformationMixed): RemoteTokens {
    return {
      accessToken: t.access_token,
      ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
      tokenType: t.token_type || 'Bearer',
      ...(t.scope ? { scope: t.scope } : {}),
      ...(typeof t.expires_in === 'number' ? { expiresAt: this.now() + t.expires_in * 1000 } : {}),
      issuer,
      client: JSON.stringify(client),
      ...(subjectOf(t) ? { remoteSubject: subjectOf(t)! } : {}),
    };
  }

  private server(remoteId: string): Promise<RemoteAuthorizationServer> {
    const cached = this.servers.get(remoteId);
    if (cached && this.now() - cached.at < DISCOVERY_TTL_MS) return cached.server;
    const remote = this.remotes.get(remoteId)!;
    const server = discoverRemoteAuthorizationServer({ url: remote.url, auth: remote.auth, redirectUri: this.redirectUri(), fetch: remote.fetch, clientName: `Agentport (${new URL(this.o.publicUrl()).host})` }).catch(
      (err: unknown) => {
        this.servers.delete(remoteId);
        throw err instanceof RemoteAuthorizationError ? new ConnectError(502, `The remote cannot be connected: ${err.message}.`) : new ConnectError(502, 'The remote cannot be reached to connect.');
      },
    );
    this.servers.set(remoteId, { at: this.now(), server });
    return server;
  }

  private openSealed<T extends Ticket>(sealed: string | undefined, context: string, invalid: string): T {
    if (!sealed) throw new ConnectError(400, invalid);
    let value: T;
    try {
      value = JSON.parse(this.o.cipher.open(sealed, context)) as T;
    } catch {
      throw new ConnectError(400, invalid);
    }
    if (typeof value.e !== 'number' || value.e < this.now()) throw new ConnectError(400, invalid);
    return value;
  }
}

/**
 * Who the user is at the remote, for records and the Connections list: the access token's `sub`
 * when it is a JWT (the id token's otherwise). Read, not verified: it only labels what we were
 * given by the authorization server itself, and no decision depends on it.
 */
function subjectOf(t: OAuthTokens): string | undefined {
  for (const jwt of [t.id_token, t.access_token]) {
    if (!jwt) continue;
    try {
      const sub = decodeJwt(jwt).sub;
      if (typeof sub === 'string' && sub) return sub;
    } catch {
      // not a JWT
    }
  }
  return undefined;
}
