/**
 * Latency and duration histograms of the rollups: fixed, log-spaced upper bounds, stored in two
 * layouts.
 *
 * usage_hourly (migration 0008) stores them as cumulative counts, one column per bound
 * (`lat_le_00` = records with latency <= LATENCY_BOUNDS_MS[0], …), so merging hourly rows is a
 * plain SUM per column: that is how the daily rollup and a query over hours merge them.
 *
 * usage_daily (migration 0011) stores each histogram as one text column (`lat_hist`, `dur_hist`,
 * see HistogramText): a month's query reads ~30 daily rows per group, and summing 48 bucket
 * columns over them cost two thirds of the query; concatenating one text per histogram
 * (string_agg) and adding the counts up here costs a fraction of that.
 *
 * The bounds are part of the schema (migration 0008 created one column per bound, and the texts
 * hold bucket indexes): changing them needs a new migration. A 1-2-3-5 series for latency (1 ms to
 * 500 s) and a 1-2-5 series for task duration (10 ms to ~6 days) keep each bucket within a factor
 * 2 (2.5 for durations) of its lower bound, which is the error bound of an estimated percentile
 * (see estimatePercentile). Both layouts hold the same buckets, so the bound is the same whichever
 * level a query reads.
 */
import type { Percentiles } from '../usage-record.js';

export const LATENCY_BOUNDS_MS: readonly number[] = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 20_000, 30_000, 50_000, 100_000, 200_000, 300_000, 500_000];

export const DURATION_BOUNDS_MS: readonly number[] = [
  10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000, 200_000_000, 500_000_000,
];

/** Column name of the i-th cumulative bucket of an hourly histogram (`lat` or `dur`). */
export function bucketColumn(prefix: 'lat' | 'dur', i: number): string {
  return `${prefix}_le_${String(i).padStart(2, '0')}`;
}

export const LATENCY_COLUMNS: readonly string[] = LATENCY_BOUNDS_MS.map((_, i) => bucketColumn('lat', i));
export const DURATION_COLUMNS: readonly string[] = DURATION_BOUNDS_MS.map((_, i) => bucketColumn('dur', i));

/** A merged histogram: cumulative counts per bound, the total, and the exact extremes. */
export interface Histogram {
  /** cumulative[i] = values <= bounds[i] */
  cumulative: number[];
  count: number;
  min: number | null;
  max: number | null;
}

/**
 * A histogram as text: the non-empty buckets' own (not cumulative) counts as `index:count`,
 * joined by commas, e.g. `1:6,2:4,13:7`; null when no bucket holds a value. Values above the last
 * bound are in no bucket (their number is the count minus the buckets' sum). An index may repeat:
 * its counts add up, so texts joined by a comma (string_agg) are the text of the merged histogram.
 */
export type HistogramText = string | null;

/** The text of per-bucket counts (the SQL side builds the same text, see histogramTextSql). */
export function histogramText(counts: readonly number[]): HistogramText {
  const parts: string[] = [];
  counts.forEach((n, i) => {
    if (n > 0) parts.push(`${i}:${n}`);
  });
  return parts.length > 0 ? parts.join(',') : null;
}

const COMMA = 44;
const COLON = 58;
const ZERO = 48;
const NINE = 57;

/**
 * Adds the counts of a text (possibly several joined) to `counts` (one per bucket). Parsed by
 * hand: a month's query adds up ~30 texts per group, and split() would allocate a string per entry.
 */
export function addHistogramText(text: HistogramText, counts: number[]): void {
  if (text === null || text === '') return;
  const n = text.length;
  let i = 0;
  while (i < n) {
    let bucket = 0;
    let digits = 0;
    let c = text.charCodeAt(i);
    for (; c >= ZERO && c <= NINE; c = text.charCodeAt(++i), digits++) bucket = bucket * 10 + c - ZERO;
    if (digits === 0 || c !== COLON || bucket >= counts.length) throw new Error(`malformed usage histogram text at ${i}: ${text.slice(0, 80)}`);
    let count = 0;
    digits = 0;
    for (c = text.charCodeAt(++i); c >= ZERO && c <= NINE; c = text.charCodeAt(++i), digits++) count = count * 10 + c - ZERO;
    if (digits === 0 || (i < n && c !== COMMA)) throw new Error(`malformed usage histogram text at ${i}: ${text.slice(0, 80)}`);
    counts[bucket]! += count;
    i++;
  }
}

/** Per-bucket counts → cumulative counts (values <= each bound). */
export function cumulativeOf(counts: readonly number[]): number[] {
  let sum = 0;
  return counts.map((n) => (sum += n));
}

/**
 * The p-quantile (0 < p <= 1, nearest rank) estimated from the histogram: the bucket holding the
 * rank is exact, the position inside it is interpolated linearly, and the result is clamped to the
 * observed min and max. So the estimate lies in the same bucket as the true value: it is off by at
 * most that bucket's width (a factor 2 of the value for latency, 2.5 for duration; exact when all
 * values of the group are equal). Values above the last bound interpolate up to the observed max.
 */
export function estimatePercentile(h: Histogram, bounds: readonly number[], p: number): number {
  if (h.count === 0 || h.min === null || h.max === null) return 0;
  const rank = Math.max(1, Math.ceil(p * h.count));
  let below = 0;
  for (let i = 0; i <= bounds.length; i++) {
    const upTo = i < bounds.length ? h.cumulative[i]! : h.count;
    if (upTo >= rank) {
      const lower = i === 0 ? Math.min(h.min, 0) : bounds[i - 1]!;
      const upper = i < bounds.length ? bounds[i]! : h.max;
      const inBucket = upTo - below;
      // the rank-th of the bucket's values, assumed spread evenly over it (the middle of its share)
      const estimate = lower + ((upper - lower) * (rank - below - 0.5)) / inBucket;
      return Math.min(h.max, Math.max(h.min, estimate));
    }
    below = upTo;
  }
  return h.max;
}

export function percentilesOf(h: Histogram, bounds: readonly number[]): Percentiles | null {
  if (h.count === 0) return null;
  return { p50: estimatePercentile(h, bounds, 0.5), p95: estimatePercentile(h, bounds, 0.95), p99: estimatePercentile(h, bounds, 0.99) };
}
