/**
 * oidc-provider's storage adapter over our store (table oauth_records, migration 0005_oauth), so
 * codes, grants, refresh tokens, sessions and registered clients survive restarts and are shared
 * by replicas on one PostgreSQL.
 *
 * Revoking keeps the record (marked) until it expires: the resource server asks "is this grant
 * still live?" for every own token it verifies, and a missing row must keep meaning "a token not
 * issued through a grant" (minted by the CLI), not "revoked".
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuthStore } from '../../store/oauth-store.js';

export class StoreAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly store: OAuthStore,
    /** told about every grant revoked here, so the resource server stops its tokens at once */
    private readonly onGrantRevoked: (grantId: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await this.store.upsertRecord(this.model, id, {
      payload,
      ...(typeof payload.grantId === 'string' ? { grantId: payload.grantId } : {}),
      ...(typeof payload.uid === 'string' ? { uid: payload.uid } : {}),
      ...(expiresIn ? { expiresAt: this.now() + expiresIn * 1000 } : {}),
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const r = await this.store.findRecord(this.model, id, this.now());
    if (!r) return undefined;
    return { ...r.payload, ...(r.consumedAt === undefined ? {} : { consumed: Math.floor(r.consumedAt / 1000) }) };
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const r = await this.store.findRecordByUid(this.model, uid, this.now());
    if (!r) return undefined;
    return { ...r.payload, ...(r.consumedAt === undefined ? {} : { consumed: Math.floor(r.consumedAt / 1000) }) };
  }

  /** The device flow is not enabled; nothing has a user code. */
  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await this.store.consumeRecord(this.model, id, this.now());
  }

  async destroy(id: string): Promise<void> {
    await this.store.revokeRecord(this.model, id, this.now());
    if (this.model === 'Grant') this.onGrantRevoked(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.store.revokeRecordsOfGrant(grantId, this.now());
    this.onGrantRevoked(grantId);
  }
}
