/**
 * Kysely's `Migrator.migrateTo`, for tests that leave a database at an older migration, with the
 * retry the product's own `migrateToLatest` has (src/store/migrations/index.ts): on PostgreSQL the
 * Migrator introspects every table of every schema, so a schema another test file drops at that
 * moment fails the catalog query (see isOtherSchemaCatalogRace) before anything was applied.
 * The Migrator's lock makes the retry safe; an error naming our own schema is returned at once.
 */
import type { MigrationResultSet, Migrator } from 'kysely';
import { isOtherSchemaCatalogRace } from '../../src/store/migrations/catalog-race.js';

export async function migrateTo(migrator: Migrator, target: string, ownSchema?: string): Promise<MigrationResultSet> {
  let result = await migrator.migrateTo(target);
  for (let attempt = 1; result.error && attempt < 10 && isOtherSchemaCatalogRace(result.error, ownSchema); attempt++) {
    await new Promise((r) => setTimeout(r, 50 * attempt));
    result = await migrator.migrateTo(target);
  }
  return result;
}
