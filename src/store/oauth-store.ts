/**
 * Storage of the OAuth authorization server (migrations 0005_oauth, 0006_sessions): oidc-provider's
 * records, the local users of the login page and their sign-in sessions. Both dialects share these statements; `INSERT … ON CONFLICT`
 * is spelled the same on SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import type { Database, OAuthRecordsTable, UsersTable } from './schema.js';
import { SqlRemoteTokenStore, type RemoteTokenStore } from './remote-token-store.js';
import { SqlSessionStore, type SessionStore } from './session-store.js';

/** One oidc-provider record (a grant, code, refresh token, client, session, interaction, …). */
export interface OAuthRecord {
  payload: Record<string, unknown>;
  /** epoch ms; absent: does not expire (registered clients) */
  expiresAt?: number;
  consumedAt?: number;
}

export interface StoredUser {
  username: string;
  /** `scrypt$N$r$p$salt$hash` (src/auth/oauth/password-hash.ts) */
  passwordHash: string;
  scopes: string[];
  /** epoch ms */
  createdAt: number;
}

export interface OAuthStore {
  upsertRecord(model: string, id: string, r: { payload: Record<string, unknown>; grantId?: string; uid?: string; expiresAt?: number }): Promise<void>;
  /** Inserts unless `model/id` exists (another replica was first); returns whether it inserted. */
  createRecord(model: string, id: string, payload: Record<string, unknown>): Promise<boolean>;
  /** undefined when missing, expired at `now` or revoked */
  findRecord(model: string, id: string, now: number): Promise<OAuthRecord | undefined>;
  findRecordByUid(model: string, uid: string, now: number): Promise<(OAuthRecord & { id: string }) | undefined>;
  consumeRecord(model: string, id: string, at: number): Promise<void>;
  /** Marks the record revoked (kept until it expires, so a resource server can tell). */
  revokeRecord(model: string, id: string, at: number): Promise<void>;
  revokeRecordsOfGrant(grantId: string, at: number): Promise<void>;
  /** Whether `model/id` exists, has not expired and is not revoked: one indexed read. */
  isLive(model: string, id: string, now: number): Promise<boolean>;
  /** Every live record of a model (registered clients for the management API), oldest id first. */
  listRecords(model: string, now: number): Promise<Array<OAuthRecord & { id: string }>>;
  deleteRecord(model: string, id: string): Promise<boolean>;
  /** An account's live consent grants (oidc-provider `Grant` records), oldest id first. */
  listGrantsOfAccount(accountId: string, now: number): Promise<Array<OAuthRecord & { id: string }>>;
  /**
   * Revokes everything issued to an account: its grants and every record of them (codes, refresh
   * tokens), and its provider sessions. Returns the ids of the grants it revoked.
   */
  revokeAccount(accountId: string, at: number): Promise<string[]>;
  /**
   * Ends the account's browser sessions at the authorization server (oidc-provider `Session`
   * records): the browser that signed in must show the login page again. Grants stay.
   */
  endProviderSessionsOf(accountId: string, at: number): Promise<void>;
  /** Deletes records and sessions expired before `now`; returns how many. */
  sweepExpired(now: number): Promise<number>;

  putUser(u: StoredUser): Promise<boolean>;
  getUser(username: string): Promise<StoredUser | undefined>;
  listUsers(): Promise<StoredUser[]>;
  /**
   * Deletes the user and ends what the user held: every sign-in session, every grant with its
   * refresh tokens and codes (revokeAccount). Returns whether the user existed.
   */
  deleteUser(username: string, at?: number): Promise<boolean>;
  /**
   * Revokes the API keys the user made for themselves (api_keys.owner, migration 0016) and returns
   * their ids; deleteUser does it too, so a later user of the same name never inherits them.
   */
  revokeApiKeysOfOwner(username: string, at: number): Promise<string[]>;
  /**
   * Replaces the user's scopes and, since what the user may grant changed, ends every sign-in
   * session and revokes every grant of the user (clients ask for consent again). Returns whether
   * the user exists.
   */
  setUserScopes(username: string, scopes: readonly string[], at?: number): Promise<boolean>;
  countUsers(): Promise<number>;

  /** Server-side sign-in sessions (the admin page, the console). */
  readonly sessions: SessionStore;
  /** The token vault's rows: tokens held for users at remotes, sealed (ADR 0035). */
  readonly remoteTokens: RemoteTokenStore;
}

export class SqlOAuthStore implements OAuthStore {
  readonly sessions: SessionStore;
  readonly remoteTokens: RemoteTokenStore;

  constructor(private readonly db: Kysely<Database>) {
    this.sessions = new SqlSessionStore(db);
    this.remoteTokens = new SqlRemoteTokenStore(db);
  }

  async upsertRecord(model: string, id: string, r: { payload: Record<string, unknown>; grantId?: string; uid?: string; expiresAt?: number }): Promise<void> {
    const row = {
      model,
      id,
      payload: JSON.stringify(r.payload),
      grant_id: r.grantId ?? null,
      uid: r.uid ?? null,
      account_id: typeof r.payload.accountId === 'string' ? r.payload.accountId : null,
      expires_at: r.expiresAt ?? null,
      consumed_at: null,
      revoked_at: null,
    };
    await this.db
      .insertInto('oauth_records')
      .values(row)
      .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet({ payload: row.payload, grant_id: row.grant_id, uid: row.uid, account_id: row.account_id, expires_at: row.expires_at }))
      .execute();
  }

  async createRecord(model: string, id: string, payload: Record<string, unknown>): Promise<boolean> {
    const r = await this.db
      .insertInto('oauth_records')
      .values({ model, id, payload: JSON.stringify(payload), grant_id: null, uid: null, account_id: null, expires_at: null, consumed_at: null, revoked_at: null })
      .onConflict((oc) => oc.columns(['model', 'id']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async findRecord(model: string, id: string, now: number): Promise<OAuthRecord | undefined> {
    const row = await this.live(now).where('model', '=', model).where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async findRecordByUid(model: string, uid: string, now: number): Promise<(OAuthRecord & { id: string }) | undefined> {
    const row = await this.live(now).where('model', '=', model).where('uid', '=', uid).executeTakeFirst();
    return row ? { ...toRecord(row), id: row.id } : undefined;
  }

  async consumeRecord(model: string, id: string, at: number): Promise<void> {
    await this.db.updateTable('oauth_records').set({ consumed_at: at }).where('model', '=', model).where('id', '=', id).where('consumed_at', 'is', null).execute();
  }

  async revokeRecord(model: string, id: string, at: number): Promise<void> {
    await this.db.updateTable('oauth_records').set({ revoked_at: at }).where('model', '=', model).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  async revokeRecordsOfGrant(grantId: string, at: number): Promise<void> {
    await this.db.updateTable('oauth_records').set({ revoked_at: at }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).execute();
    await this.revokeRecord('Grant', grantId, at);
  }

  async isLive(model: string, id: string, now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select('id')
      .where('model', '=', model)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
    return row !== undefined;
  }

  async listRecords(model: string, now: number): Promise<Array<OAuthRecord & { id: string }>> {
    const rows = await this.live(now).where('model', '=', model).orderBy('id').execute();
    return rows.map((r) => ({ ...toRecord(r), id: r.id }));
  }

  async listGrantsOfAccount(accountId: string, now: number): Promise<Array<OAuthRecord & { id: string }>> {
    const rows = await this.live(now).where('model', '=', 'Grant').where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map((r) => ({ ...toRecord(r), id: r.id }));
  }

  async deleteRecord(model: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('oauth_records').where('model', '=', model).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async revokeAccount(accountId: string, at: number): Promise<string[]> {
    const grants = await this.db.selectFrom('oauth_records').select('id').where('model', '=', 'Grant').where('account_id', '=', accountId).where('revoked_at', 'is', null).execute();
    // A subquery, not the list above: an account may hold more grants than a statement may have parameters.
    const ofAccount = this.db.selectFrom('oauth_records as g').select('g.id').where('g.model', '=', 'Grant').where('g.account_id', '=', accountId);
    await this.db
      .updateTable('oauth_records')
      .set({ revoked_at: at })
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('account_id', '=', accountId), eb('grant_id', 'in', ofAccount)]))
      .execute();
    return grants.map((g) => g.id);
  }

  async endProviderSessionsOf(accountId: string, at: number): Promise<void> {
    await this.db.updateTable('oauth_records').set({ revoked_at: at }).where('model', '=', 'Session').where('account_id', '=', accountId).where('revoked_at', 'is', null).execute();
  }

  async sweepExpired(now: number): Promise<number> {
    const r = await this.db.deleteFrom('oauth_records').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows) + (await this.sessions.sweepExpiredSessions(now));
  }

  async putUser(u: StoredUser): Promise<boolean> {
    const r = await this.db
      .insertInto('users')
      .values({ username: u.username, password_hash: u.passwordHash, scopes: JSON.stringify(u.scopes), created_at: u.createdAt })
      .onConflict((oc) => oc.column('username').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async getUser(username: string): Promise<StoredUser | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    return row ? toUser(row) : undefined;
  }

  async listUsers(): Promise<StoredUser[]> {
    return (await this.db.selectFrom('users').selectAll().orderBy('created_at').orderBy('username').execute()).map(toUser);
  }

  async deleteUser(username: string, at = Date.now()): Promise<boolean> {
    // Single statements (no multi-statement transaction on SQLite, src/store/sqlite/sqlite-store.ts),
    // ordered so a failure part-way leaves the user in place to be deleted again, and repeated
    // after the delete for whatever a sign-in under way created in between.
    await this.revokeAccount(username, at);
    await this.sessions.endSessionsOf(username);
    await this.revokeApiKeysOfOwner(username, at);
    await this.remoteTokens.deleteRemoteTokensOf(username);
    const r = await this.db.deleteFrom('users').where('username', '=', username).executeTakeFirst();
    await this.revokeAccount(username, at);
    await this.sessions.endSessionsOf(username);
    await this.remoteTokens.deleteRemoteTokensOf(username);
    return Number(r.numDeletedRows) > 0;
  }

  async revokeApiKeysOfOwner(username: string, at: number): Promise<string[]> {
    const keys = this.db.withTables<{ api_keys: { key_id: string; owner: string | null; revoked_at: number | null } }>();
    const owned = await keys.selectFrom('api_keys').select('key_id').where('owner', '=', username).where('revoked_at', 'is', null).execute();
    if (owned.length === 0) return [];
    await keys.updateTable('api_keys').set({ revoked_at: at }).where('owner', '=', username).where('revoked_at', 'is', null).execute();
    return owned.map((k) => k.key_id);
  }

  async setUserScopes(username: string, scopes: readonly string[], at = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ scopes: JSON.stringify(scopes) })
      .where('username', '=', username)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    await this.sessions.endSessionsOf(username);
    await this.revokeAccount(username, at);
    return true;
  }

  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private live(now: number) {
    return this.db
      .selectFrom('oauth_records')
      .selectAll()
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  }
}

function toRecord(row: OAuthRecordsTable): OAuthRecord {
  return {
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    ...(row.expires_at === null ? {} : { expiresAt: Number(row.expires_at) }),
    ...(row.consumed_at === null ? {} : { consumedAt: Number(row.consumed_at) }),
  };
}

function toUser(row: UsersTable): StoredUser {
  const scopes: unknown = JSON.parse(row.scopes);
  return {
    username: row.username,
    passwordHash: row.password_hash,
    scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [],
    createdAt: Number(row.created_at),
  };
}
