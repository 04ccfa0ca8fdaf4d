/**
 * Whether an Agentport-issued JWT access token was revoked. Tokens are stateless, so revocation is
 * looked up: a token from an authorization carries its `grant_id`, live only while the grant is
 * (revocation, refresh-token replay and grant expiry all end it); a client-credentials token has
 * no grant and is revoked by `jti`. A token with neither (minted by the CLI) cannot be revoked
 * here and lives until `exp`.
 */
import type { OAuthStore } from '../../store/oauth-store.js';

const REVOKED_JTI = 'RevokedAccessToken';

export interface TokenClaims {
  jti?: unknown;
  exp?: unknown;
  grant_id?: unknown;
}

export class TokenRevocations {
  constructor(
    private readonly store: OAuthStore,
    private readonly now: () => number = Date.now,
  ) {}

  async isRevoked(c: TokenClaims): Promise<boolean> {
    if (typeof c.grant_id === 'string') return !(await this.store.isLive('Grant', c.grant_id, this.now()));
    if (typeof c.jti === 'string') return this.store.isLive(REVOKED_JTI, c.jti, this.now());
    return false;
  }

  async revoke(c: TokenClaims): Promise<void> {
    if (typeof c.grant_id === 'string') return this.store.revokeRecordsOfGrant(c.grant_id, this.now());
    if (typeof c.jti !== 'string') return;
    const exp = typeof c.exp === 'number' ? c.exp * 1000 : this.now() + 86_400_000;
    await this.store.upsertRecord(REVOKED_JTI, c.jti, { payload: {}, expiresAt: exp });
  }
}
