/**
 * The quota engine (src/core/quotas/quota-engine.ts) over real counters, in-process and in Redis:
 * which quotas apply to a call, request windows per bucket, concurrent-task slots, monthly
 * budgets, the refusal (kind, policy, Retry-After), the audit record, and what remains.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LocalQuotaCounters } from '../../../src/bus/local-quota-counters.js';
import type { QuotaCounters } from '../../../src/bus/quota-counters.js';
import { openRedisQuotaCounters, type RedisQuotaCounters } from '../../../src/bus/redis/redis-quota-counters.js';
import { quotasSchema, type QuotaConfig } from '../../../src/config/usage-schema.js';
import type { AuditEvent } from '../../../src/core/audit/audit-event.js';
import type { Principal } from '../../../src/core/authz/principal.js';
import type { MonthlySpend, Spent } from '../../../src/core/quotas/monthly-spend.js';
import { QuotaBook } from '../../../src/core/quotas/quota-book.js';
import { QuotaEngine, type QuotaCall } from '../../../src/core/quotas/quota-engine.js';
import { principalDimensions, type CallDimensions } from '../../../src/core/quotas/quota.js';
import { QuotaExceededError } from '../../../src/protocol/a2a/quota-exceeded.js';
import { SHARED_REDIS_URL, uniquePrefix } from '../../bus/redis-bus-fixtures.js';

const opened: RedisQuotaCounters[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
});

/** Spend read from a list of (dimensions, tokens, cost) rows: a record matches when it has every asked value. */
class ListSpend implements MonthlySpend {
  readonly rows: Array<{ dims: CallDimensions; tokens: number; cost: number; at: number }> = [];
  async spent(dims: CallDimensions, monthStart: number): Promise<Spent> {
    let tokens = 0;
    let cost = 0;
    for (const r of this.rows) {
      if (r.at < monthStart) continue;
      if (Object.entries(dims).every(([k, v]) => r.dims[k as keyof CallDimensions] === v)) {
        tokens += r.tokens;
        cost += r.cost;
      }
    }
    return { tokens, cost };
  }
}

const quotas = (list: unknown[]): QuotaConfig[] => quotasSchema.parse(list);
const alice: Principal = { subject: 'alice', authenticated: true, scopes: [], keyId: 'k-alice' };
const bob: Principal = { subject: 'bob', authenticated: true, scopes: [], keyId: 'k-bob' };
const call = (p: Principal, o: { agent?: string; skill?: string; sends?: boolean } = {}): QuotaCall => ({
  principal: p,
  dims: { ...principalDimensions(p), agent: o.agent ?? 'echo', ...(o.skill ? { skill: o.skill } : {}) },
  sends: o.sends ?? true,
  operation: o.sends === false ? 'GetTask' : 'SendMessage',
});

async function refusal(p: Promise<unknown>): Promise<QuotaExceededError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(QuotaExceededError);
  return e as QuotaExceededError;
}

const backends: Array<[string, () => Promise<QuotaCounters>]> = [
  ['local', async () => new LocalQuotaCounters()],
  [
    'redis',
    async () => {
      const c = await openRedisQuotaCounters({ url: SHARED_REDIS_URL, prefix: uniquePrefix(), replicaId: 'test' });
      opened.push(c);
      return c;
    },
  ],
];

describe.each(backends)('quota engine (%s counters)', (_name, counters) => {
  async function engine(list: unknown[], extra: { spend?: MonthlySpend; audit?: AuditEvent[] } = {}) {
    const audit = extra.audit;
    return new QuotaEngine({
      book: new QuotaBook({ config: quotas(list) }),
      counters: await counters(),
      ...(extra.spend ? { spend: extra.spend } : {}),
      ...(audit ? { audit: { record: (e: AuditEvent) => void audit.push(e) } } : {}),
    });
  }

  it('gives each API key its own window: N calls admitted, the next refused with the policy and an exact Retry-After', async () => {
    const e = await engine([{ id: 'per-key', per: ['key'], requests: { limit: 3, window: 60_000 } }]);
    for (let i = 0; i < 3; i++) await e.admit(call(alice));
    const refused = await refusal(e.admit(call(alice)));
    expect(refused.kind).toBe('QuotaExceeded');
    expect(refused.identity).toMatchObject({ http: 429, grpc: 'RESOURCE_EXHAUSTED', jsonrpc: -32000, reason: 'QUOTA_EXCEEDED' });
    expect(refused.policy).toEqual({ id: 'per-key', kind: 'requests', limit: 3, windowSeconds: 60 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.message).toContain(`retry after ${refused.retryAfterSeconds} s`);
    // bob's key has an allowance of its own
    await e.admit(call(bob));
  });

  it('counts only the calls a quota matches, and skips a quota whose `per` dimension the call lacks', async () => {
    const e = await engine([
      { id: 'slow-agent', match: { agent: 'slow' }, requests: { limit: 1, window: 60_000 } },
      { id: 'per-client', per: ['client'], requests: { limit: 1, window: 60_000 } },
    ]);
    await e.admit(call(alice, { agent: 'slow' }));
    await refusal(e.admit(call(bob, { agent: 'slow' })));
    // another agent, and no OAuth client on the principal: neither quota applies
    for (let i = 0; i < 5; i++) await e.admit(call(alice, { agent: 'echo' }));
  });

  it('matches a skill only when the call names one', async () => {
    const e = await engine([{ id: 'sql', match: { skill: 'sql' }, requests: { limit: 1, window: 60_000 } }]);
    await e.admit(call(alice, { skill: 'sql' }));
    await refusal(e.admit(call(alice, { skill: 'sql' })));
    await e.admit(call(alice, { skill: 'search' }));
    await e.admit(call(alice));
  });

  it('holds a concurrent-task slot until released; reads take none', async () => {
    const e = await engine([{ id: 'one-at-a-time', per: ['subject'], concurrentTasks: 1 }]);
    const slot = await e.admit(call(alice));
    expect(slot).toBeDefined();
    const refused = await refusal(e.admit(call(alice)));
    expect(refused.policy).toEqual({ id: 'one-at-a-time', kind: 'concurrentTasks', limit: 1 });
    expect(await e.admit(call(alice, { sends: false }))).toBeUndefined();
    expect(await e.admit(call(bob))).toBeDefined();
    slot!.release();
    slot!.release(); // twice is once
    await expect
      .poll(
        async () =>
          await e.admit(call(alice)).then(
            () => 'admitted',
            () => 'refused',
          ),
      )
      .toBe('admitted');
  });

  it('refuses a send once the month’s tokens or cost reach the budget, until the next month', async () => {
    const spend = new ListSpend();
    const e = await engine(
      [
        { id: 'tokens', per: ['key'], monthlyTokens: 1000 },
        { id: 'cost', match: { usecase: 'finance' }, monthlyCost: 5 },
      ],
      { spend },
    );
    spend.rows.push({ dims: { key: 'k-alice', subject: 'alice' }, tokens: 999, cost: 0, at: Date.now() });
    await e.admit(call(alice));
    spend.rows.push({ dims: { key: 'k-alice', subject: 'alice' }, tokens: 1, cost: 0, at: Date.now() });
    // the engine was built without a cache: the next check sees the new row
    const refused = await refusal(e.admit(call(alice)));
    expect(refused.policy).toEqual({ id: 'tokens', kind: 'monthlyTokens', limit: 1000 });
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil((nextMonth - Date.now()) / 1000) + 1);
    // budgets bind sends only; a read passes
    await e.admit(call(alice, { sends: false }));
    // last month's spending does not count
    const carol: Principal = { subject: 'carol', authenticated: true, scopes: [], usecase: 'finance' };
    spend.rows.push({ dims: { usecase: 'finance' }, tokens: 0, cost: 50, at: Date.UTC(2000, 0, 1) });
    await e.admit(call(carol));
    spend.rows.push({ dims: { usecase: 'finance' }, tokens: 0, cost: 5, at: Date.now() });
    expect((await refusal(e.admit(call(carol)))).policy.kind).toBe('monthlyCost');
  });

  it('takes nothing from any quota when one refuses', async () => {
    const e = await engine([
      { id: 'roomy', per: ['subject'], requests: { limit: 10, window: 60_000 } },
      { id: 'tight', per: ['subject'], concurrentTasks: 1 },
    ]);
    await e.admit(call(alice));
    await refusal(e.admit(call(alice)));
    const left = await e.remaining(alice);
    expect(left.find((r) => r.quotaId === 'roomy')).toMatchObject({ kind: 'requests', limit: 10, remaining: 9 });
    expect(left.find((r) => r.quotaId === 'tight')).toMatchObject({ kind: 'concurrentTasks', limit: 1, remaining: 0 });
  });

  it('records each refusal in the audit log', async () => {
    const audit: AuditEvent[] = [];
    const e = await engine([{ id: 'one', per: ['key'], requests: { limit: 1, window: 60_000 } }], { audit });
    await e.admit(call(alice));
    await refusal(e.admit(call(alice)));
    expect(audit).toEqual([
      {
        action: 'quota.refused',
        outcome: 'denied',
        actor: 'alice',
        actorClient: 'k-alice',
        target: 'agent:echo',
        details: { quotaId: 'one', kind: 'requests', limit: 1, retryAfterSeconds: expect.any(Number), operation: 'SendMessage' },
      },
    ]);
  });

  it('reports what remains of each quota that applies to a principal', async () => {
    const spend = new ListSpend();
    spend.rows.push({ dims: { key: 'k-alice' }, tokens: 400, cost: 0, at: Date.now() });
    const e = await engine(
      [
        { id: 'rpm', per: ['key'], requests: { limit: 5, window: 60_000 }, monthlyTokens: 1000 },
        { id: 'others', match: { subject: 'bob' }, requests: { limit: 5, window: 60_000 } },
      ],
      { spend },
    );
    const before = await e.remaining(alice);
    expect(before).toEqual([
      { quotaId: 'rpm', kind: 'requests', limit: 5, remaining: 5 },
      { quotaId: 'rpm', kind: 'monthlyTokens', limit: 1000, remaining: 600, resetAt: expect.any(String) },
    ]);
    await e.admit(call(alice));
    const after = await e.remaining(alice);
    expect(after[0]).toMatchObject({ quotaId: 'rpm', kind: 'requests', remaining: 4 });
    expect(Date.parse(after[0]!.resetAt!)).toBeGreaterThan(Date.now());
  });

  it('is idle with no quotas, and a call then passes untouched', async () => {
    const e = await engine([]);
    expect(e.idle).toBe(true);
    expect(await e.admit(call(alice))).toBeUndefined();
  });
});

describe('quota configuration', () => {
  it('refuses a quota without a limit, and two quotas with one id', () => {
    expect(() => quotas([{ id: 'nothing' }])).toThrow(/at least one of requests/);
    expect(() =>
      quotas([
        { id: 'a', concurrentTasks: 1 },
        { id: 'a', concurrentTasks: 2 },
      ]),
    ).toThrow(/used twice/);
  });

  it('keeps buckets of different `per` values apart even when a value holds a slash', async () => {
    const e = new QuotaEngine({ book: new QuotaBook({ config: quotas([{ id: 'q', per: ['subject', 'usecase'], requests: { limit: 1, window: 60_000 } }]) }), counters: new LocalQuotaCounters() });
    const a: Principal = { subject: 'x/y', authenticated: true, scopes: [], usecase: 'z' };
    const b: Principal = { subject: 'x', authenticated: true, scopes: [], usecase: 'y/z' };
    await e.admit(call(a));
    // a shared bucket ('x/y' + 'z' against 'x' + 'y/z') would refuse this one
    await e.admit(call(b));
  });
});

describe('quota engine without its counters', () => {
  it('refuses a call a quota applies to with Unavailable when Redis cannot be reached, and passes the others', async () => {
    const counters = await openRedisQuotaCounters({ url: SHARED_REDIS_URL, prefix: uniquePrefix(), replicaId: 'gone' });
    await counters.close();
    const e = new QuotaEngine({ book: new QuotaBook({ config: quotas([{ id: 'q', match: { subject: 'alice' }, requests: { limit: 5, window: 60_000 } }]) }), counters });
    await expect(e.admit(call(alice))).rejects.toMatchObject({ kind: 'Unavailable' });
    expect(await e.admit(call(bob))).toBeUndefined();
  });
});
