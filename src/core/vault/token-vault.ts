/**
 * The token vault (ADR 0035): tokens Agentport holds for a user at a remote reached with
 * `auth: oauth`, sealed at rest (token-cipher.ts) and opened only to make a call. An access token
 * near its expiry is refreshed by exactly one replica: the one whose conditional update takes the
 * row's refresh lease; the others wait for the row to change and use the winner's tokens, so a
 * rotating refresh token is never spent twice. A refresh the remote refuses deletes the row: the
 * user is asked to connect again.
 */
import type { RemoteTokenStore, RemoteTokenWrite, StoredRemoteToken } from '../../store/remote-token-store.js';
import type { TokenCipher } from './token-cipher.js';

/** Tokens as a remote's authorization server issued them, in clear (only in memory). */
export interface RemoteTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  tokenType: string;
  scope?: string | undefined;
  /** epoch ms */
  expiresAt?: number | undefined;
  issuer?: string | undefined;
  /** the OAuth client they were issued to, as JSON (it may hold a registered client's secret) */
  client?: string | undefined;
  remoteSubject?: string | undefined;
}

/** What the Connections list shows of a row: never a token. */
export interface ConnectionSummary {
  remote: string;
  scope?: string;
  remoteSubject?: string;
  connectedAt: number;
  refreshedAt?: number;
  lastUsedAt?: number;
  expiresAt?: number;
  refreshable: boolean;
}

/** The remote refused the refresh token (RFC 6749 §5.2 `invalid_grant` and the like): connect again. */
export class RefreshRefusedError extends Error {
  override readonly name = 'RefreshRefusedError';
}

/** Redeems a refresh token at the remote's authorization server; `current` are the tokens as stored. */
export type Refresher = (refreshToken: string, current: RemoteTokens) => Promise<RemoteTokens>;

/** Why a call cannot be made with the vault's tokens: the user must connect (again). */
export type ConnectReason = 'not-connected' | 'expired' | 'refresh-refused';

export interface VaultEvents {
  refreshed?(subject: string, remote: string): void;
  refreshFailed?(subject: string, remote: string, refused: boolean): void;
}

export interface TokenVaultOptions {
  /** refresh this long before `expiresAt` (ms) */
  refreshSkewMs?: number;
  /** how long a replica may take to refresh before another may try (ms) */
  refreshLeaseMs?: number;
  /** how often a replica waiting for another's refresh reads the row again (ms) */
  refreshPollMs?: number;
  now?: () => number;
  events?: VaultEvents;
}

export class TokenVault {
  private readonly now: () => number;
  private readonly skew: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly store: RemoteTokenStore,
    private readonly cipher: TokenCipher,
    private readonly o: TokenVaultOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.skew = o.refreshSkewMs ?? 60_000;
    this.leaseMs = o.refreshLeaseMs ?? 30_000;
    this.pollMs = o.refreshPollMs ?? 100;
  }

  /** Stores a new connection (the callback of a consent), replacing any earlier one. */
  async connect(subject: string, remote: string, tokens: RemoteTokens): Promise<void> {
    const at = this.now();
    await this.store.putRemoteToken(this.sealed(subject, remote, tokens, { connectedAt: at }));
  }

  async disconnect(subject: string, remote: string): Promise<boolean> {
    return this.store.deleteRemoteToken(subject, remote);
  }

  async connections(subject: string): Promise<ConnectionSummary[]> {
    return (await this.store.listRemoteTokensOf(subject)).map((r) => ({
      remote: r.remote,
      ...(r.scope === undefined ? {} : { scope: r.scope }),
      ...(r.remoteSubject === undefined ? {} : { remoteSubject: r.remoteSubject }),
      connectedAt: r.connectedAt,
      ...(r.refreshedAt === undefined ? {} : { refreshedAt: r.refreshedAt }),
      ...(r.lastUsedAt === undefined ? {} : { lastUsedAt: r.lastUsedAt }),
      ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt }),
      refreshable: r.refreshToken !== undefined,
    }));
  }

  /** The tokens of (subject, remote) in clear, as stored (no refresh); undefined when not connected. */
  async read(subject: string, remote: string): Promise<RemoteTokens | undefined> {
    const row = await this.store.getRemoteToken(subject, remote);
    return row ? this.opened(row) : undefined;
  }

  /**
   * Tokens good for a call now: refreshed first when they expire within the skew (once across
   * replicas). `{ connect }` when the user has to connect (again).
   */
  async usable(subject: string, remote: string, refresh: Refresher): Promise<{ tokens: RemoteTokens } | { connect: ConnectReason }> {
    // After waiting for another replica's refresh, its token is taken as long as it has not expired:
    // refreshing it again would spend the rotated refresh token twice for nothing.
    let waited = false;
    for (;;) {
      const row = await this.store.getRemoteToken(subject, remote);
      if (!row) return { connect: 'not-connected' };
      const now = this.now();
      if (row.expiresAt === undefined || row.expiresAt - (waited ? 0 : this.skew) > now) {
        await this.store.touchRemoteToken(subject, remote, now);
        return { tokens: this.opened(row) };
      }
      if (row.refreshToken === undefined) {
        if (row.expiresAt > now) return { tokens: this.opened(row) };
        await this.store.deleteRemoteToken(subject, remote);
        return { connect: 'expired' };
      }
      if (!(await this.store.claimRefresh(subject, remote, row.version, now, now + this.leaseMs))) {
        // Another replica (or call) is refreshing: wait for its write, then read the row again.
        await this.waitForChange(subject, remote, row.version);
        waited = true;
        continue;
      }
      const current = this.opened(row);
      let fresh: RemoteTokens;
      try {
        fresh = await refresh(current.refreshToken!, current);
      } catch (err) {
        const refused = err instanceof RefreshRefusedError;
        this.o.events?.refreshFailed?.(subject, remote, refused);
        if (!refused) {
          await this.store.releaseRefresh(subject, remote, row.version);
          throw err;
        }
        await this.store.deleteRemoteToken(subject, remote);
        return { connect: 'refresh-refused' };
      }
      // A remote that does not rotate refresh tokens omits it: the one we had stays valid.
      const merged: RemoteTokens = {
        ...fresh,
        refreshToken: fresh.refreshToken ?? current.refreshToken,
        issuer: fresh.issuer ?? current.issuer,
        remoteSubject: fresh.remoteSubject ?? current.remoteSubject,
        scope: fresh.scope ?? current.scope,
      };
      const at = this.now();
      const written = await this.store.completeRefresh(this.sealed(subject, remote, merged, { connectedAt: row.connectedAt, refreshedAt: at }), row.version);
      // Not written: the row was replaced meanwhile (the user connected again); use what is there.
      if (!written) continue;
      this.o.events?.refreshed?.(subject, remote);
      await this.store.touchRemoteToken(subject, remote, at);
      return { tokens: merged };
    }
  }

  private async waitForChange(subject: string, remote: string, version: number): Promise<void> {
    const until = this.now() + this.leaseMs;
    while (this.now() < until) {
      await new Promise((r) => setTimeout(r, this.pollMs));
      const row = await this.store.getRemoteToken(subject, remote);
      if (!row || row.version !== version) return;
    }
  }

  private context(subject: string, remote: string, field: 'access' | 'refresh' | 'client'): string {
    return `${subject}\n${remote}\n${field}`;
  }

  private sealed(subject: string, remote: string, t: RemoteTokens, times: { connectedAt: number; refreshedAt?: number }): RemoteTokenWrite {
    return {
      subject,
      remote,
      accessToken: this.cipher.seal(t.accessToken, this.context(subject, remote, 'access')),
      ...(t.refreshToken === undefined ? {} : { refreshToken: this.cipher.seal(t.refreshToken, this.context(subject, remote, 'refresh')) }),
      tokenType: t.tokenType,
      ...(t.scope === undefined ? {} : { scope: t.scope }),
      ...(t.expiresAt === undefined ? {} : { expiresAt: t.expiresAt }),
      ...(t.issuer === undefined ? {} : { issuer: t.issuer }),
      ...(t.client === undefined ? {} : { client: this.cipher.seal(t.client, this.context(subject, remote, 'client')) }),
      ...(t.remoteSubject === undefined ? {} : { remoteSubject: t.remoteSubject }),
      connectedAt: times.connectedAt,
      ...(times.refreshedAt === undefined ? {} : { refreshedAt: times.refreshedAt }),
    };
  }

  private opened(row: StoredRemoteToken): RemoteTokens {
    return {
      accessToken: this.cipher.open(row.accessToken, this.context(row.subject, row.remote, 'access')),
      ...(row.refreshToken === undefined ? {} : { refreshToken: this.cipher.open(row.refreshToken, this.context(row.subject, row.remote, 'refresh')) }),
      tokenType: row.tokenType,
      ...(row.scope === undefined ? {} : { scope: row.scope }),
      ...(row.expiresAt === undefined ? {} : { expiresAt: row.expiresAt }),
      ...(row.issuer === undefined ? {} : { issuer: row.issuer }),
      ...(row.client === undefined ? {} : { client: this.cipher.open(row.client, this.context(row.subject, row.remote, 'client')) }),
      ...(row.remoteSubject === undefined ? {} : { remoteSubject: row.remoteSubject }),
    };
  }
}
