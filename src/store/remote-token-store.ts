/**
 * The token vault's rows (migration 0018_remote_tokens): what Agentport holds for a user at a
 * remote. Values arrive here already sealed (src/core/vault); this file never sees a token in
 * clear. Both dialects share these statements: the refresh lease is a conditional UPDATE, which
 * SQLite and PostgreSQL both apply atomically per row, so of two replicas refreshing at once one
 * wins and the other reads the winner's tokens.
 */
import type { Kysely } from 'kysely';
import type { Database, RemoteTokensTable } from './schema.js';

export interface StoredRemoteToken {
  /** the Agentport user (subject) the tokens act for */
  subject: string;
  /** the agent id of the remote (`agents[].id`) */
  remote: string;
  /** sealed */
  accessToken: string;
  /** sealed; absent when the remote gave none */
  refreshToken?: string;
  tokenType: string;
  scope?: string;
  /** epoch ms; absent when the remote did not say */
  expiresAt?: number;
  /** the authorization server that issued them (refreshes go there) */
  issuer?: string;
  /** sealed: the OAuth client they were issued to (refreshes use it) */
  client?: string;
  /** who the user is at the remote, when it said (usage and audit name it; never a token) */
  remoteSubject?: string;
  connectedAt: number;
  refreshedAt?: number;
  lastUsedAt?: number;
  /** bumped by every write; a refresh writes only over the version it read */
  version: number;
}

export type RemoteTokenWrite = Omit<StoredRemoteToken, 'version' | 'lastUsedAt'>;

export interface RemoteTokenStore {
  /** Inserts or replaces the row of (subject, remote) (a new connection); clears any refresh lease. */
  putRemoteToken(t: RemoteTokenWrite): Promise<void>;
  getRemoteToken(subject: string, remote: string): Promise<StoredRemoteToken | undefined>;
  /** The user's rows, by remote. */
  listRemoteTokensOf(subject: string): Promise<StoredRemoteToken[]>;
  /** Returns whether a row was deleted. */
  deleteRemoteToken(subject: string, remote: string): Promise<boolean>;
  /** Every row of the user (user deleted); returns how many. */
  deleteRemoteTokensOf(subject: string): Promise<number>;
  /**
   * Takes the refresh lease of the row until `until` when it is free or expired at `now` and the
   * row is still at `version`. Returns whether this caller took it.
   */
  claimRefresh(subject: string, remote: string, version: number, now: number, until: number): Promise<boolean>;
  /** Writes refreshed tokens over the row this caller leased (version unchanged); releases the lease. */
  completeRefresh(t: RemoteTokenWrite, version: number): Promise<boolean>;
  /** Gives the lease back without writing (the refresh failed for a reason that may pass). */
  releaseRefresh(subject: string, remote: string, version: number): Promise<void>;
  /** Records a use (the Connections list shows it); does not bump the version. */
  touchRemoteToken(subject: string, remote: string, at: number): Promise<void>;
}

export class SqlRemoteTokenStore implements RemoteTokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  async putRemoteToken(t: RemoteTokenWrite): Promise<void> {
    const row = rowOf(t);
    await this.db
      .insertInto('remote_tokens')
      .values({ ...row, version: 1, last_used_at: null, refresh_until: null })
      .onConflict((oc) => oc.columns(['subject', 'remote']).doUpdateSet((eb) => ({ ...row, version: eb('remote_tokens.version', '+', 1), refresh_until: null })))
      .execute();
  }

  async getRemoteToken(subject: string, remote: string): Promise<StoredRemoteToken | undefined> {
    const row = await this.db.selectFrom('remote_tokens').selectAll().where('subject', '=', subject).where('remote', '=', remote).executeTakeFirst();
    return row ? tokenOf(row) : undefined;
  }

  async listRemoteTokensOf(subject: string): Promise<StoredRemoteToken[]> {
    return (await this.db.selectFrom('remote_tokens').selectAll().where('subject', '=', subject).orderBy('remote').execute()).map(tokenOf);
  }

  async deleteRemoteToken(subject: string, remote: string): Promise<boolean> {
    const r = await this.db.deleteFrom('remote_tokens').where('subject', '=', subject).where('remote', '=', remote).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteRemoteTokensOf(subject: string): Promise<number> {
    const r = await this.db.deleteFrom('remote_tokens').where('subject', '=', subject).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async claimRefresh(subject: string, remote: string, version: number, now: number, until: number): Promise<boolean> {
    const r = await this.db
      .updateTable('remote_tokens')
      .set({ refresh_until: until })
      .where('subject', '=', subject)
      .where('remote', '=', remote)
      .where('version', '=', version)
      .where((eb) => eb.or([eb('refresh_until', 'is', null), eb('refresh_until', '<=', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async completeRefresh(t: RemoteTokenWrite, version: number): Promise<boolean> {
    const r = await this.db
      .updateTable('remote_tokens')
      .set({ ...rowOf(t), version: version + 1, refresh_until: null })
      .where('subject', '=', t.subject)
      .where('remote', '=', t.remote)
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async releaseRefresh(subject: string, remote: string, version: number): Promise<void> {
    await this.db.updateTable('remote_tokens').set({ refresh_until: null }).where('subject', '=', subject).where('remote', '=', remote).where('version', '=', version).execute();
  }

  async touchRemoteToken(subject: string, remote: string, at: number): Promise<void> {
    await this.db.updateTable('remote_tokens').set({ last_used_at: at }).where('subject', '=', subject).where('remote', '=', remote).execute();
  }
}

function rowOf(t: RemoteTokenWrite): Omit<RemoteTokensTable, 'version' | 'last_used_at' | 'refresh_until'> {
  return {
    subject: t.subject,
    remote: t.remote,
    access_token: t.accessToken,
    refresh_token: t.refreshToken ?? null,
    token_type: t.tokenType,
    scope: t.scope ?? null,
    expires_at: t.expiresAt ?? null,
    issuer: t.issuer ?? null,
    client: t.client ?? null,
    remote_subject: t.remoteSubject ?? null,
    connected_at: t.connectedAt,
    refreshed_at: t.refreshedAt ?? null,
  };
}

function tokenOf(r: RemoteTokensTable): StoredRemoteToken {
  return {
    subject: r.subject,
    remote: r.remote,
    accessToken: r.access_token,
    ...(r.refresh_token === null ? {} : { refreshToken: r.refresh_token }),
    tokenType: r.token_type,
    ...(r.scope === null ? {} : { scope: r.scope }),
    ...(r.expires_at === null ? {} : { expiresAt: Number(r.expires_at) }),
    ...(r.issuer === null ? {} : { issuer: r.issuer }),
    ...(r.client === null ? {} : { client: r.client }),
    ...(r.remote_subject === null ? {} : { remoteSubject: r.remote_subject }),
    connectedAt: Number(r.connected_at),
    ...(r.refreshed_at === null ? {} : { refreshedAt: Number(r.refreshed_at) }),
    ...(r.last_used_at === null ? {} : { lastUsedAt: Number(r.last_used_at) }),
    version: Number(r.version),
  };
}
