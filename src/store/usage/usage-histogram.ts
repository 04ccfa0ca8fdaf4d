/**
 * Latency and duration histograms of the hourly rollup: fixed, log-spaced upper bounds, stored as
 * cumulative counts (`lat_le_00` = records with latency <= LATENCY_BOUNDS_MS[0], …), so merging
 * rollup rows is a plain SUM per column and a percentile needs no raw row.
 *
 * The bounds are part of the schema (migration 0008 created one column per bound): changing them
 * needs a new migration. A 1-2-3-5 series for latency (1 ms to 500 s) and a 1-2-5 series for task
 * duration (10 ms to ~6 days) keep each bucket within a factor 2 (2.5 for durations) of its lower
 * bound, which is the error bound of an estimated percentile (see estimatePercentile).
 */
import type { Percentiles } from '../usage-record.js';

export const LATENCY_BOUNDS_MS: readonly number[] = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 20_000, 30_000, 50_000, 100_000, 200_000, 300_000, 500_000];

export const DURATION_BOUNDS_MS: readonly number[] = [
  10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000, 200_000_000, 500_000_000,
];

/** Column name of the i-th cumulative bucket of a histogram (`lat` or `dur`). */
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
