/**
 * A migration test's round trip on each dialect: a Kysely handle and a Migrator on a fresh SQLite
 * file or PostgreSQL schema, and how to open the store there, handed to the test's own steps.
 * The schema is dropped afterwards; the SQLite file goes with the test's directory.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/store.js';

export const TEST_PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The test's steps: `schema` is set on PostgreSQL only. */
export type RoundTripSteps = (open: () => Promise<Store>, db: Kysely<unknown>, migrator: Migrator, schema?: string) => Promise<void>;

export async function roundTripOnSqlite(dir: string, steps: RoundTripSteps): Promise<void> {
  const file = join(dir, 'store.db');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
  try {
    await steps(() => openSqliteStore({ file }), db, new Migrator({ db, provider: new InCodeMigrationProvider('sqlite') }));
  } finally {
    await db.destroy();
  }
}

/** `tag` ends the fresh schema's name (which migration the test is about). */
export async function roundTripOnPostgres(tag: string, steps: RoundTripSteps): Promise<void> {
  const schema = `t_${randomBytes(5).toString('hex')}_${tag}`;
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: TEST_PG_URL, max: 1, options: `-c search_path=${schema}` }) }) });
  try {
    await steps(() => openPostgresStore({ connectionString: TEST_PG_URL, schema }), db, new Migrator({ db, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }), schema);
  } finally {
    await sql.raw(`drop schema if exists "${schema}" cascade`).execute(db);
    await db.destroy();
  }
}
