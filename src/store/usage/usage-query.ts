/**
 * A UsageQuery as SQL over two sources, and the merge of their groups.
 *
 * Days that lie wholly inside [from, to) and before the daily watermark are read from usage_daily,
 * hours likewise from usage_hourly; the rest of the range (the partial hours at the edges and
 * everything not yet rolled up) from the final raw rows (the usage_records_all view: call records
 * and the task records kept in task rows, migration 0023). The two time ranges are disjoint, so nothing is counted
 * twice; each source is grouped in SQL and the groups are merged here. Every source answers in
 * one shape: the scalar metrics and each histogram as HistogramText (usage_daily's texts joined by
 * string_agg; usage_hourly's and raw rows' cumulative counts turned into text in SQL), so the
 * merge here only adds texts up. Month buckets are grouped by day in SQL and folded into calendar
 * months here (no dialect-specific date functions).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { USAGE_DIMENSIONS, type UsageDimension, type UsageGroup, type UsageQuery } from '../usage-record.js';
import { addHistogramText, cumulativeOf, DURATION_BOUNDS_MS, LATENCY_BOUNDS_MS, percentilesOf, type Histogram, type HistogramText } from './usage-histogram.js';
import { DIMENSION_COLUMN } from './usage-rows.js';
import { dailyAggregates, DAY_MS, HISTOGRAMS, HOUR_MS, hourlyAggregates, rawAggregates, SCALARS, truncated, withHistogramTexts } from './usage-sql.js';

export const DEFAULT_LIMIT = 1000;

type Row = Record<string, unknown>;

interface Range {
  from: number;
  to: number;
}

/** The time ranges each source answers for; the ranges of all sources are disjoint and cover [from, to). */
export interface QueryPlan {
  daily: Range | undefined;
  hourly: Range[];
  raw: Range[];
}

/** The whole units of `unit` inside [from, to) and before `rolledUntil`, and what is left on either side. */
function split(r: Range, unit: number, rolledUntil: number): { inside: Range | undefined; rest: Range[] } {
  const first = Math.ceil(r.from / unit) * unit;
  const last = Math.min(Math.floor(r.to / unit) * unit, rolledUntil);
  if (first >= last) return { inside: undefined, rest: [r] };
  return {
    inside: { from: first, to: last },
    rest: [
      { from: r.from, to: first },
      { from: last, to: r.to },
    ].filter((x) => x.to > x.from),
  };
}

/**
 * Whole rolled-up days from usage_daily (not when grouping by hour), whole rolled-up hours from
 * usage_hourly, the rest from raw rows.
 */
export function planQuery(from: number, to: number, hourlyUntil: number, dailyUntil: number, useDaily: boolean): QueryPlan {
  if (!(to > from)) return { daily: undefined, hourly: [], raw: [] };
  const days = useDaily ? split({ from, to }, DAY_MS, Math.min(dailyUntil, hourlyUntil)) : { inside: undefined, rest: [{ from, to }] };
  const hourly: Range[] = [];
  const raw: Range[] = [];
  for (const r of days.rest) {
    const hours = split(r, HOUR_MS, hourlyUntil);
    if (hours.inside) hourly.push(hours.inside);
    raw.push(...hours.rest);
  }
  return { daily: days.inside, hourly, raw };
}

function checkedDimensions(dims: readonly UsageDimension[]): UsageDimension[] {
  for (const d of dims) if (!(USAGE_DIMENSIONS as readonly string[]).includes(d)) throw new Error(`unknown usage dimension: ${String(d)}`);
  return [...new Set(dims)];
}

/** Each filtered dimension matches any listed value; null matches an absent value; an empty list matches nothing. */
function filterPredicates(filters: UsageQuery['filters']): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [];
  for (const dim of checkedDimensions(Object.keys(filters) as UsageDimension[])) {
    const values = filters[dim];
    if (values === undefined) continue;
    const col = sql.ref(DIMENSION_COLUMN[dim]);
    const present = values.filter((v): v is string => v !== null);
    const alts: RawBuilder<unknown>[] = [];
    if (present.length > 0) alts.push(sql`${col} in (${sql.join(present)})`);
    if (present.length !== values.length) alts.push(sql`${col} is null`);
    out.push(alts.length === 0 ? sql`1 = 0` : sql`(${sql.join(alts, sql` or `)})`);
  }
  return out;
}

/** The SQL grouping unit: months are grouped by day and folded afterwards. */
function sqlUnit(q: UsageQuery): number | undefined {
  return q.bucket === undefined ? undefined : q.bucket === 'hour' ? HOUR_MS : DAY_MS;
}

function groupedSelect(q: UsageQuery, timeColumn: string, aggregates: RawBuilder<unknown>, table: string, where: RawBuilder<unknown>[]) {
  const dims = checkedDimensions(q.groupBy);
  const unit = sqlUnit(q);
  const keys: RawBuilder<unknown>[] = dims.map((d) => sql.ref(DIMENSION_COLUMN[d]));
  if (unit !== undefined) keys.push(truncated(timeColumn, unit));
  const selected = [...dims.map((d) => sql`${sql.ref(DIMENSION_COLUMN[d])} as ${sql.id(`d_${d}`)}`), ...(unit !== undefined ? [sql`${truncated(timeColumn, unit)} as bucket_start`] : []), aggregates];
  return sql<Row>`select ${sql.join(selected)} from ${sql.table(table)} where ${sql.join(where, sql` and `)}${keys.length > 0 ? sql` group by ${sql.join(keys)}` : sql``}`;
}

/** A grouped select over cumulative bucket columns, answering with histogram texts like the daily one. */
function asTexts(q: UsageQuery, grouped: RawBuilder<Row>): RawBuilder<Row> {
  const keys = [...checkedDimensions(q.groupBy).map((d) => `d_${d}`), ...(sqlUnit(q) !== undefined ? ['bucket_start'] : [])];
  return withHistogramTexts(grouped, [...keys, ...SCALARS.map((m) => m.alias)]);
}

function timeRanges(column: string, ranges: readonly Range[]): RawBuilder<unknown> {
  const col = sql.ref(column);
  return sql`(${sql.join(
    ranges.map((r) => sql`(${col} >= ${r.from} and ${col} < ${r.to})`),
    sql` or `,
  )})`;
}

export function rawSelect(q: UsageQuery, ranges: readonly Range[]) {
  return asTexts(q, groupedSelect(q, 'time', rawAggregates(), 'usage_records_all', [sql`"final" = 1`, timeRanges('time', ranges), ...filterPredicates(q.filters)]));
}

export function hourlySelect(q: UsageQuery, ranges: readonly Range[]) {
  return asTexts(q, groupedSelect(q, 'hour', hourlyAggregates(), 'usage_hourly', [timeRanges('hour', ranges), ...filterPredicates(q.filters)]));
}

export function dailySelect(q: UsageQuery, range: Range) {
  return groupedSelect(q, 'day', dailyAggregates(), 'usage_daily', [timeRanges('day', [range]), ...filterPredicates(q.filters)]);
}

export async function runQuery(db: Kysely<Database>, q: UsageQuery, hourlyUntil: number, dailyUntil: number): Promise<UsageGroup[]> {
  const plan = planQuery(q.from, q.to, hourlyUntil, dailyUntil, q.bucket !== 'hour');
  const rows: Row[] = [];
  if (plan.daily) rows.push(...(await dailySelect(q, plan.daily).execute(db)).rows);
  if (plan.hourly.length > 0) rows.push(...(await hourlySelect(q, plan.hourly).execute(db)).rows);
  if (plan.raw.length > 0) rows.push(...(await rawSelect(q, plan.raw).execute(db)).rows);
  return mergeGroups(q, rows);
}

/**
 * Cost units may be fractional; SQLite adds them as doubles, so the same records summed in
 * another order (raw rows vs rollups) can differ in the last bits. Nine decimals are far below
 * any configured unit and make the answer independent of where it was read from.
 */
function roundCost(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const optNum = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function monthStart(dayStart: number): number {
  const d = new Date(dayStart);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Sums of the rows of one group, before percentiles. */
interface Acc {
  key: Partial<Record<UsageDimension, string | null>>;
  bucketStart: number | undefined;
  m: Record<string, number | null>;
  /** per histogram text column, the count of each bucket (not cumulative) */
  buckets: Record<string, number[]>;
}

export function mergeGroups(q: UsageQuery, rows: readonly Row[]): UsageGroup[] {
  const dims = checkedDimensions(q.groupBy);
  const groups = new Map<string, Acc>();
  for (const row of rows) {
    if (num(row.calls) === 0) continue;
    const key: Partial<Record<UsageDimension, string | null>> = {};
    for (const d of dims) key[d] = (row[`d_${d}`] as string | null | undefined) ?? null;
    let bucketStart: number | undefined;
    if (q.bucket !== undefined) {
      bucketStart = num(row.bucket_start);
      if (q.bucket === 'month') bucketStart = monthStart(bucketStart);
    }
    const id = JSON.stringify([bucketStart ?? null, ...dims.map((d) => key[d])]);
    let acc = groups.get(id);
    if (!acc) {
      acc = { key, bucketStart, m: {}, buckets: Object.fromEntries(HISTOGRAMS.map((h) => [h.text, h.bounds.map(() => 0)])) };
      groups.set(id, acc);
    }
    for (const metric of SCALARS) {
      const v = row[metric.alias];
      const prev = acc.m[metric.alias];
      if (metric.merge === 'sum') acc.m[metric.alias] = num(prev) + num(v);
      else {
        const x = optNum(v);
        if (x === null) acc.m[metric.alias] = prev ?? null;
        else if (prev === null || prev === undefined) acc.m[metric.alias] = x;
        else acc.m[metric.alias] = metric.merge === 'min' ? Math.min(prev, x) : Math.max(prev, x);
      }
    }
    for (const h of HISTOGRAMS) addHistogramText((row[h.text] as HistogramText | undefined) ?? null, acc.buckets[h.text]!);
  }
  const out = [...groups.values()].map(toGroup);
  out.sort((a, b) => b.calls - a.calls || (a.bucketStart ?? 0) - (b.bucketStart ?? 0) || compareKeys(a.key, b.key, dims));
  return out.slice(0, Math.max(0, Math.floor(q.limit ?? DEFAULT_LIMIT)));
}

function compareKeys(a: UsageGroup['key'], b: UsageGroup['key'], dims: readonly UsageDimension[]): number {
  for (const d of dims) {
    const x = a[d] ?? '';
    const y = b[d] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function histogramOf(acc: Acc, prefix: 'lat' | 'dur'): Histogram {
  const m = acc.m;
  return {
    cumulative: cumulativeOf(acc.buckets[`${prefix}_hist`]!),
    count: num(m[`${prefix}_count`]),
    min: m[`${prefix}_min`] ?? null,
    max: m[`${prefix}_max`] ?? null,
  };
}

function toGroup(acc: Acc): UsageGroup {
  const m = acc.m;
  const calls = num(m.calls);
  const errors = num(m.errors);
  const durations = histogramOf(acc, 'dur');
  const duration = percentilesOf(durations, DURATION_BOUNDS_MS);
  return {
    key: acc.key,
    ...(acc.bucketStart !== undefined ? { bucketStart: acc.bucketStart } : {}),
    calls,
    errors,
    errorRate: calls === 0 ? 0 : errors / calls,
    latencyMs: percentilesOf(histogramOf(acc, 'lat'), LATENCY_BOUNDS_MS),
    durationMs: duration ? { ...duration, avg: num(m.dur_sum) / durations.count } : null,
    promptTokens: num(m.prompt_tokens),
    completionTokens: num(m.completion_tokens),
    cachedTokens: num(m.cached_tokens),
    cost: roundCost(num(m.cost)),
    bytesIn: num(m.bytes_in),
    bytesOut: num(m.bytes_out),
  };
}
