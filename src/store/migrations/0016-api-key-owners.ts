/**
 * What a self-made API key stands on (issue 25, K4), so it never outlives what made it:
 *
 * - `owner`: the local user who made the key for themselves (their console sign-in). Every use
 *   reads the user's row in the same statement as the key (a join, no second query): a missing
 *   owner, or one created after the key (the name was deleted and taken again), refuses the key;
 *   the owner's current scopes cap the key's. Deleting the user also revokes the key outright.
 * - `grant_id`: the OAuth grant the key was minted through, for an account without a local user
 *   row (an upstream or token sign-in) or an administrator's token from another client; the key
 *   ends with that grant (revoked, expired or swept), read by the same join.
 *
 * Both nullable: keys made by an operator (`agentport keys create`, an administrator for another
 * subject, the first-start key) stand on nothing but themselves, as before, and old replicas
 * during a rolling upgrade keep writing rows without them.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('owner', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('grant_id', 'text').execute();
  // deleteUser revokes the owner's keys in one statement
  await db.schema.createIndex('api_keys_owner_idx').on('api_keys').column('owner').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_owner_idx').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('grant_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('owner').execute();
}
