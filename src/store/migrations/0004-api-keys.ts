/**
 * API keys created by `agentport keys create` (and later the management API). Only a SHA-256
 * hash of the secret part is stored; the key id (the public part of the key) is the lookup.
 * Scopes are a JSON array; times are epoch ms; a key is never deleted, only revoked, so the
 * table also answers "who had which key when".
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('usecase', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').ifExists().execute();
}
