/**
 * Issue 27 (agents act as their caller): whom a call acted as at a remote. `remote_subject` is
 * the user's subject at the remote (from the token its authorization server issued, `auth: oauth`)
 * or the caller's subject Agentport signed for it (`signed-identity`); `remote_issuer` is who
 * vouches for it. Names only, never a token. On the raw records and both rollups, as dimensions
 * (`remoteSubject`, `remoteIssuer`); rows from before have neither.
 */
import type { Kysely } from 'kysely';

const TABLES = ['usage_records', 'usage_hourly', 'usage_daily'] as const;
const COLUMNS = ['remote_subject', 'remote_issuer'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) for (const c of COLUMNS) await db.schema.alterTable(t).addColumn(c, 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) for (const c of COLUMNS) await db.schema.alterTable(t).dropColumn(c).execute();
}
