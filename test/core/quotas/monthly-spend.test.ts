/**
 * The cache in front of the usage store's monthly spend (src/core/quotas/monthly-spend.ts): one read
 * per bucket and month within the TTL, a fresh read after it, and a failed read not remembered.
 */
import { describe, expect, it } from 'vitest';
import { CachedMonthlySpend, type MonthlySpend, type Spent } from '../../../src/core/quotas/monthly-spend.js';
import type { CallDimensions } from '../../../src/core/quotas/quota.js';

class CountingSpend implements MonthlySpend {
  reads = 0;
  tokens = 10;
  fail = false;
  async spent(_dims: CallDimensions, _monthStart: number): Promise<Spent> {
    this.reads += 1;
    if (this.fail) throw new Error('usage store down');
    return { tokens: this.tokens, cost: 0 };
  }
}

describe('cached monthly spend', () => {
  it('reads each bucket once per TTL, whatever the order of its dimensions', async () => {
    let now = 0;
    const inner = new CountingSpend();
    const cached = new CachedMonthlySpend(inner, 5_000, () => now);
    expect(await cached.spent({ key: 'k', usecase: 'u' }, 0)).toEqual({ tokens: 10, cost: 0 });
    inner.tokens = 20;
    expect(await cached.spent({ usecase: 'u', key: 'k' }, 0)).toEqual({ tokens: 10, cost: 0 });
    expect(inner.reads).toBe(1);
    await cached.spent({ key: 'other' }, 0);
    expect(inner.reads).toBe(2);
    now = 5_000;
    expect(await cached.spent({ key: 'k', usecase: 'u' }, 0)).toEqual({ tokens: 20, cost: 0 });
    expect(inner.reads).toBe(3);
  });

  it('does not remember a failed read', async () => {
    const inner = new CountingSpend();
    const cached = new CachedMonthlySpend(inner, 5_000, () => 0);
    inner.fail = true;
    await expect(cached.spent({ key: 'k' }, 0)).rejects.toThrow('usage store down');
    inner.fail = false;
    expect(await cached.spent({ key: 'k' }, 0)).toEqual({ tokens: 10, cost: 0 });
  });

  it('a hit is fresh for ttlMs after its read, on any clock', async () => {
    let now = 1_000_000;
    const inner = new CountingSpend();
    const cached = new CachedMonthlySpend(inner, 5_000, () => now);
    await cached.spent({ key: 'k' }, 0);
    now += 4_999;
    await cached.spent({ key: 'k' }, 0);
    expect(inner.reads).toBe(1);
    now += 1;
    await cached.spent({ key: 'k' }, 0);
    expect(inner.reads).toBe(2);
  });

  it('keeps at most 10,000 buckets: the oldest goes first', async () => {
    const inner = new CountingSpend();
    const cached = new CachedMonthlySpend(inner, 60_000, () => 0);
    for (let i = 0; i <= 10_000; i++) await cached.spent({ key: `k${i}` }, 0);
    expect(inner.reads).toBe(10_001);
    await cached.spent({ key: 'k1' }, 0);
    expect(inner.reads).toBe(10_001);
    await cached.spent({ key: 'k0' }, 0);
    expect(inner.reads).toBe(10_002);
  });
});
