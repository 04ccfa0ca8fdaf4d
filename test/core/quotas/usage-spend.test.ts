/**
 * What a monthly budget reads as spent (src/core/quotas/usage-spend.ts), from a real SQLite usage
 * store: the tokens and cost of the rows matching every named dimension since the month's start,
 * summed here by hand from the rows written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageMonthlySpend } from '../../../src/core/quotas/usage-spend.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';
import type { UsageRecord } from '../../../src/store/usage-record.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-spend-'));
let store: Store;
const now = Date.now();
const monthStart = now - 10 * 86_400_000;

function row(id: string, time: number, more: Partial<UsageRecord>): UsageRecord {
  return { id, kind: 'call', time, startedAt: time, final: true, replica: 'r1', face: 'a2a-jsonrpc/1.0', operation: 'SendMessage', outcome: 'OK', error: false, promptTokens: 0, completionTokens: 0, cost: 0, ...more };
}

beforeAll(async () => {
  store = await openSqliteStore({ file: join(dir, 'usage.db') });
  await store.migrate();
  await store.usage.write(
    [
      row('a', now - 1000, { subject: 'alice', keyId: 'k1', agent: 'llm', promptTokens: 100, completionTokens: 20, cost: 1.25 }),
      row('b', now - 2000, { subject: 'alice', keyId: 'k2', agent: 'llm', promptTokens: 7, completionTokens: 3, cost: 0.5 }),
      row('c', now - 3000, { subject: 'bob', keyId: 'k3', agent: 'llm', promptTokens: 1000, completionTokens: 1000, cost: 9 }),
      // before the month: not counted
      row('d', monthStart - 1, { subject: 'alice', keyId: 'k1', agent: 'llm', promptTokens: 500, completionTokens: 500, cost: 4 }),
      // at the month's first instant: counted
      row('e', monthStart, { subject: 'alice', keyId: 'k1', agent: 'echo', promptTokens: 1, completionTokens: 1, cost: 0.25 }),
    ],
    [],
  );
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('UsageMonthlySpend', () => {
  const spend = () => new UsageMonthlySpend(store.usage);

  it('sums prompt and completion tokens and cost of a subject’s rows since the month began', async () => {
    // a + b + e: tokens 120 + 10 + 2, cost 1.25 + 0.5 + 0.25
    const spent = await spend().spent({ subject: 'alice' }, monthStart);
    expect(spent.tokens).toBe(132);
    expect(spent.cost).toBeCloseTo(2, 10);
  });

  it('every named dimension narrows; an undefined one does not', async () => {
    // a + e
    expect(await spend().spent({ subject: 'alice', key: 'k1', usecase: undefined }, monthStart)).toEqual({ tokens: 122, cost: 1.5 });
    // a only
    expect(await spend().spent({ subject: 'alice', key: 'k1', agent: 'llm' }, monthStart)).toEqual({ tokens: 120, cost: 1.25 });
    // everyone's: a + b + c + e
    const all = await spend().spent({}, monthStart);
    expect(all.tokens).toBe(2132);
    expect(all.cost).toBeCloseTo(11, 10);
  });

  it('nothing spent: zero', async () => {
    expect(await spend().spent({ subject: 'carol' }, monthStart)).toEqual({ tokens: 0, cost: 0 });
  });

  it('a row dated this very millisecond counts (the query’s end is exclusive)', async () => {
    const t = Date.now();
    await store.usage.write([row('f', t, { subject: 'dave', promptTokens: 5, cost: 0.75 })], []);
    vi.useFakeTimers({ toFake: ['Date'], now: t });
    try {
      expect(await spend().spent({ subject: 'dave' }, monthStart)).toEqual({ tokens: 5, cost: 0.75 });
    } finally {
      vi.useRealTimers();
    }
  });
});
