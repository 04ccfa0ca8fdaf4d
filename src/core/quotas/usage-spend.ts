/**
 * Monthly budgets (quotas) read what was spent from the usage records: the same rows the analytics
 * API sums, so a budget and the bill never disagree. A task's tokens count once it commits them.
 */
import type { UsageDimension } from '../../store/usage-record.js';
import type { UsageStore } from '../../store/usage-store.js';
import type { MonthlySpend, Spent } from './monthly-spend.js';
import type { CallDimensions } from './quota.js';

export class UsageMonthlySpend implements MonthlySpend {
  constructor(private readonly usage: Pick<UsageStore, 'query'>) {}

  async spent(dims: CallDimensions, monthStart: number): Promise<Spent> {
    const filters: Partial<Record<UsageDimension, string[]>> = {};
    for (const [k, v] of Object.entries(dims)) if (v !== undefined) filters[k as UsageDimension] = [v];
    const groups = await this.usage.query({ groupBy: [], filters, from: monthStart, to: Date.now() + 1 });
    let tokens = 0;
    let cost = 0;
    for (const g of groups) {
      tokens += g.promptTokens + g.completionTokens;
      cost += g.cost;
    }
    return { tokens, cost };
  }
}
