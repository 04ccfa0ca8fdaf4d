/**
 * The OAuth 2.1 authorization server's state (src/auth/oauth): one table of oidc-provider records
 * (grants, authorization codes, refresh tokens, registered clients, interactions, sessions, …)
 * keyed by model and id, so codes and refresh tokens survive restarts and any replica can redeem
 * what another issued; and the local users who sign in on the login page.
 *
 * Records keep the library's JSON payload as is (the library owns its shape); the columns beside
 * it are the lookups the library asks for (by grant, by interaction uid) and the sweep by expiry.
 * A revoked record is kept with `revoked_at` set until it expires, so the resource server can tell
 * "revoked" from "issued by the CLI, never stored".
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_records_grant_idx').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid_idx').on('oauth_records').column('uid').execute();
  await db.schema.createIndex('oauth_records_expiry_idx').on('oauth_records').column('expires_at').execute();

  await db.schema
    .createTable('users')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('users').ifExists().execute();
  await db.schema.dropTable('oauth_records').ifExists().execute();
}
