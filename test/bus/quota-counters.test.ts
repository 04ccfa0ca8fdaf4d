/**
 * The quota counters' contract (src/bus/quota-counters.ts), on both implementations: in-process and
 * Redis (real, shared with other test files through a prefix of its own). With Redis, two counter
 * instances stand for two replicas.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalQuotaCounters } from '../../src/bus/local-quota-counters.js';
import type { QuotaCounters } from '../../src/bus/quota-counters.js';
import { openRedisQuotaCounters, type RedisQuotaCounters } from '../../src/bus/redis/redis-quota-counters.js';
import { waitFor } from '../support/cluster.js';
import { SHARED_REDIS_URL, uniquePrefix } from './redis-bus-fixtures.js';

const opened: RedisQuotaCounters[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
});

async function redisPair(): Promise<[QuotaCounters, QuotaCounters]> {
  const prefix = uniquePrefix();
  const a = await openRedisQuotaCounters({ url: SHARED_REDIS_URL, prefix, replicaId: 'a' });
  const b = await openRedisQuotaCounters({ url: SHARED_REDIS_URL, prefix, replicaId: 'b' });
  opened.push(a, b);
  return [a, b];
}

function localPair(): [QuotaCounters, QuotaCounters] {
  const c = new LocalQuotaCounters();
  return [c, c];
}

const backends: Array<[string, () => Promise<[QuotaCounters, QuotaCounters]> | [QuotaCounters, QuotaCounters]]> = [
  ['local', localPair],
  ['redis', redisPair],
];

describe.each(backends)('quota counters (%s)', (_name, pair) => {
  it('admits exactly `limit` takes of a window when many race from two replicas', async () => {
    const [a, b] = await pair();
    const w = { key: `w-${randomUUID()}`, limit: 10, windowMs: 60_000 };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take([w], [], randomUUID())));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(30);
    for (const r of refused) {
      if (r.ok) continue;
      expect(r.index).toBe(0);
      expect(r.retryMs).toBeGreaterThan(0);
      expect(r.retryMs).toBeLessThanOrEqual(60_000);
    }
    expect((await a.peekWindow(w.key)).count).toBe(10);
  });

  it('takes from every counter or from none: a full window leaves the other untouched', async () => {
    const [a] = await pair();
    const open = { key: `w-${randomUUID()}`, limit: 5, windowMs: 60_000 };
    const full = { key: `w-${randomUUID()}`, limit: 1, windowMs: 60_000 };
    expect((await a.take([full], [], randomUUID())).ok).toBe(true);
    const r = await a.take([open, full], [], randomUUID());
    expect(r).toMatchObject({ ok: false, index: 1 });
    expect((await a.peekWindow(open.key)).count).toBe(0);
  });

  it('reports the count and the time to reset of each window taken', async () => {
    const [a] = await pair();
    const w = { key: `w-${randomUUID()}`, limit: 3, windowMs: 30_000 };
    await a.take([w], [], randomUUID());
    const r = await a.take([w], [], randomUUID());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.windows[0]!.count).toBe(2);
    expect(r.windows[0]!.resetMs).toBeGreaterThan(0);
    expect(r.windows[0]!.resetMs).toBeLessThanOrEqual(30_000);
  });

  it('opens a fresh window once the last one expired', async () => {
    const [a, b] = await pair();
    const w = { key: `w-${randomUUID()}`, limit: 1, windowMs: 1_000 };
    expect((await a.take([w], [], randomUUID())).ok).toBe(true);
    const refused = await b.take([w], [], randomUUID());
    expect(refused.ok).toBe(false);
    await waitFor(async () => (await b.take([w], [], randomUUID())).ok, { timeoutMs: 5_000, intervalMs: 100, what: 'the window to reset' });
  });

  it('holds at most `limit` slots across replicas, and a released slot is free again', async () => {
    const [a, b] = await pair();
    const s = { key: `s-${randomUUID()}`, limit: 2, leaseMs: 60_000 };
    const l1 = randomUUID();
    const l2 = randomUUID();
    expect((await a.take([], [s], l1)).ok).toBe(true);
    expect((await b.take([], [s], l2)).ok).toBe(true);
    expect(await a.take([], [s], randomUUID())).toMatchObject({ ok: false, index: 0 });
    expect(await b.peekSlots(s.key)).toBe(2);
    await a.release([s.key], l1);
    expect(await b.peekSlots(s.key)).toBe(1);
    expect((await b.take([], [s], randomUUID())).ok).toBe(true);
  });

  // Pins: a renewal extends only a live lease. A renewal that re-adds a released lease (ZADD
  // without XX, or a local set without the has-check) takes the slot back from the call that got it.
  it('a renewal after a release does not take the slot back', async () => {
    const [a, b] = await pair();
    const s = { key: `s-${randomUUID()}`, limit: 1, leaseMs: 60_000 };
    const released = randomUUID();
    expect((await a.take([], [s], released)).ok).toBe(true);
    await a.release([s.key], released);
    // The renewal timer of the finished call fires once more, late.
    await a.renew([s.key], released, 60_000);
    expect(await b.peekSlots(s.key)).toBe(0);
    expect((await b.take([], [s], randomUUID())).ok).toBe(true);
  });

  // Pins: a renewal does not revive a lease that already expired. In Redis an expired lease stays
  // in the sorted set until the next take sweeps it, so `ZADD XX` alone would extend it again.
  // A second, longer lease keeps the set itself from expiring, as a busy counter's set does.
  it('a renewal after the lease expired does not take the slot back', async () => {
    const [a, b] = await pair();
    const key = `s-${randomUUID()}`;
    const expired = randomUUID();
    expect((await a.take([], [{ key, limit: 2, leaseMs: 200 }], expired)).ok).toBe(true);
    expect((await b.take([], [{ key, limit: 2, leaseMs: 60_000 }], randomUUID())).ok).toBe(true);
    await waitFor(async () => (await b.peekSlots(key)) === 1, { timeoutMs: 5_000, intervalMs: 50, what: 'the short lease to expire' });
    await a.renew([key], expired, 60_000);
    expect(await b.peekSlots(key)).toBe(1);
    expect((await b.take([], [{ key, limit: 2, leaseMs: 60_000 }], randomUUID())).ok).toBe(true);
  });

  it('frees a slot whose lease was not renewed (a replica that died), and keeps one that was', async () => {
    const [a, b] = await pair();
    const s = { key: `s-${randomUUID()}`, limit: 1, leaseMs: 300 };
    const kept = { key: `s-${randomUUID()}`, limit: 1, leaseMs: 300 };
    const keptLease = randomUUID();
    expect((await a.take([], [s], randomUUID())).ok).toBe(true);
    expect((await a.take([], [kept], keptLease)).ok).toBe(true);
    const renew = setInterval(() => void a.renew([kept.key], keptLease, 300), 50);
    try {
      await waitFor(async () => (await b.take([], [s], randomUUID())).ok, { timeoutMs: 5_000, intervalMs: 50, what: 'the dead lease to expire' });
      // The renewed lease outlived the dead one's: it still holds its counter.
      expect((await b.take([], [kept], randomUUID())).ok).toBe(false);
    } finally {
      clearInterval(renew);
    }
  });
});

// The in-process counters on a fake clock: peekSlots sweeps expired leases, so the case where a
// renewal meets an expired lease before any sweep needs the clock moved without a peek.
describe('quota counters (local, fake clock)', () => {
  it('a renewal after the lease expired, before any sweep, does not take the slot back', async () => {
    let now = 1_000_000;
    const c = new LocalQuotaCounters(() => now);
    const s = { key: 's', limit: 1, leaseMs: 1_000 };
    expect((await c.take([], [s], 'old')).ok).toBe(true);
    now += 1_000; // expiry is exclusive: at exactly now + leaseMs the lease is gone
    await c.renew([s.key], 'old', 1_000);
    expect((await c.take([], [s], 'new')).ok).toBe(true);
  });

  it('a renewal of a live lease keeps it past its first expiry', async () => {
    let now = 1_000_000;
    const c = new LocalQuotaCounters(() => now);
    const s = { key: 's', limit: 1, leaseMs: 1_000 };
    expect((await c.take([], [s], 'held')).ok).toBe(true);
    now += 999;
    await c.renew([s.key], 'held', 1_000);
    now += 999;
    expect(await c.take([], [s], 'other')).toEqual({ ok: false, index: 0, retryMs: 1 });
  });
});
