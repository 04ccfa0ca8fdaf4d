/**
 * Versioned migrations, shipped in code (no files read at runtime) and run by Kysely's Migrator.
 * The same migrations run on SQLite and PostgreSQL; the dialect is passed in for the rare column
 * type that has no common spelling (auto-increment ids).
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as m0001 from './0001-initial.js';

export type SqlDialectName = 'sqlite' | 'postgres';

interface VersionedMigration {
  up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void>;
  down?(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void>;
}

/** Ordered by name; never rename or edit a released migration, add a new one. */
const MIGRATIONS: Record<string, VersionedMigration> = {
  '0001_initial': m0001,
};

export class InCodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: SqlDialectName) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      const down = m.down;
      out[name] = {
        up: (db) => m.up(db, this.dialect),
        ...(down ? { down: (db: Kysely<unknown>) => down(db, this.dialect) } : {}),
      };
    }
    return out;
  }
}

/** Applies every pending migration; idempotent. `schema` holds Kysely's bookkeeping tables (PG). */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectName, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrationProvider(dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`store migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
