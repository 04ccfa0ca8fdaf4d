/**
 * Console sessions for every account that can sign in, not only local users (issue 16): a person
 * who signs in at the upstream OpenID Provider or with a token has no row in `users` to read
 * scopes from, so the session keeps what the console's OAuth grant gave.
 *
 * - `grant_id`: the consent grant the console's access token was issued under; the session lives
 *   only while that grant does (revoked by the user's deletion, a scope change, an administrator,
 *   refresh-token replay, or expired);
 * - `scopes`: a JSON array, the scopes the grant gave at sign-in, for an account without a local
 *   user row (null: a local user, whose row is read at every request, as before);
 * - `usecase`: the usecase a token sign-in is bound to (its tokens' `usecase` claim).
 *
 * `username` keeps its name and holds the account id (the subject): a local username, or
 * `<issuer>#<subject>`. Renaming it would break replicas still running the previous build during
 * a rolling upgrade; every column added here is nullable for the same reason (old rows and old
 * replicas' rows are local users' sessions, which need none of them).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('grant_id', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('scopes', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('usecase', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('usecase').execute();
  await db.schema.alterTable('sessions').dropColumn('scopes').execute();
  await db.schema.alterTable('sessions').dropColumn('grant_id').execute();
}
