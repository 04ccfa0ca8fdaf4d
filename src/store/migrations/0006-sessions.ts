/**
 * Server-side sign-in sessions (the `/mcp/config/` admin page now, the console later) and the
 * account behind each OAuth record.
 *
 * `sessions` holds one row per signed-in browser, keyed by the SHA-256 of the cookie value (a copy
 * of the table signs nobody in). Every replica reads it, so ending a session on one ends it
 * everywhere. `oauth_records.account_id` lets deleting a user revoke that user's grants, refresh
 * tokens, codes and provider sessions in one statement; existing rows are filled in from the
 * payload. Clients created by an administrator before this migration are marked as such, since
 * the scope ceiling (src/auth/oauth/client-scope-ceiling.ts) caps every unmarked client.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

/** The marker the scope ceiling reads; see src/auth/oauth/client-scope-ceiling.ts. */
const ADMIN_CLIENT_MARKER = 'agentport_registered_by';

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_username_idx').on('sessions').column('username').execute();
  await db.schema.createIndex('sessions_expiry_idx').on('sessions').column('expires_at').execute();

  await db.schema.alterTable('oauth_records').addColumn('account_id', 'text').execute();
  await db.schema.createIndex('oauth_records_account_idx').on('oauth_records').column('account_id').execute();
  const accountOfPayload = dialect === 'postgres' ? sql`(payload::json ->> 'accountId')` : sql`json_extract(payload, '$.accountId')`;
  await sql`update oauth_records set account_id = ${accountOfPayload} where account_id is null`.execute(db);

  // Administrator-created clients have ids `ap-…` (src/auth/oauth/client-registry.ts).
  const { rows } = await sql<{ id: string; payload: string }>`select id, payload from oauth_records where model = 'Client' and id like 'ap-%'`.execute(db);
  for (const r of rows) {
    const payload = JSON.parse(r.payload) as Record<string, unknown>;
    payload[ADMIN_CLIENT_MARKER] = 'administrator';
    await sql`update oauth_records set payload = ${JSON.stringify(payload)} where model = 'Client' and id = ${r.id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_records_account_idx').ifExists().execute();
  await db.schema.alterTable('oauth_records').dropColumn('account_id').execute();
  await db.schema.dropTable('sessions').ifExists().execute();
}
