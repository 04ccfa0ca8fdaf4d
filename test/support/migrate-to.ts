/**
 * Kysely's `Migrator.migrateTo`, for tests that leave a database at an older migration, with the
 * retry the product's own `migrateToLatest` has (retryingCatalogRace): on PostgreSQL the Migrator
 * introspects every table of every schema, so a schema, table or column another test file drops at
 * that moment fails the catalog walk before anything was applied. An error naming our own schema
 * is returned at once.
 */
import type { MigrationResultSet, Migrator } from 'kysely';
import { retryingCatalogRace } from '../../src/store/migrations/catalog-race.js';

export function migrateTo(migrator: Migrator, target: string, ownSchema?: string): Promise<MigrationResultSet> {
  return retryingCatalogRace(() => migrator.migrateTo(target), ownSchema);
}
