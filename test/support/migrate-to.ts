/**
 * Kysely's `Migrator.migrateTo`, for tests that leave a database at an older migration, with the
 * retry the product's own `migrateToLatest` has (src/store/migrations/index.ts), the same way: on
 * PostgreSQL the Migrator introspects every table of every schema, so a schema, table or column
 * another test file drops at that moment fails the catalog walk before anything was applied (see
 * isOtherSchemaCatalogRace; a column only when no migration ran). Retried for a time, not a
 * count, as the product does: a full run's schema churn was seen to outlast ten quick retries.
 * The Migrator's lock makes the retry safe; an error naming our own schema is returned at once.
 */
import type { MigrationResultSet, Migrator } from 'kysely';
import { isOtherSchemaCatalogRace } from '../../src/store/migrations/catalog-race.js';
import { CATALOG_RACE_BUDGET_MS } from '../../src/store/migrations/index.js';

export async function migrateTo(migrator: Migrator, target: string, ownSchema?: string): Promise<MigrationResultSet> {
  let result = await migrator.migrateTo(target);
  const giveUpAt = Date.now() + CATALOG_RACE_BUDGET_MS;
  for (let attempt = 1; result.error && Date.now() < giveUpAt && isOtherSchemaCatalogRace(result.error, ownSchema, result.results === undefined); attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 1000)));
    result = await migrator.migrateTo(target);
  }
  return result;
}
