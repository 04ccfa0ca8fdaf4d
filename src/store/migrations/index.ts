/**
 * Versioned migrations, shipped in code (no files read at runtime) and run by Kysely's Migrator.
 * The same migrations run on SQLite and PostgreSQL; the dialect is passed in for the rare column
 * type that has no common spelling (auto-increment ids).
 */
import { retryingCatalogRace } from './catalog-race.js';
import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { DatabaseSchemaNewerError, type MigrationStatus } from '../store.js';
import type { SqlDialectName } from './sql-dialect.js';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-task-leases.js';
import * as m0003 from './0003-signing-keys.js';
import * as m0004 from './0004-api-keys.js';
import * as m0005 from './0005-oauth.js';
import * as m0006 from './0006-sessions.js';
import * as m0007 from './0007-task-message-ids.js';
import * as m0008 from './0008-usage.js';
import * as m0010 from './0010-quotas.js';
import * as m0009 from './0009-audit.js';
import * as m0011 from './0011-usage-rollup-layout.js';
import * as m0012 from './0012-task-trace-parent.js';
import * as m0013 from './0013-task-live-index.js';
import * as m0014 from './0014-task-counts.js';
import * as m0015 from './0015-session-grants.js';
import * as m0016 from './0016-api-key-owners.js';
import * as m0017 from './0017-task-caller.js';
import * as m0018 from './0018-remote-tokens.js';
import * as m0020 from './0020-usage-cached-tokens.js';
import * as m0021 from './0021-push-outbox-config-head.js';
import * as m0022 from './0022-usage-remote-identity.js';
import * as m0023 from './0023-task-usage-in-task-row.js';
import * as m0024 from './0024-task-running-index.js';
import * as m0025 from './0025-events-row-task-refs.js';
import * as m0026 from './0026-credentials-generation.js';
import * as m0027 from './0027-task-final-events.js';
import * as m0028 from './0028-postgres-task-inserts.js';
import * as m0029 from './0029-postgres-list-index-ascending.js';
import * as m0030 from './0030-postgres-usage-time-brin.js';

export type { SqlDialectName } from './sql-dialect.js';

interface VersionedMigration {
  up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void>;
  down?(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void>;
}

/** Ordered by name; never rename or edit a released migration, add a new one. */
const MIGRATIONS: Record<string, VersionedMigration> = {
  '0001_initial': m0001,
  '0002_task_leases': m0002,
  '0003_signing_keys': m0003,
  '0004_api_keys': m0004,
  '0005_oauth': m0005,
  '0006_sessions': m0006,
  '0007_task_message_ids': m0007,
  '0008_usage': m0008,
  '0010_quotas': m0010,
  '0009_audit': m0009,
  '0011_usage_rollup_layout': m0011,
  '0012_task_trace_parent': m0012,
  '0013_task_live_index': m0013,
  '0014_task_counts': m0014,
  '0015_session_grants': m0015,
  '0016_api_key_owners': m0016,
  '0017_task_caller': m0017,
  '0018_remote_tokens': m0018,
  '0020_usage_cached_tokens': m0020,
  '0021_push_outbox_config_head': m0021,
  '0022_usage_remote_identity': m0022,
  '0023_task_usage_in_task_row': m0023,
  '0024_task_running_index': m0024,
  '0025_events_row_task_refs': m0025,
  '0026_credentials_generation': m0026,
  '0027_task_final_events': m0027,
  '0028_postgres_task_inserts': m0028,
  '0029_postgres_list_index_ascending': m0029,
  '0030_postgres_usage_time_brin': m0030,
};

/** The migrations this build knows, in the order they apply. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS).sort();

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

/** Names recorded in Kysely's bookkeeping table, sorted; none when the table does not exist yet. */
export async function appliedMigrations<DB>(db: Kysely<DB>, dialect: SqlDialectName, schema?: string): Promise<string[]> {
  const exists =
    dialect === 'postgres'
      ? await sql<{ found: string | null }>`select to_regclass(${`${quoteIdent(schema ?? 'public')}.${quoteIdent(DEFAULT_MIGRATION_TABLE)}`})::text as found`.execute(db)
      : await sql<{ found: string | null }>`select name as found from sqlite_master where type = 'table' and name = ${DEFAULT_MIGRATION_TABLE}`.execute(db);
  if (!exists.rows[0]?.found) return [];
  const table = schema && dialect === 'postgres' ? sql.table(`${schema}.${DEFAULT_MIGRATION_TABLE}`) : sql.table(DEFAULT_MIGRATION_TABLE);
  const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
  return rows.map((r) => r.name).sort();
}

export async function migrationStatus<DB>(db: Kysely<DB>, dialect: SqlDialectName, schema?: string): Promise<MigrationStatus> {
  const known = KNOWN_MIGRATIONS;
  const applied = await appliedMigrations(db, dialect, schema);
  const done = new Set(applied);
  const knownSet = new Set(known);
  return {
    known: [...known],
    applied,
    pending: known.filter((n) => !done.has(n)),
    unknown: applied.filter((n) => !knownSet.has(n)),
  };
}

/**
 * Applies every pending migration and returns their names; idempotent. `schema` holds Kysely's
 * bookkeeping tables (PG). A database migrated by a newer build is refused before anything runs:
 * Kysely would only report "corrupted migrations", and an older build must not write to a schema
 * whose meaning it does not know.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, dialect: SqlDialectName, schema?: string): Promise<string[]> {
  const before = await migrationStatus(db, dialect, schema);
  if (before.unknown.length > 0) throw new DatabaseSchemaNewerError(before.unknown);
  // Up to date: nothing to apply, so no Migrator. It would introspect every table of every schema
  // several times and wait for its database-wide lock, seconds on a PostgreSQL shared by many
  // schemas (and behind any other schema's migration), for a start that changes nothing.
  if (before.pending.length === 0) return [];
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrationProvider(dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  // Another schema dropped during the Migrator's catalog walk is retried (catalog-race.ts).
  const { error, results } = await retryingCatalogRace(() => migrator.migrateToLatest(), schema);
  if (error) {
    // A newer replica may have migrated between the check above and the migrator's lock.
    const after = await migrationStatus(db, dialect, schema).catch(() => undefined);
    if (after && after.unknown.length > 0) throw new DatabaseSchemaNewerError(after.unknown);
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`store migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
