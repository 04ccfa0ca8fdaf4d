/**
 * Migrated databases for tests, made once per file and copied per test: running every migration
 * for each of a contract's hundred tests was most of the `unit` project's time (issue 26).
 *
 * - SQLite: the template file is migrated once and written out whole with `VACUUM INTO` (one
 *   file, no WAL beside it); a test gets a byte copy.
 * - PostgreSQL: the template schema is migrated once and dumped with `pg_dump` (schema and rows,
 *   as INSERTs); a test's schema is that dump replayed under its own name in one round trip, or a
 *   copy an earlier test used, emptied and given the template's rows and sequence values again
 *   (`resetInto`): creating a schema's 20 tables and their indexes is ~70 ms of the server's CPU
 *   and ~0.3–0.5 s of waiting on its catalog writes; emptying one ~2 ms and 10 ms.
 *
 * A copy is the migrated database itself, not a re-creation of it: test/store/postgres.test.ts
 * compares a clone's catalog with a schema migrated from scratch.
 */
import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';

const run = promisify(execFile);

/** Copies of one migrated SQLite file, made lazily in `dir`. */
export function sqliteTemplate(dir: string): (file: string) => Promise<void> {
  return sqliteTemplateFile(dir).copy;
}

/** One migrated SQLite file, made lazily in `dir`: `copy(file)` copies it, `file()` is its path. */
export function sqliteTemplateFile(dir: string): { copy: (file: string) => Promise<void>; file: () => Promise<string> } {
  let template: Promise<string> | undefined;
  const build = async (): Promise<string> => {
    const migrated = join(dir, 'template-migrated.db');
    const store = await openSqliteStore({ file: migrated, checkpointThread: false });
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    const file = join(dir, 'template.db');
    const raw = new Sqlite(migrated);
    try {
      raw.prepare('vacuum into ?').run(file);
    } finally {
      raw.close();
    }
    return file;
  };
  const file = () => (template ??= build());
  return {
    file,
    copy: async (to) => {
      copyFileSync(await file(), to);
    },
  };
}

/** A PostgreSQL template schema: `cloneInto(schema)` creates `schema` as a copy of it. */
export interface PostgresTemplate {
  /** the template itself: a schema `migrate()` ran on from scratch, left for the caller to drop */
  readonly schema: string;
  cloneInto(schema: string): Promise<void>;
  /**
   * Makes `schema`, a copy made by `cloneInto` that a test has used since, what `cloneInto` would
   * make again: every row of its tables deleted, then the template's rows and sequence values put
   * back, in one round trip. For a copy whose tables, indexes and types the test left as they were
   * (rows only: what a store and a test's row SQL change), and whose stores are all closed.
   */
  resetInto(schema: string): Promise<void>;
  /** closes the connection clones are made on */
  close(): Promise<void>;
}

/**
 * Migrates `templateSchema` (a name no other text in the dump contains: give it a random part)
 * and keeps its dump. Tests may read the template but must not change it.
 */
export async function postgresTemplate(url: string, templateSchema: string): Promise<PostgresTemplate> {
  const store = await openPostgresStore({ connectionString: url, schema: templateSchema, connectionTimeoutMs: 5000 });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const dump = await dumpSchema(url, templateSchema);
    const qualified = new RegExp(`\\b${templateSchema}\\b`, 'g');
    const reset = resetScript(dump, templateSchema);
    return {
      schema: templateSchema,
      cloneInto: async (schema) => {
        await client.query(dump.replace(qualified, schema));
      },
      resetInto: async (schema) => {
        await client.query(reset.replace(qualified, schema));
      },
      close: () => client.end(),
    };
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
}

/**
 * SQL that empties a copy of the dumped schema and puts the template's rows and sequence values
 * back: a DELETE per table the dump creates (no foreign keys or triggers to order them by: checked
 * here), then the dump's own INSERT and setval lines, in one transaction.
 */
function resetScript(dump: string, schema: string): string {
  if (/\b(FOREIGN KEY|CREATE TRIGGER)\b/.test(dump)) throw new Error(`the template schema ${schema} has foreign keys or triggers: emptying a copy table by table needs an order`);
  const lines = dump.split('\n');
  const tables = lines.flatMap((line) => /^CREATE TABLE (\S+) \($/.exec(line)?.[1] ?? []);
  const rows = lines.filter((line) => line.startsWith('INSERT INTO ') || line.startsWith('SELECT pg_catalog.setval('));
  if (tables.length === 0) throw new Error(`the dump of ${schema} creates no table`);
  return ['begin;', ...tables.map((table) => `delete from ${table};`), ...rows, 'commit;'].join('\n');
}

/** the schema's DDL and rows as plain SQL the simple query protocol runs in one round trip */
async function dumpSchema(url: string, schema: string): Promise<string> {
  const args = ['--dbname', url, '--schema', schema, '--inserts', '--no-owner', '--no-privileges', '--no-comments'];
  let stdout: string;
  try {
    ({ stdout } = await run('pg_dump', args, { maxBuffer: 16 * 1024 * 1024 }));
  } catch (err) {
    throw new Error(`pg_dump of the template schema failed (the PostgreSQL client tools must match the server): ${(err as Error).message}`);
  }
  // Newer pg_dump releases wrap the dump in psql meta-commands (\restrict, \unrestrict): not SQL.
  return stdout
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
}
