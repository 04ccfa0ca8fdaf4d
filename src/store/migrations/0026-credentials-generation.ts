/**
 * The credentials generation (ADR 0052, issue 26): a one-row counter that SQLite triggers raise in
 * the same transaction as every write to a row an API key's standing is read from (the key's own
 * row in api_keys, its owner's in users, its grant's in oauth_records; see api-key-rows.ts). A
 * process that reads the same number as before therefore knows that no connection, of this process
 * or any other (`agentport keys revoke`, `agentport users delete`), has changed any key's standing
 * since, and may use the key records it read then. Triggers, not the store's own writes, so that
 * every writer counts, whichever build or tool it is: a build from before this migration refuses
 * the database, having never heard of it.
 *
 * SQLite only. On PostgreSQL reading the number would cost a round trip, the price of reading the
 * key itself, so the key cache is not used there and the table and triggers would be only a cost on
 * every write to those tables; up and down do nothing on PostgreSQL.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

export const CREDENTIALS_GENERATION_TABLE = 'credentials_generation';

/** Each table a key's standing is read from, with the rows of it that count (SQLite WHEN clause over OLD and NEW). */
const WATCHED: ReadonlyArray<{ table: string; insert?: string; update?: string; delete?: string }> = [
  { table: 'api_keys' },
  { table: 'users' },
  // Only grants: codes, tokens, sessions and interactions come and go on every sign-in and no key stands on them.
  { table: 'oauth_records', insert: `NEW.model = 'Grant'`, update: `OLD.model = 'Grant' OR NEW.model = 'Grant'`, delete: `OLD.model = 'Grant'` },
];
const EVENTS = ['insert', 'update', 'delete'] as const;

const triggerName = (table: string, event: string) => `${table}_${event}_credentials_generation`;

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  // The check pins the table to one row: a second row would leave readers and triggers on different ones.
  await sql.raw(`create table ${CREDENTIALS_GENERATION_TABLE} (id integer primary key check (id = 1), n integer not null)`).execute(db);
  await sql.raw(`insert into ${CREDENTIALS_GENERATION_TABLE} (id, n) values (1, 0)`).execute(db);
  for (const w of WATCHED) {
    for (const event of EVENTS) {
      const when = w[event] === undefined ? '' : ` when ${w[event]}`;
      await sql.raw(`create trigger ${triggerName(w.table, event)} after ${event} on ${w.table}${when} begin update ${CREDENTIALS_GENERATION_TABLE} set n = n + 1; end`).execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  for (const w of WATCHED) {
    for (const event of EVENTS) await sql.raw(`drop trigger if exists ${triggerName(w.table, event)}`).execute(db);
  }
  await sql.raw(`drop table if exists ${CREDENTIALS_GENERATION_TABLE}`).execute(db);
}
