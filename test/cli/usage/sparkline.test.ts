/**
 * The sparkline of a row: scaled to the row's own largest bucket, any call at least ▁, no call a
 * space; and the time buckets a window spans (UTC, partial first and last buckets included).
 */
import { describe, expect, it } from 'vitest';
import { sparkline } from '../../../src/cli/usage/sparkline.js';
import { bucketStarts, sparkBucket } from '../../../src/cli/usage/time-buckets.js';

describe('sparkline', () => {
  it('draws 1…8 of 8 as the eight bars in order', () => {
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█');
  });

  it('scales to the largest value, with at least ▁ for any call and a space for none', () => {
    expect(sparkline([0, 1, 100, 50, 0])).toBe(' ▁█▄ ');
    expect(sparkline([3, 3, 3])).toBe('███');
    expect(sparkline([0, 0])).toBe('  ');
    expect(sparkline([])).toBe('');
  });
});

describe('time buckets', () => {
  const H = 3_600_000;
  const D = 24 * H;
  it('hour up to two days, day up to 92 days, month beyond', () => {
    expect(sparkBucket(0, 2 * D)).toBe('hour');
    expect(sparkBucket(0, 2 * D + 1)).toBe('day');
    expect(sparkBucket(0, 92 * D)).toBe('day');
    expect(sparkBucket(0, 93 * D)).toBe('month');
  });

  it('lists every bucket overlapping the window, from the floor of its start', () => {
    const jan1 = Date.UTC(2026, 0, 1);
    expect(bucketStarts(jan1 + 30 * 60_000, jan1 + 3 * H, 'hour')).toEqual([jan1, jan1 + H, jan1 + 2 * H]);
    expect(bucketStarts(jan1, jan1 + 2 * D + 1, 'day')).toEqual([jan1, jan1 + D, jan1 + 2 * D]);
    expect(bucketStarts(Date.UTC(2025, 11, 15), Date.UTC(2026, 1, 2), 'month')).toEqual([Date.UTC(2025, 11, 1), Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1)]);
  });
});
