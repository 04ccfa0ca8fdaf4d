/**
 * A PostgreSQL migration's index side, for the migration tests that rebuild indexes on `tasks`:
 * the definitions read at the migration before, at the migration itself and back down again.
 */
import { type Kysely, type Migrator, sql } from 'kysely';
import { expect } from 'vitest';
import { migrateTo } from './migrate-to.js';

/** Index name → definition, of `tasks` in `schema`. */
export async function pgTaskIndexes(db: Kysely<unknown>, schema: string): Promise<Record<string, string>> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = 'tasks'`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
}

export interface TaskIndexesAcross {
  /** At the migration before the one under test. */
  before: Record<string, string>;
  /** At the migration under test. */
  after: Record<string, string>;
}

/**
 * Migrates `schema` to `before`, up to `after` and down to `before` again, reading the indexes of
 * `tasks` at each; down must give back exactly what `before` had. `whileUp` runs at `after`, for
 * what the migration made besides indexes.
 */
export async function pgTaskIndexesAcross(db: Kysely<unknown>, schema: string, migrator: Migrator, migrations: { before: string; after: string }, whileUp?: () => Promise<void>): Promise<TaskIndexesAcross> {
  expect((await migrateTo(migrator, migrations.before, schema)).error).toBeUndefined();
  const before = await pgTaskIndexes(db, schema);
  expect((await migrateTo(migrator, migrations.after, schema)).error).toBeUndefined();
  const after = await pgTaskIndexes(db, schema);
  await whileUp?.();
  expect((await migrateTo(migrator, migrations.before, schema)).error).toBeUndefined();
  expect(await pgTaskIndexes(db, schema)).toEqual(before);
  return { before, after };
}

/** Every index of `tasks` but the `changed` ones (added, removed or rebuilt) is the same before and after. */
export function expectOtherTaskIndexesUnchanged(across: TaskIndexesAcross, changed: readonly string[]): void {
  const others = (indexes: Record<string, string>) => Object.fromEntries(Object.entries(indexes).filter(([name]) => !changed.includes(name)));
  expect(others(across.after)).toEqual(others(across.before));
}
