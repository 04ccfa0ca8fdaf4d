import { describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { addHistogramText, cumulativeOf, DURATION_BOUNDS_MS, DURATION_COLUMNS, estimatePercentile, histogramText, LATENCY_BOUNDS_MS, percentilesOf, type Histogram } from '../../../src/store/usage/usage-histogram.js';
import { histogramTextSql } from '../../../src/store/usage/usage-sql.js';

function histogramOf(values: number[], bounds: readonly number[]): Histogram {
  return {
    cumulative: bounds.map((b) => values.filter((v) => v <= b).length),
    count: values.length,
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
  };
}

const bucket = (v: number) => {
  const i = LATENCY_BOUNDS_MS.findIndex((b) => v <= b);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
};

describe('usage histogram', () => {
  it('is exact when every value is the same', () => {
    expect(percentilesOf(histogramOf([42, 42, 42], LATENCY_BOUNDS_MS), LATENCY_BOUNDS_MS)).toEqual({ p50: 42, p95: 42, p99: 42 });
  });

  it('has no percentiles without values', () => {
    expect(percentilesOf(histogramOf([], LATENCY_BOUNDS_MS), LATENCY_BOUNDS_MS)).toBeNull();
  });

  it('lands in the bucket of the exact nearest-rank percentile', () => {
    const values = Array.from({ length: 1000 }, (_, i) => Math.exp((((i * 7919) % 1000) / 1000) * 14) / 4);
    const sorted = [...values].sort((a, b) => a - b);
    const h = histogramOf(values, LATENCY_BOUNDS_MS);
    for (const p of [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1]) {
      const exact = sorted[Math.ceil(p * values.length) - 1]!;
      expect(bucket(estimatePercentile(h, LATENCY_BOUNDS_MS, p)), `p${p}`).toBe(bucket(exact));
    }
  });

  it('interpolates values beyond the last bound up to the observed max', () => {
    const h = histogramOf([600_000, 900_000], LATENCY_BOUNDS_MS);
    const p99 = estimatePercentile(h, LATENCY_BOUNDS_MS, 0.99);
    expect(p99).toBeGreaterThan(LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!);
    expect(p99).toBeLessThanOrEqual(900_000);
  });
});

/** Per-bucket counts (not cumulative) of values; values above the last bound are in no bucket. */
function countsOf(values: readonly number[], bounds: readonly number[]): number[] {
  const counts = bounds.map(() => 0);
  for (const v of values) {
    const i = bounds.findIndex((b) => v <= b);
    if (i !== -1) counts[i]!++;
  }
  return counts;
}

const decode = (text: string | null, n = LATENCY_BOUNDS_MS.length) => {
  const counts = Array.from({ length: n }, () => 0);
  addHistogramText(text, counts);
  return counts;
};

describe('usage histogram text', () => {
  it('round-trips per-bucket counts, listing only non-empty buckets', () => {
    const counts = LATENCY_BOUNDS_MS.map(() => 0);
    counts[0] = 3;
    counts[7] = 1;
    counts[23] = 1_234_567_890;
    expect(histogramText(counts)).toBe('0:3,7:1,23:1234567890');
    expect(decode(histogramText(counts))).toEqual(counts);
    expect(histogramText(LATENCY_BOUNDS_MS.map(() => 0))).toBeNull();
    expect(decode(null)).toEqual(LATENCY_BOUNDS_MS.map(() => 0));
  });

  it('merges rows by joining their texts with a comma, as string_agg does', () => {
    const rows = [[1, 2, 30, 2_000], [2, 2.5, 600_000], [], [0.4, 30]];
    const texts = rows.map((r) => histogramText(countsOf(r, LATENCY_BOUNDS_MS))).filter((t) => t !== null);
    expect(decode(texts.join(','))).toEqual(countsOf(rows.flat(), LATENCY_BOUNDS_MS));
  });

  it('refuses a text that is not one', () => {
    for (const bad of ['1', '1:', ':4', '1:2,,3:4', '1:2;3:4', '24:1', 'a:1', '1:2x']) expect(() => decode(bad), bad).toThrow(/malformed usage histogram text/);
  });

  it("keeps the estimate in the exact percentile's bucket after merging many rows", () => {
    const values = Array.from({ length: 3000 }, (_, i) => Math.exp((((i * 7919) % 3000) / 3000) * 21));
    // 60 "daily rows" of 50 values each, merged as a query over usage_daily merges them
    const rows = Array.from({ length: 60 }, (_, r) => values.slice(r * 50, r * 50 + 50));
    const counts = decode(
      rows
        .map((r) => histogramText(countsOf(r, DURATION_BOUNDS_MS)))
        .filter((t) => t !== null)
        .join(','),
      DURATION_BOUNDS_MS.length,
    );
    const h: Histogram = { cumulative: cumulativeOf(counts), count: values.length, min: Math.min(...values), max: Math.max(...values) };
    const sorted = [...values].sort((a, b) => a - b);
    const bucketOf = (v: number) => {
      const i = DURATION_BOUNDS_MS.findIndex((b) => v <= b);
      return i === -1 ? DURATION_BOUNDS_MS.length : i;
    };
    for (const p of [0.01, 0.5, 0.9, 0.95, 0.99, 1]) {
      const exact = sorted[Math.ceil(p * values.length) - 1]!;
      const estimate = estimatePercentile(h, DURATION_BOUNDS_MS, p);
      expect(bucketOf(estimate), `p${p}`).toBe(bucketOf(exact));
      // the documented bound: within a factor 2.5 (the widest duration bucket) of the exact value,
      // or within the first bucket's width below its bound
      if (exact > DURATION_BOUNDS_MS[0]!) expect(Math.max(estimate / exact, exact / estimate), `p${p}`).toBeLessThanOrEqual(2.5);
      else expect(Math.abs(estimate - exact), `p${p}`).toBeLessThanOrEqual(DURATION_BOUNDS_MS[0]!);
    }
  });

  it('is built in SQL from cumulative columns exactly as histogramText builds it', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) });
    try {
      const rows = [[], [5], [5, 5, 20, 3_000_000, 600_000_000], Array.from({ length: 200 }, (_, i) => Math.exp(i / 10))];
      for (const values of rows) {
        const cumulative = cumulativeOf(countsOf(values, DURATION_BOUNDS_MS));
        const columns = sql.join(cumulative.map((n, i) => sql`${sql.lit(n)} as ${sql.id(DURATION_COLUMNS[i]!)}`));
        const { rows: out } = await sql<{ text: string | null }>`select ${histogramTextSql(DURATION_COLUMNS)} as text from (select ${columns}) as c`.execute(db);
        expect(out[0]?.text).toBe(histogramText(countsOf(values, DURATION_BOUNDS_MS)));
      }
    } finally {
      await db.destroy();
    }
  });
});
