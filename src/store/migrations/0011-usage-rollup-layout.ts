/**
 * usage_daily in a compact layout (issue 13, analytics query target): the scalar metrics as in
 * 0008, but each histogram as one text column (`lat_hist`, `dur_hist`: the non-empty buckets'
 * own counts, `index:count` joined by commas, null without values; see HistogramText in
 * src/store/usage/usage-histogram.ts) instead of 24 cumulative bucket columns each. A month's
 * query reads ~30 daily rows per group, and summing 62 columns over them was most of its time;
 * joining two texts per row (string_agg) and adding them up in the store is about a third of it.
 * The buckets are the same, so are the percentiles and their error bound.
 *
 * usage_hourly keeps 0008's layout: the daily rollup sums its cumulative columns in SQL, which
 * texts would not allow.
 *
 * Rollups are derived data, so the old daily rows are dropped, not converted: the daily
 * watermark goes back to 0 and the next rollup rebuilds usage_daily from usage_hourly (its
 * watermark and rows stay). Until then queries read those days from usage_hourly, with the same
 * answer.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialectName } from './sql-dialect.js';

/** usage_daily's dimension columns, as in 0008 (UsageDimension client → client_id, key → key_id). */
const DIMENSIONS = ['kind', 'agent', 'skill', 'tool', 'subject', 'client_id', 'key_id', 'usecase', 'face', 'operation', 'outcome'] as const;
const NOT_NULL_DIMENSIONS = new Set(['kind', 'face', 'operation', 'outcome']);

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  const real = dialect === 'postgres' ? ('double precision' as const) : ('real' as const);
  await db.schema.dropTable('usage_daily').execute();
  let t = db.schema.createTable('usage_daily').addColumn('day', 'bigint', (c) => c.notNull());
  for (const d of DIMENSIONS) t = t.addColumn(d, 'text', (c) => (NOT_NULL_DIMENSIONS.has(d) ? c.notNull() : c));
  await t
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost', 'numeric', (c) => c.notNull())
    .addColumn('bytes_in', 'bigint', (c) => c.notNull())
    .addColumn('bytes_out', 'bigint', (c) => c.notNull())
    .addColumn('lat_count', 'bigint', (c) => c.notNull())
    .addColumn('lat_min', real)
    .addColumn('lat_max', real)
    .addColumn('lat_hist', 'text')
    .addColumn('dur_count', 'bigint', (c) => c.notNull())
    .addColumn('dur_sum', real, (c) => c.notNull())
    .addColumn('dur_min', real)
    .addColumn('dur_max', real)
    .addColumn('dur_hist', 'text')
    .execute();
  await db.schema.createIndex('usage_daily_day_idx').on('usage_daily').column('day').execute();
  await sql`update usage_rollup_state set rolled_until = 0 where id = 'daily'`.execute(db);
}
