/**
 * What a bucket of callers spent this month, for monthly token and cost budgets. The usage store
 * answers it (the server wires `store.usage.query` behind this interface); the cache keeps a
 * budget check off the database on every call, at the price of admitting a few calls past a
 * budget within `ttlMs` of crossing it (a budget is checked against usage already recorded).
 */
import type { CallDimensions } from './quota.js';

export interface Spent {
  /** prompt + completion tokens */
  tokens: number;
  /** cost units */
  cost: number;
}

export interface MonthlySpend {
  /** What calls with these dimension values spent since `monthStart` (epoch ms, UTC month start). */
  spent(dims: CallDimensions, monthStart: number): Promise<Spent>;
}

const MAX_ENTRIES = 10_000;

export class CachedMonthlySpend implements MonthlySpend {
  private readonly cache = new Map<string, { at: number; value: Promise<Spent> }>();

  constructor(
    private readonly inner: MonthlySpend,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  spent(dims: CallDimensions, monthStart: number): Promise<Spent> {
    const key = `${monthStart}|${JSON.stringify(Object.entries(dims).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = this.inner.spent(dims, monthStart);
    // A failed read is not remembered: the next call asks again.
    value.catch(() => this.cache.delete(key));
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.delete(key);
    this.cache.set(key, { at: now, value });
    return value;
  }
}
