/** The api_keys table's rows and the one statement that reads a key with its owner's and grant's standing (issue 25 K4). */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StoredApiKey } from './store.js';

export interface ApiKeysTable {
  key_id: string;
  secret_hash: string;
  subject: string;
  /** JSON array of strings */
  scopes: string;
  usecase: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** migration 0016 */
  owner: string | null;
  grant_id: string | null;
}

/** A key's row with what it stands on, read by apiKeyRows() in the same statement. */
export interface ApiKeyStandingRow extends ApiKeysTable {
  owner_scopes: string | null;
  owner_created_at: number | null;
  grant_row: string | null;
  grant_revoked_at: number | null;
  grant_expires_at: number | null;
}

/**
 * Keys with their owner's row and their grant's (migration 0016) in one statement: the check on
 * every use costs a join on two primary keys, not a second query.
 */
export function apiKeyRows(db: Kysely<Database>) {
  return (
    db
      .withTables<{ api_keys: ApiKeysTable }>()
      .selectFrom('api_keys as k')
      .leftJoin('users as u', 'u.username', 'k.owner')
      // a literal, not a parameter: SQLite's compiled statement binds the key id alone
      .leftJoin('oauth_records as g', (j) => j.onRef('g.id', '=', 'k.grant_id').on('g.model', '=', sql.lit('Grant')))
      .selectAll('k')
      .select(['u.scopes as owner_scopes', 'u.created_at as owner_created_at', 'g.id as grant_row', 'g.revoked_at as grant_revoked_at', 'g.expires_at as grant_expires_at'])
  );
}

export function toStoredApiKey(row: ApiKeyStandingRow): StoredApiKey {
  const scopes: unknown = JSON.parse(row.scopes);
  const ownerScopes: unknown = row.owner_scopes === null ? undefined : JSON.parse(row.owner_scopes);
  const standing: NonNullable<StoredApiKey['standing']> = {
    ...(row.owner_created_at === null ? {} : { ownerNow: { scopes: Array.isArray(ownerScopes) ? ownerScopes.filter((s): s is string => typeof s === 'string') : [], createdAt: Number(row.owner_created_at) } }),
    ...(row.grant_row === null
      ? {}
      : { grant: { ...(row.grant_revoked_at === null ? {} : { revokedAt: Number(row.grant_revoked_at) }), ...(row.grant_expires_at === null ? {} : { expiresAt: Number(row.grant_expires_at) }) } }),
  };
  return {
    keyId: row.key_id,
    secretHash: row.secret_hash,
    subject: row.subject,
    scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [],
    ...(row.usecase === null ? {} : { usecase: row.usecase }),
    createdAt: Number(row.created_at),
    ...(row.expires_at === null ? {} : { expiresAt: Number(row.expires_at) }),
    ...(row.revoked_at === null ? {} : { revokedAt: Number(row.revoked_at) }),
    ...(row.owner === null ? {} : { owner: row.owner }),
    ...(row.grant_id === null ? {} : { grantId: row.grant_id }),
    ...(row.owner === null && row.grant_id === null ? {} : { standing }),
  };
}
