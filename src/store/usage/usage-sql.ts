/**
 * The SQL of the usage store, built once here for both dialects: the
 * aggregates a UsageGroup needs (over raw rows and usage_hourly as cumulative bucket columns, over
 * usage_daily as histogram texts; see usage-histogram.ts for the two layouts), the turning of
 * cumulative columns into texts, and the rollup statements. Constants (bucket bounds, time units) are inlined as literals: PostgreSQL
 * matches a GROUP BY expression to the select list textually, and two parameters never match.
 */
import { sql, type RawBuilder } from 'kysely';
import { DURATION_BOUNDS_MS, DURATION_COLUMNS, LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from './usage-histogram.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** usage_hourly's (and usage_daily's) dimension columns: 0008's in table order, then 0022's. */
export const ROLLUP_DIMENSIONS = ['kind', 'agent', 'skill', 'tool', 'subject', 'client_id', 'key_id', 'usecase', 'face', 'operation', 'outcome', 'remote_subject', 'remote_issuer'] as const;

/** How a scalar metric column of the rollups merges: added up, or its min / max. */
type Merge = 'sum' | 'min' | 'max';

interface Metric {
  alias: string;
  /** the aggregate over usage_records rows */
  raw: RawBuilder<unknown>;
  merge: Merge;
}

const lit = (n: number) => sql.lit(n);
const sumOf = (col: string) => sql`coalesce(sum(${sql.ref(col)}), 0)`;

/** The scalar metric columns of both rollup tables, with their aggregate over raw rows. */
export const SCALARS: readonly Metric[] = [
  { alias: 'calls', raw: sql`count(*)`, merge: 'sum' },
  { alias: 'errors', raw: sumOf('error'), merge: 'sum' },
  { alias: 'prompt_tokens', raw: sumOf('prompt_tokens'), merge: 'sum' },
  { alias: 'completion_tokens', raw: sumOf('completion_tokens'), merge: 'sum' },
  { alias: 'cached_tokens', raw: sumOf('cached_tokens'), merge: 'sum' },
  { alias: 'cost', raw: sumOf('cost'), merge: 'sum' },
  { alias: 'bytes_in', raw: sumOf('bytes_in'), merge: 'sum' },
  { alias: 'bytes_out', raw: sumOf('bytes_out'), merge: 'sum' },
  { alias: 'lat_count', raw: sql`count(latency_ms)`, merge: 'sum' },
  { alias: 'lat_min', raw: sql`min(latency_ms)`, merge: 'min' },
  { alias: 'lat_max', raw: sql`max(latency_ms)`, merge: 'max' },
  { alias: 'dur_count', raw: sql`count(duration_ms)`, merge: 'sum' },
  { alias: 'dur_sum', raw: sumOf('duration_ms'), merge: 'sum' },
  { alias: 'dur_min', raw: sql`min(duration_ms)`, merge: 'min' },
  { alias: 'dur_max', raw: sql`max(duration_ms)`, merge: 'max' },
];

/** A histogram: the raw column it counts, its bounds, its cumulative columns (hourly) and its text column (daily, queries). */
interface HistogramSpec {
  source: 'latency_ms' | 'duration_ms';
  bounds: readonly number[];
  columns: readonly string[];
  text: 'lat_hist' | 'dur_hist';
}

export const HISTOGRAMS: readonly HistogramSpec[] = [
  { source: 'latency_ms', bounds: LATENCY_BOUNDS_MS, columns: LATENCY_COLUMNS, text: 'lat_hist' },
  { source: 'duration_ms', bounds: DURATION_BOUNDS_MS, columns: DURATION_COLUMNS, text: 'dur_hist' },
];

const CUMULATIVE_COLUMNS: readonly string[] = HISTOGRAMS.flatMap((h) => h.columns);

function mergedScalars(): RawBuilder<unknown>[] {
  return SCALARS.map((m) => {
    const col = sql.ref(m.alias);
    const agg = m.merge === 'sum' ? sql`coalesce(sum(${col}), 0)` : m.merge === 'min' ? sql`min(${col})` : sql`max(${col})`;
    return sql`${agg} as ${sql.id(m.alias)}`;
  });
}

/** The metrics aggregated over usage_records rows: scalars and cumulative bucket counts (values <= each bound). */
export function rawAggregates(): RawBuilder<unknown> {
  return sql.join([
    ...SCALARS.map((m) => sql`${m.raw} as ${sql.id(m.alias)}`),
    ...HISTOGRAMS.flatMap((h) => h.bounds.map((b, i) => sql`count(case when ${sql.ref(h.source)} <= ${lit(b)} then 1 end) as ${sql.id(h.columns[i]!)}`)),
  ]);
}

/** The metrics aggregated over usage_hourly rows (same aliases as rawAggregates). */
export function hourlyAggregates(): RawBuilder<unknown> {
  return sql.join([...mergedScalars(), ...CUMULATIVE_COLUMNS.map((c) => sql`coalesce(sum(${sql.ref(c)}), 0) as ${sql.id(c)}`)]);
}

/** The metrics aggregated over usage_daily rows: scalars, and each histogram's texts joined (see HistogramText). */
export function dailyAggregates(): RawBuilder<unknown> {
  return sql.join([...mergedScalars(), ...HISTOGRAMS.map((h) => sql`string_agg(${sql.ref(h.text)}, ',') as ${sql.id(h.text)}`)]);
}

/**
 * The HistogramText of cumulative bucket columns (of the row or subquery in scope): each
 * non-empty bucket's own count, the difference of two cumulative counts, as `,index:count`, then
 * the leading comma cut off; null when every bucket is empty. Plain SQL on both dialects.
 */
export function histogramTextSql(columns: readonly string[]): RawBuilder<string | null> {
  const pieces = columns.map((c, i) => {
    const own = i === 0 ? sql`${sql.ref(c)}` : sql`(${sql.ref(c)} - ${sql.ref(columns[i - 1]!)})`;
    return sql`case when ${own} > 0 then ${sql.lit(`,${i}:`)} || cast(${own} as text) else '' end`;
  });
  return sql<string | null>`nullif(substr(${sql.join(pieces, sql` || `)}, 2), '')`;
}

/**
 * A select producing cumulative bucket columns, turned into one producing the histogram texts
 * instead: `passthrough` (the select's other aliases) kept as they are.
 */
export function withHistogramTexts(inner: RawBuilder<unknown>, passthrough: readonly string[]): RawBuilder<Record<string, unknown>> {
  const texts = HISTOGRAMS.map((h) => sql`${histogramTextSql(h.columns)} as ${sql.id(h.text)}`);
  return sql`select ${sql.join([...passthrough.map((c) => sql.ref(c)), ...texts])} from (${inner}) as cumulative`;
}

/** `col - col % unit`: the start of the UTC hour or day (epoch ms are UTC, days have 86,400,000 ms). */
export function truncated(col: string, unit: number): RawBuilder<number> {
  return sql<number>`(${sql.ref(col)} - ${sql.ref(col)} % ${lit(unit)})`;
}

/**
 * A rollup level: usage_hourly aggregates final raw records per hour; usage_daily aggregates
 * usage_hourly per UTC day, so a month's query reads ~30 rows per combination instead of ~720.
 */
export interface RollupLevel {
  /** its watermark's id in usage_rollup_state */
  name: 'hourly' | 'daily';
  table: 'usage_hourly' | 'usage_daily';
  /** the table's time column */
  timeColumn: 'hour' | 'day';
  unit: number;
  /** units rolled up per transaction, so a backlog never holds the write lock for long */
  unitsPerStep: number;
}

export const HOURLY: RollupLevel = { name: 'hourly', table: 'usage_hourly', timeColumn: 'hour', unit: HOUR_MS, unitsPerStep: 24 };
export const DAILY: RollupLevel = { name: 'daily', table: 'usage_daily', timeColumn: 'day', unit: DAY_MS, unitsPerStep: 31 };

/** What a level aggregates: final raw records, calls and tasks alike (hourly), or hourly rows (daily). */
function sourceOf(level: RollupLevel) {
  return level.name === 'hourly' ? { table: sql.table('usage_records_all'), time: 'time', where: sql`"final" = 1 and ` } : { table: sql.table('usage_hourly'), time: 'hour', where: sql`` };
}

/**
 * Rolls up what is dated in [start, end) (whole units of the level) into the level's table,
 * replacing whatever it held for those units, so running it twice changes nothing; then moves the
 * level's watermark to `end`. Hourly rows keep cumulative bucket columns (the daily rollup sums
 * them); daily rows get the histograms as text.
 */
export function rollupStatements(level: RollupLevel, start: number, end: number): RawBuilder<unknown>[] {
  const src = sourceOf(level);
  const dims = sql.join(ROLLUP_DIMENSIONS.map((d) => sql.ref(d)));
  const bucket = truncated(src.time, level.unit);
  const time = sql.ref(src.time);
  const scalars = SCALARS.map((m) => m.alias);
  const grouped = (aggregates: RawBuilder<unknown>) => sql`select ${bucket} as ${sql.id(level.timeColumn)}, ${dims}, ${aggregates}
          from ${src.table}
         where ${src.where}${time} >= ${start} and ${time} < ${end}
         group by ${bucket}, ${dims}`;
  const insert =
    level.name === 'hourly'
      ? sql`insert into usage_hourly (${sql.join([sql.id('hour'), ...ROLLUP_DIMENSIONS.map((d) => sql.id(d)), ...[...scalars, ...CUMULATIVE_COLUMNS].map((c) => sql.id(c))])})
        ${grouped(rawAggregates())}`
      : sql`insert into usage_daily (${sql.join([sql.id('day'), ...ROLLUP_DIMENSIONS.map((d) => sql.id(d)), ...[...scalars, ...HISTOGRAMS.map((h) => h.text)].map((c) => sql.id(c))])})
        ${withHistogramTexts(grouped(hourlyAggregates()), ['day', ...ROLLUP_DIMENSIONS, ...scalars])}`;
  return [
    sql`delete from ${sql.table(level.table)} where ${sql.ref(level.timeColumn)} >= ${start} and ${sql.ref(level.timeColumn)} < ${end}`,
    insert,
    sql`update usage_rollup_state set rolled_until = ${end} where id = ${level.name}`,
  ];
}

/** The level's watermark. */
export function rolledUntilOf(level: RollupLevel) {
  return sql<{ rolled_until: number | string }>`select rolled_until from usage_rollup_state where id = ${level.name}`;
}

/** The earliest source time in [from, to): where the next rollup step of the level starts. */
export function firstSourceTime(level: RollupLevel, from: number, to: number) {
  if (level.name === 'hourly') {
    // The view's two halves apart: each min() is one step down its time index, where the min()
    // over the view would read every record of the range first (migration 0023).
    return sql<{ first: number | string | null }>`select min(first) as first from (
      select min(time) as first from usage_records where "final" = 1 and time >= ${from} and time < ${to}
      union all
      select min(usage_time) from tasks where usage_final = 1 and usage_time >= ${from} and usage_time < ${to}) as sources`;
  }
  const src = sourceOf(level);
  const time = sql.ref(src.time);
  return sql<{ first: number | string | null }>`select min(${time}) as first from ${src.table} where ${src.where}${time} >= ${from} and ${time} < ${to}`;
}
