/**
 * Issue 27, the token vault (ADR 0035): tokens Agentport holds for a user at a remote
 * (`agents[].mcp` / `agents[].remote` with `auth: oauth`), one row per (subject, remote). Access
 * and refresh tokens are stored sealed (AES-256-GCM, src/core/vault/token-cipher.ts), never in
 * clear. `version` is bumped on every write; `refresh_until` is the lease of the one replica
 * refreshing the row, taken by a conditional update (the same statement on SQLite and PostgreSQL).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('remote_tokens')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('remote', 'text', (c) => c.notNull())
    .addColumn('access_token', 'text', (c) => c.notNull())
    .addColumn('refresh_token', 'text')
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('issuer', 'text')
    // the OAuth client the tokens were issued to (a registered one differs per replica), sealed
    .addColumn('client', 'text')
    .addColumn('remote_subject', 'text')
    .addColumn('connected_at', 'bigint', (c) => c.notNull())
    .addColumn('refreshed_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('refresh_until', 'bigint')
    .addPrimaryKeyConstraint('remote_tokens_pk', ['subject', 'remote'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('remote_tokens').ifExists().execute();
}
