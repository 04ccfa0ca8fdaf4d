/**
 * Whether an Agentport-issued JWT access token was revoked. Tokens are stateless, so revocation is
 * looked up: a token from an authorization carries its `grant_id`, live only while the grant is
 * (revocation, refresh-token replay and grant expiry all end it); a client-credentials token has
 * no grant and is revoked by `jti`. A token with neither (minted by the CLI) cannot be revoked
 * here and lives until `exp`.
 */
import type { OAuthStore } from '../../store/oauth-store.js';

const REVOKED_JTI = 'RevokedAccessToken';

/**
 * How long a "still live" answer is reused. A revocation made through this process takes effect at
 * once (the entry is dropped); one made on another replica within this bound. The lookup is a
 * database round trip per request otherwise (docs/decisions/0008-oauth-authorization-server.md).
 */
export const LIVENESS_CACHE_MS = 5_000;

export interface TokenClaims {
  jti?: unknown;
  exp?: unknown;
  grant_id?: unknown;
  /** RFC 8693 actor: present on a token exchanged by a service (token-exchange-grant.ts) */
  act?: unknown;
}

export class TokenRevocations {
  /** `g:<grant id>` / `j:<jti>` → until when (epoch ms) the "not revoked" answer holds */
  private readonly live = new Map<string, number>();

  constructor(
    private readonly store: OAuthStore,
    private readonly now: () => number = Date.now,
    private readonly cacheMs = LIVENESS_CACHE_MS,
  ) {}

  async isRevoked(c: TokenClaims): Promise<boolean> {
    // An exchanged token stands on the user's grant and may also be revoked alone (by jti).
    if (isExchanged(c)) return (await this.lookUp({ grant_id: c.grant_id })) || (await this.lookUp({ jti: c.jti }));
    return this.lookUp(c);
  }

  private async lookUp(c: TokenClaims): Promise<boolean> {
    const key = typeof c.grant_id === 'string' ? `g:${c.grant_id}` : typeof c.jti === 'string' ? `j:${c.jti}` : undefined;
    if (key === undefined) return false;
    const now = this.now();
    if ((this.live.get(key) ?? 0) > now) return false;
    const revoked = key.startsWith('g:') ? !(await this.store.isLive('Grant', key.slice(2), now)) : await this.store.isLive(REVOKED_JTI, key.slice(2), now);
    if (revoked) this.live.delete(key);
    else {
      if (this.live.size >= 10_000) this.live.delete(this.live.keys().next().value!);
      this.live.set(key, now + this.cacheMs);
    }
    return revoked;
  }

  /** A grant was revoked in this process (revocation, replay detection): its tokens stop now. */
  grantRevoked(grantId: string): void {
    this.live.delete(`g:${grantId}`);
  }

  /**
   * Forgets every cached "still live" answer (a user was deleted: which grants were theirs is not
   * known here, and the next lookups read the store again).
   */
  forgetLiveness(): void {
    this.live.clear();
  }

  async revoke(c: TokenClaims): Promise<void> {
    // The service that exchanged a token revokes that token, never the user's grant it stands on.
    if (typeof c.grant_id === 'string' && !isExchanged(c)) {
      this.grantRevoked(c.grant_id);
      return this.store.revokeRecordsOfGrant(c.grant_id, this.now());
    }
    if (typeof c.jti !== 'string') return;
    this.live.delete(`j:${c.jti}`);
    const exp = typeof c.exp === 'number' ? c.exp * 1000 : this.now() + 86_400_000;
    await this.store.upsertRecord(REVOKED_JTI, c.jti, { payload: {}, expiresAt: exp });
  }
}

/** A token from a token exchange that stands on a user's grant. */
function isExchanged(c: TokenClaims): c is TokenClaims & { grant_id: string; jti: string } {
  return c.act !== undefined && typeof c.grant_id === 'string' && typeof c.jti === 'string';
}
