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
});
