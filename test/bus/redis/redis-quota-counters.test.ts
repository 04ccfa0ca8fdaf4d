/**
 * What the Redis quota counters (src/bus/redis/redis-quota-counters.ts) add to the shared contract
 * of test/bus/quota-counters.test.ts: where their keys live, the connection's name, several windows
 * reported in order, a slot refusal's wait, a window never taken, and a Redis that is not there.
 * Real Redis on 127.0.0.1:6379; keys are unique per test and removed after.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../../src/bus/redis/connections.js';
import { openRedisQuotaCounters, type RedisQuotaCounters } from '../../../src/bus/redis/redis-quota-counters.js';
import { SHARED_REDIS_URL, uniquePrefix } from '../redis-bus-fixtures.js';

const raw = new Redis(SHARED_REDIS_URL, { lazyConnect: true });
const opened: RedisQuotaCounters[] = [];
const rawKeys: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  if (rawKeys.length > 0) await raw.del(...rawKeys);
  raw.disconnect();
});

async function open(o: { prefix?: string; replicaId?: string } = {}): Promise<RedisQuotaCounters> {
  const c = await openRedisQuotaCounters({ url: SHARED_REDIS_URL, prefix: uniquePrefix(), replicaId: 'r', ...o });
  opened.push(c);
  return c;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Redis quota counters', () => {
  it('keeps its counters under `<prefix>:quota:`, with `agentport` as the default prefix', async () => {
    const key = `w-${randomUUID()}`;
    rawKeys.push(`agentport:quota:${key}`);
    const byDefault = await open({ prefix: undefined });
    expect((await byDefault.take([{ key, limit: 5, windowMs: 60_000 }], [], randomUUID())).ok).toBe(true);
    expect(await raw.get(`agentport:quota:${key}`)).toBe('1');

    const prefix = uniquePrefix();
    const prefixed = await open({ prefix });
    const slot = `s-${randomUUID()}`;
    rawKeys.push(`${prefix}:quota:${key}`, `${prefix}:quota:${slot}`);
    expect((await prefixed.take([{ key, limit: 5, windowMs: 60_000 }], [{ key: slot, limit: 1, leaseMs: 60_000 }], 'lease-1')).ok).toBe(true);
    expect(await raw.get(`${prefix}:quota:${key}`)).toBe('1');
    expect(await raw.zrange(`${prefix}:quota:${slot}`, 0, -1)).toEqual(['lease-1']);
    await prefixed.release([slot], 'lease-1');
    expect(await raw.exists(`${prefix}:quota:${slot}`)).toBe(0);
  });

  it('names its connection after the replica, for CLIENT LIST', async () => {
    const replicaId = `replica-${randomUUID()}`;
    await open({ replicaId });
    const clients = (await raw.client('LIST')) as string;
    expect(clients).toContain(`name=agentport:${replicaId}:quotas `);
  });

  it('reports each window taken in order, with its own count and reset', async () => {
    const c = await open();
    const short = { key: `w-${randomUUID()}`, limit: 5, windowMs: 10_000 };
    const long = { key: `w-${randomUUID()}`, limit: 5, windowMs: 600_000 };
    await c.take([long], [], randomUUID());
    const r = await c.take([short, long], [], randomUUID());
    if (!r.ok) throw new Error('refused');
    expect(r.windows.map((w) => w.count)).toEqual([1, 2]);
    expect(r.windows[0]!.resetMs).toBe(10_000);
    expect(r.windows[1]!.resetMs).toBeGreaterThan(10_000);
    expect(r.windows[1]!.resetMs).toBeLessThanOrEqual(600_000);
  });

  it('refuses a full slot counter with the wait until its first lease expires, counted after the windows', async () => {
    const c = await open();
    const w = { key: `w-${randomUUID()}`, limit: 5, windowMs: 60_000 };
    const s = { key: `s-${randomUUID()}`, limit: 1, leaseMs: 30_000 };
    expect((await c.take([w], [s], 'holder')).ok).toBe(true);
    const r = await c.take([w], [s], 'other');
    if (r.ok) throw new Error('admitted past the slot limit');
    expect(r.index).toBe(1);
    expect(r.retryMs).toBeGreaterThan(0);
    expect(r.retryMs).toBeLessThanOrEqual(30_000);
    // the holder itself is not refused by its own lease
    expect((await c.take([], [s], 'holder')).ok).toBe(true);
  });

  it('peeks a window never taken as empty, not reset', async () => {
    const c = await open();
    expect(await c.peekWindow(`w-${randomUUID()}`)).toEqual({ count: 0, resetMs: 0 });
    expect(await c.peekSlots(`s-${randomUUID()}`)).toBe(0);
  });

  it('reads a window key left without an expiry as not open, and its next take gives it one', async () => {
    const prefix = uniquePrefix();
    const c = await open({ prefix });
    const key = `w-${randomUUID()}`;
    rawKeys.push(`${prefix}:quota:${key}`);
    await raw.set(`${prefix}:quota:${key}`, '3');
    expect(await c.peekWindow(key)).toEqual({ count: 0, resetMs: 0 });
    expect(await c.take([{ key, limit: 10, windowMs: 20_000 }], [], randomUUID())).toEqual({ ok: true, windows: [{ count: 4, resetMs: 20_000 }] });
    expect((await c.peekWindow(key)).count).toBe(4);
  });

  it('a renewal moves a live lease’s expiry, and the set’s, to leaseMs from now', async () => {
    const prefix = uniquePrefix();
    const c = await open({ prefix });
    const key = `s-${randomUUID()}`;
    rawKeys.push(`${prefix}:quota:${key}`);
    expect((await c.take([], [{ key, limit: 1, leaseMs: 2_000 }], 'held')).ok).toBe(true);
    expect(await raw.pttl(`${prefix}:quota:${key}`)).toBeLessThanOrEqual(2_000);
    const [sec, usec] = await raw.time();
    const before = Number(sec) * 1000 + Math.floor(Number(usec) / 1000); // Redis's clock, the one the scripts read
    await c.renew([key], 'held', 600_000);
    const expiry = Number(await raw.zscore(`${prefix}:quota:${key}`, 'held'));
    expect(expiry).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiry).toBeLessThan(before + 610_000);
    expect(await raw.pttl(`${prefix}:quota:${key}`)).toBeGreaterThan(590_000);
  });

  it('renews and releases nothing when given no slot', async () => {
    const c = await open();
    await expect(c.renew([], 'l', 1_000)).resolves.toBeUndefined();
    await expect(c.release([], 'l')).resolves.toBeUndefined();
  });

  it('fails to open on a Redis that is not there, within its timeout, and logs the connection errors', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const warnings: Array<[object, string | undefined]> = [];
    const err = await openRedisQuotaCounters({ url, replicaId: 'r', connectTimeoutMs: 300, log: { warn: (obj, msg) => warnings.push([obj, msg]) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toContain(`cannot reach Redis at ${url} within 300 ms`);
    expect(warnings.length).toBeGreaterThan(0);
    expect(new Set(warnings.map(([, msg]) => msg))).toEqual(new Set(['quota counters: Redis connection error']));
    expect((warnings[0]![0] as { err: Error }).err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('(connecting to Redis timed out after 300 ms)');
  });

  it('fails to open on a Redis that is not there without a logger, throwing nothing else', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      await expect(openRedisQuotaCounters({ url, replicaId: 'r', connectTimeoutMs: 300 })).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
