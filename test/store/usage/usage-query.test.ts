import { describe, expect, it } from 'vitest';
import { planQuery } from '../../../src/store/usage/usage-query.js';

const H = 3_600_000;
const D = 24 * H;

describe('usage query plan', () => {
  it('reads whole rolled-up days from usage_daily, whole rolled-up hours from usage_hourly, the rest raw, without overlap', () => {
    const from = 10 * D + 5 * H + 123;
    const to = 14 * D + 7 * H + 456;
    const plan = planQuery(from, to, 14 * D + 3 * H, 14 * D, true);
    expect(plan.daily).toEqual({ from: 11 * D, to: 14 * D });
    expect(plan.hourly).toEqual([
      { from: 10 * D + 6 * H, to: 11 * D },
      { from: 14 * D, to: 14 * D + 3 * H },
    ]);
    expect(plan.raw).toEqual([
      { from, to: 10 * D + 6 * H },
      { from: 14 * D + 3 * H, to },
    ]);
  });

  it('skips usage_daily when grouping by hour, and everything for an empty range', () => {
    const plan = planQuery(0, 2 * D, 2 * D, 2 * D, false);
    expect(plan).toEqual({ daily: undefined, hourly: [{ from: 0, to: 2 * D }], raw: [] });
    expect(planQuery(5, 5, 2 * D, 2 * D, true)).toEqual({ daily: undefined, hourly: [], raw: [] });
  });

  it('reads raw rows only before the first rollup', () => {
    expect(planQuery(0, 3 * D, 0, 0, true)).toEqual({ daily: undefined, hourly: [], raw: [{ from: 0, to: 3 * D }] });
  });
});
