/**
 * Usage records (issue 13): one raw row per call or task, an hourly rollup so a month's query
 * does not scan raw rows, and the rollup's watermark.
 *
 * `usage_records` has one column per UsageRecord field. Booleans (`final`, `error`) are integers
 * 0/1 on both dialects, so SUM(error) counts errors alike everywhere. Tokens are bigint; cost is
 * numeric (exact sums on PostgreSQL; cost units may be fractional).
 *
 * `usage_hourly` holds, per hour and per combination of the grouping dimensions, the sums a
 * UsageGroup needs and the latency and duration histograms as cumulative bucket columns (bounds
 * in src/store/usage/usage-histogram.ts). Its dimension columns may be null (an absent value),
 * so it has no primary key: a rollup replaces whole hours in one transaction, which yields one row
 * per combination by construction.
 *
 * `usage_daily` is the same per UTC day, aggregated from usage_hourly: with a month of calls
 * spread over many subjects and agents, an hour holds about as many combinations as records, so
 * only the daily level makes a month's query short.
 *
 * `usage_rollup_state` holds one watermark per level ('hourly', 'daily'): everything dated before
 * `rolled_until` is in that level's table (0: nothing rolled up yet).
 */
import { sql, type Kysely } from 'kysely';
import { DURATION_COLUMNS, LATENCY_COLUMNS } from '../usage/usage-histogram.js';
import type { SqlDialectName } from './sql-dialect.js';

/** The grouping dimensions, in the rollup's column order (UsageDimension client → client_id, key → key_id). */
const DIMENSIONS = ['kind', 'agent', 'skill', 'tool', 'subject', 'client_id', 'key_id', 'usecase', 'face', 'operation', 'outcome'] as const;
const NOT_NULL_DIMENSIONS = new Set(['kind', 'face', 'operation', 'outcome']);

export async function up(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  const real = dialect === 'postgres' ? ('double precision' as const) : ('real' as const);
  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('final', 'integer', (c) => c.notNull())
    .addColumn('replica', 'text', (c) => c.notNull())
    .addColumn('face', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('agent', 'text')
    .addColumn('skill', 'text')
    .addColumn('tool', 'text')
    .addColumn('task_id', 'text')
    .addColumn('context_id', 'text')
    .addColumn('subject', 'text')
    .addColumn('client_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('usecase', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error', 'integer', (c) => c.notNull())
    .addColumn('ttfb_ms', real)
    .addColumn('latency_ms', real)
    .addColumn('duration_ms', real)
    .addColumn('bytes_in', 'bigint')
    .addColumn('bytes_out', 'bigint')
    .addColumn('model', 'text')
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost', 'numeric', (c) => c.notNull())
    .execute();
  // Queries, rollups and retention all select by time.
  await db.schema.createIndex('usage_records_time_idx').on('usage_records').column('time').execute();

  await createRollupTable(db, real, 'usage_hourly', 'hour');
  await createRollupTable(db, real, 'usage_daily', 'day');

  await db.schema
    .createTable('usage_rollup_state')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rolled_until', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into usage_rollup_state (id, rolled_until) values ('hourly', 0), ('daily', 0)`.execute(db);
}

async function createRollupTable(db: Kysely<unknown>, real: 'double precision' | 'real', table: string, timeColumn: string): Promise<void> {
  let t = db.schema.createTable(table).addColumn(timeColumn, 'bigint', (c) => c.notNull());
  for (const d of DIMENSIONS) t = t.addColumn(d, 'text', (c) => (NOT_NULL_DIMENSIONS.has(d) ? c.notNull() : c));
  t = t
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost', 'numeric', (c) => c.notNull())
    .addColumn('bytes_in', 'bigint', (c) => c.notNull())
    .addColumn('bytes_out', 'bigint', (c) => c.notNull())
    .addColumn('lat_count', 'bigint', (c) => c.notNull())
    .addColumn('lat_min', real)
    .addColumn('lat_max', real);
  for (const col of LATENCY_COLUMNS) t = t.addColumn(col, 'bigint', (c) => c.notNull());
  t = t
    .addColumn('dur_count', 'bigint', (c) => c.notNull())
    .addColumn('dur_sum', real, (c) => c.notNull())
    .addColumn('dur_min', real)
    .addColumn('dur_max', real);
  for (const col of DURATION_COLUMNS) t = t.addColumn(col, 'bigint', (c) => c.notNull());
  await t.execute();
  await db.schema.createIndex(`${table}_${timeColumn}_idx`).on(table).column(timeColumn).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['usage_rollup_state', 'usage_daily', 'usage_hourly', 'usage_records']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
