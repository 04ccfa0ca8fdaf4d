import { describe, expect, it } from 'vitest';
import { estimatePercentile, LATENCY_BOUNDS_MS, percentilesOf, type Histogram } from '../../../src/store/usage/usage-histogram.js';

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
