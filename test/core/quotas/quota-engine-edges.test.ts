/**
 * The quota engine (src/core/quotas/quota-engine.ts) at its edges, in process on the local counters
 * with a fake clock: what remains of monthly budgets and held slots, budgets of one kind only, no
 * round trip to the counters or the spend when no quota needs it, counters that cannot be reached,
 * slot renewals every third of the lease, a slot released once, and the refusal's audit record.
 * The counters are real; a thin wrapper counts their calls and makes them fail on demand.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalQuotaCounters } from '../../../src/bus/local-quota-counters.js';
import type { QuotaCounters, SlotCounter, TakeResult, WindowCounter } from '../../../src/bus/quota-counters.js';
import { quotasSchema } from '../../../src/config/usage-schema.js';
import type { AuditEvent } from '../../../src/core/audit/audit-event.js';
import type { Principal } from '../../../src/core/authz/principal.js';
import type { MonthlySpend, Spent } from '../../../src/core/quotas/monthly-spend.js';
import { QuotaBook } from '../../../src/core/quotas/quota-book.js';
import { type QuotaCall, QuotaEngine } from '../../../src/core/quotas/quota-engine.js';
import type { CallDimensions } from '../../../src/core/quotas/quota.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { QuotaExceededError } from '../../../src/protocol/a2a/quota-exceeded.js';

afterEach(() => {
  vi.useRealTimers();
});

class CountedCounters implements QuotaCounters {
  readonly calls = { take: 0, renew: 0, release: 0 };
  fail = false;
  constructor(private readonly inner: QuotaCounters) {}
  async take(w: readonly WindowCounter[], s: readonly SlotCounter[], lease: string): Promise<TakeResult> {
    this.calls.take += 1;
    if (this.fail) throw new Error('counters down');
    return this.inner.take(w, s, lease);
  }
  async renew(keys: readonly string[], lease: string, ms: number): Promise<void> {
    this.calls.renew += 1;
    if (this.fail) throw new Error('counters down');
    return this.inner.renew(keys, lease, ms);
  }
  async release(keys: readonly string[], lease: string): Promise<void> {
    this.calls.release += 1;
    if (this.fail) throw new Error('counters down');
    return this.inner.release(keys, lease);
  }
  peekWindow(key: string) {
    return this.inner.peekWindow(key);
  }
  peekSlots(key: string) {
    return this.inner.peekSlots(key);
  }
}

class FixedSpend implements MonthlySpend {
  asked: Array<[CallDimensions, number]> = [];
  constructor(private readonly value: Spent) {}
  async spent(dims: CallDimensions, monthStart: number): Promise<Spent> {
    this.asked.push([dims, monthStart]);
    return this.value;
  }
}

const NOW = Date.parse('2026-11-29T01:00:00Z');
const alice: Principal = { subject: 'alice', authenticated: true, scopes: [] };
const call = (o: Partial<QuotaCall> = {}): QuotaCall => ({ principal: alice, dims: { subject: 'alice', agent: 'echo' }, sends: true, operation: 'SendMessage', ...o });

function setup(list: unknown[], o: { spend?: MonthlySpend; leaseMs?: number } = {}) {
  const counters = new CountedCounters(new LocalQuotaCounters(() => NOW));
  const warnings: Array<[object, string | undefined]> = [];
  const audit: AuditEvent[] = [];
  const engine = new QuotaEngine({
    book: new QuotaBook({ config: quotasSchema.parse(list) }),
    counters,
    now: () => NOW,
    log: { warn: (obj, msg) => warnings.push([obj, msg]) },
    audit: { record: (e) => void audit.push(e) },
    ...(o.spend ? { spend: o.spend } : {}),
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
  });
  return { engine, counters, warnings, audit };
}

describe('quota engine edges (local counters, fake clock)', () => {
  it('reports what remains of both monthly budgets, never below zero, until the next UTC month', async () => {
    const spend = new FixedSpend({ tokens: 30, cost: 7 });
    const { engine } = setup([{ id: 'budget', per: ['subject'], monthlyTokens: 100, monthlyCost: 5 }], { spend });
    expect(await engine.remaining(alice)).toEqual([
      { quotaId: 'budget', kind: 'monthlyTokens', limit: 100, remaining: 70, resetAt: '2026-12-01T00:00:00.000Z' },
      { quotaId: 'budget', kind: 'monthlyCost', limit: 5, remaining: 0, resetAt: '2026-12-01T00:00:00.000Z' },
    ]);
    expect(spend.asked).toEqual([[{ subject: 'alice' }, Date.parse('2026-11-01T00:00:00Z')]]);
  });

  it('reports a budget of one kind only, and none without a spend source', async () => {
    const spend = new FixedSpend({ tokens: 10, cost: 1 });
    const { engine } = setup([{ id: 'cost', monthlyCost: 4 }], { spend });
    expect(await engine.remaining(alice)).toEqual([{ quotaId: 'cost', kind: 'monthlyCost', limit: 4, remaining: 3, resetAt: '2026-12-01T00:00:00.000Z' }]);
    const without = setup([{ id: 'tokens', monthlyTokens: 4 }]);
    expect(await without.engine.remaining(alice)).toEqual([]);
    // nor is it enforced
    expect(await without.engine.admit(call())).toBeUndefined();
  });

  it('reports the slots left while a call holds one', async () => {
    const { engine } = setup([{ id: 'tasks', concurrentTasks: 2 }]);
    const slot = await engine.admit(call());
    expect(await engine.remaining(alice)).toEqual([{ quotaId: 'tasks', kind: 'concurrentTasks', limit: 2, remaining: 1 }]);
    slot?.release();
  });

  it('checks only the budget a quota sets, and refuses at exactly it', async () => {
    const spend = new FixedSpend({ tokens: 1_000, cost: 2 });
    expect(await setup([{ id: 'cost', monthlyCost: 3 }], { spend }).engine.admit(call())).toBeUndefined();
    expect(await setup([{ id: 'tokens', monthlyTokens: 1_001 }], { spend }).engine.admit(call())).toBeUndefined();
    const e = await setup([{ id: 'cost', monthlyCost: 2 }], { spend })
      .engine.admit(call())
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(QuotaExceededError);
    // 2026-11-29T01:00Z to 2026-12-01T00:00Z: 47 hours
    expect(e).toMatchObject({ policy: { id: 'cost', kind: 'monthlyCost', limit: 2 }, retryAfterSeconds: 47 * 3600 });
  });

  it('asks neither the spend nor the counters when no quota needs them', async () => {
    const spend = new FixedSpend({ tokens: 0, cost: 0 });
    const budgetOnly = setup([{ id: 'tokens', monthlyTokens: 10 }], { spend });
    expect(await budgetOnly.engine.admit(call())).toBeUndefined();
    expect(budgetOnly.counters.calls.take).toBe(0);
    const windowOnly = setup([{ id: 'w', requests: { limit: 5, window: 60_000 } }], { spend });
    spend.asked = [];
    await windowOnly.engine.admit(call());
    expect(spend.asked).toEqual([]);
    expect(windowOnly.counters.calls.take).toBe(1);
  });

  it('asks the spend only for quotas with a budget when reporting what remains', async () => {
    const spend = new FixedSpend({ tokens: 0, cost: 0 });
    const { engine } = setup([{ id: 'w', requests: { limit: 5, window: 60_000 } }], { spend });
    expect(await engine.remaining(alice)).toEqual([{ quotaId: 'w', kind: 'requests', limit: 5, remaining: 5 }]);
    expect(spend.asked).toEqual([]);
  });

  it('a renewal or release that fails without a logger is dropped quietly', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const counters = new CountedCounters(new LocalQuotaCounters(() => NOW));
    const engine = new QuotaEngine({ book: new QuotaBook({ config: quotasSchema.parse([{ id: 'tasks', concurrentTasks: 1 }]) }), counters, now: () => NOW, leaseMs: 3_000 });
    const slot = await engine.admit(call());
    counters.fail = true;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      vi.advanceTimersByTime(1_000);
      slot!.release();
      await vi.waitFor(() => expect(counters.calls.release).toBe(1));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(counters.calls.renew).toBe(1);
    expect(unhandled).toEqual([]);
  });

  it('gives the whole seconds left of a window as Retry-After', async () => {
    const { engine } = setup([{ id: 'w', requests: { limit: 1, window: 90_000 } }]);
    await engine.admit(call());
    expect(await engine.admit(call()).catch((err: unknown) => err)).toMatchObject({ retryAfterSeconds: 90, policy: { windowSeconds: 90 } });
  });

  it('answers Unavailable and logs it when the counters cannot be reached', async () => {
    const { engine, counters, warnings } = setup([{ id: 'w', requests: { limit: 1, window: 60_000 } }]);
    counters.fail = true;
    const e = await engine.admit(call()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(A2AError);
    expect(e).toMatchObject({ kind: 'Unavailable', message: 'Quotas cannot be checked right now; retry shortly' });
    expect(warnings.map(([obj, msg]) => [(obj as { err: Error }).err.message, msg])).toEqual([['counters down', 'quotas: the counters cannot be reached']]);
  });

  it('renews a held slot every third of its lease, and releases it once', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { engine, counters } = setup([{ id: 'tasks', concurrentTasks: 1 }], { leaseMs: 3_000 });
    const slot = await engine.admit(call());
    vi.advanceTimersByTime(999);
    expect(counters.calls.renew).toBe(0);
    vi.advanceTimersByTime(1);
    expect(counters.calls.renew).toBe(1);
    vi.advanceTimersByTime(2_000);
    expect(counters.calls.renew).toBe(3);
    slot!.release();
    slot!.release();
    expect(counters.calls.release).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(counters.calls.renew).toBe(3);
  });

  it('logs a renewal or a release that fails', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { engine, counters, warnings } = setup([{ id: 'tasks', concurrentTasks: 1 }], { leaseMs: 3_000 });
    const slot = await engine.admit(call());
    counters.fail = true;
    vi.advanceTimersByTime(1_000);
    slot!.release();
    await vi.waitFor(() => expect(warnings).toHaveLength(2));
    expect(warnings.map(([obj, msg]) => [(obj as { err: Error }).err.message, msg])).toEqual([
      ['counters down', 'quotas: could not renew a task slot'],
      ['counters down', 'quotas: could not release a task slot'],
    ]);
  });

  it('audits a refusal without a client or an agent it does not know', async () => {
    const { engine, audit } = setup([{ id: 'w', requests: { limit: 1, window: 60_000 } }]);
    const noAgent = call({ dims: { subject: 'alice' } });
    await engine.admit(noAgent);
    await engine.admit(noAgent).catch(() => undefined);
    expect(audit).toHaveLength(1);
    expect(audit[0]).not.toHaveProperty('actorClient');
    expect(audit[0]).not.toHaveProperty('target');
    expect(audit[0]).toMatchObject({ action: 'quota.refused', outcome: 'denied', actor: 'alice' });
  });
});
