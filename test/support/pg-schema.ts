/** A fresh PostgreSQL schema for a migration test. */
import { randomBytes } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';

/**
 * Runs `fn` on a fresh PostgreSQL schema of its own (a one-connection pool whose search_path is
 * that schema, and a migrator keeping its table there), then drops the schema.
 */
export async function withPgSchema(tag: string, fn: (db: Kysely<unknown>, schema: string, migrator: Migrator) => Promise<void>): Promise<void> {
  const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `t_${randomBytes(5).toString('hex')}_${tag}`;
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` }) }) });
  try {
    await fn(db, schema, new Migrator({ db, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }));
  } finally {
    await sql.raw(`drop schema if exists "${schema}" cascade`).execute(db);
    await db.destroy();
  }
}
