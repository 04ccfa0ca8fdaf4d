/**
 * A PostgreSQL-only migration's SQLite side: migrated up to it and back down, SQLite's indexes on
 * `tasks` stay exactly as they were before it.
 */
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { expect } from 'vitest';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';

/** Each index on `tasks` by name, with its SQL. */
export function sqliteTaskIndexes(file: string): Record<string, string | null> {
  const raw = new Sqlite(file, { readonly: true });
  try {
    const rows = raw.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'tasks' order by name").all() as { name: string; sql: string | null }[];
    return Object.fromEntries(rows.map((r) => [r.name, r.sql]));
  } finally {
    raw.close();
  }
}

/** `before` and `after` name migrations; `present` is an index that must exist before (the file holds what the test looks at). */
export async function expectSqliteTaskIndexesUnchanged(dir: string, before: string, after: string, present: string): Promise<void> {
  const file = join(dir, 'store.db');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
  try {
    const migrator = new Migrator({ db, provider: new InCodeMigrationProvider('sqlite') });
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    const indexes = sqliteTaskIndexes(file);
    expect(Object.keys(indexes)).toContain(present);
    expect((await migrator.migrateTo(after)).error).toBeUndefined();
    expect(sqliteTaskIndexes(file)).toEqual(indexes);
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    expect(sqliteTaskIndexes(file)).toEqual(indexes);
  } finally {
    await db.destroy();
  }
}
