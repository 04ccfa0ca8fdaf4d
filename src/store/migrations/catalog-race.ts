/**
 * Kysely's Migrator finds its own tables by introspecting every table of every schema. In a shared
 * PostgreSQL database a schema (3F000) or a table (42P01) that someone else drops during that
 * catalog walk fails the walk before any migration ran, naming the other schema. Such an error is
 * safe to retry (the Migrator's lock holds); one naming our own schema is not.
 *
 * A column another schema's migration drops or renames mid-walk fails it with 42703, naming only
 * the bare table (`column "dur_le_23" of relation "usage_hourly" does not exist`, seen in a full
 * run). That one cannot be told from ours by its text, so it is retried only when `nothingRan`:
 * the Migrator answered with no migration results, i.e. it failed in its walk, before running any
 * migration of ours (a migration of ours failing the same way leaves a result, and is not retried).
 */
import type { MigrationResultSet } from 'kysely';

export function isOtherSchemaCatalogRace(error: unknown, ownSchema: string | undefined, nothingRan = false): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e?.message !== 'string') return false;
  if (e.code === '42703') return nothingRan;
  if (e.code === 'XX000') return nothingRan && /^cache lookup failed for (namespace|relation|type|attribute) \d+$/.test(e.message);
  if (e.code === '3F000') return !(ownSchema !== undefined && e.message.includes(`"${ownSchema}"`));
  if (e.code === '42P01') {
    // `relation "<schema>.<table>" does not exist`: only a table of another, named schema.
    const named = /relation "([^".]+)\.[^"]+" does not exist/.exec(e.message)?.[1];
    return named !== undefined && named !== ownSchema;
  }
  return false;
}

/** How long a migration keeps retrying another schema's catalog race. */
const CATALOG_RACE_BUDGET_MS = 60_000;

/**
 * Runs a Migrator call (`migrateToLatest`, `migrateTo`) again while it fails on another schema's
 * catalog race. Retried for a time, not a count: on a busy database with tenants coming and going
 * every few ms, the walk (slower the more schemas there are and the busier the machine) was seen
 * to collide ten times in a row; every retry is safe (the Migrator's lock), so it gives up only
 * after a minute of collisions. Any other outcome is returned as it is.
 */
export async function retryingCatalogRace(run: () => Promise<MigrationResultSet>, ownSchema: string | undefined): Promise<MigrationResultSet> {
  let result = await run();
  const giveUpAt = Date.now() + CATALOG_RACE_BUDGET_MS;
  for (let attempt = 1; result.error && Date.now() < giveUpAt && isOtherSchemaCatalogRace(result.error, ownSchema, result.results === undefined); attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 1000)));
    result = await run();
  }
  return result;
}
