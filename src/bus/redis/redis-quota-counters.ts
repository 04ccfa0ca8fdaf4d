/**
 * Quota counters in Redis (distributed mode), shared by every replica. Each operation is one Lua
 * script, so check-and-take over several counters is atomic: no lost update, no replica admitting
 * past a limit. Times come from Redis's own clock (TIME), so replicas whose clocks differ still
 * agree on when a window ends or a lease expires.
 *
 * A window is a string key counting requests, with a PEXPIRE of the window set by its first take.
 * A slot counter is a sorted set of lease ids scored by their expiry; expired leases are removed
 * before counting, so a lease of a replica that died is gone after `leaseMs`.
 */
import type { Redis } from 'ioredis';
import type { QuotaCounters, SlotCounter, TakeResult, WindowCounter } from '../quota-counters.js';
import { closeConnection, createBusConnection, nextReady, RedisUnavailableError, withTimeout } from './connections.js';

/**
 * KEYS: the window keys, then the slot keys. ARGV: window count, slot count, lease id, then per
 * window its limit and window ms, then per slot its limit and lease ms.
 * Returns {1, count1, resetMs1, …} when taken, {0, index (0-based), retryMs} when refused.
 */
const TAKE = `
local nw, ns, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, nw do
  local limit = tonumber(ARGV[2 + 2 * i])
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= limit then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = 0 end
    return {0, i - 1, ttl}
  end
end
local base = 3 + 2 * nw
for j = 1, ns do
  local key, limit = KEYS[nw + j], tonumber(ARGV[base + 2 * j - 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if not redis.call('ZSCORE', key, lease) and redis.call('ZCARD', key) >= limit then
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return {0, nw + j - 1, tonumber(first[2]) - now}
  end
end
local out = {1}
for i = 1, nw do
  local windowMs = tonumber(ARGV[3 + 2 * i])
  local count = redis.call('INCR', KEYS[i])
  local ttl = redis.call('PTTL', KEYS[i])
  if count == 1 or ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], windowMs)
    ttl = windowMs
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
for j = 1, ns do
  local key, leaseMs = KEYS[nw + j], tonumber(ARGV[base + 2 * j])
  redis.call('ZADD', key, now + leaseMs, lease)
  -- every lease in the set expires by now + leaseMs, so the set may too
  redis.call('PEXPIRE', key, leaseMs)
end
return out
`;

/**
 * KEYS: slot keys. ARGV: lease id, lease ms. Only a live lease is extended: one that was released
 * (gone from the set) or has expired (still in the set until the next take sweeps it, its slot
 * already counted free) stays gone, so a late renewal never takes back a slot another call may hold.
 */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  local expiry = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if expiry and tonumber(expiry) > now then
    redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[2]), ARGV[1])
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[2]))
  end
end
return 1
`;

/** KEYS: one slot key. Live leases. */
const COUNT_SLOTS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

type Scripted = Redis & {
  quotaTake(...args: Array<string | number>): Promise<number[]>;
  quotaRenew(...args: Array<string | number>): Promise<number>;
  quotaCountSlots(key: string): Promise<number>;
};

export interface RedisQuotaCountersOptions {
  url: string;
  /** key prefix, so deployments can share a Redis (the bus's `prefix`); default 'agentport' */
  prefix?: string;
  replicaId: string;
  connectTimeoutMs?: number;
  log?: { warn(obj: object, msg?: string): void };
}

export class RedisQuotaCounters implements QuotaCounters {
  private readonly conn: Scripted;
  private readonly prefix: string;

  private constructor(o: RedisQuotaCountersOptions) {
    this.prefix = `${o.prefix ?? 'agentport'}:quota:`;
    const conn = createBusConnection({ url: o.url, name: `agentport:${o.replicaId}:quotas`, connectTimeoutMs: o.connectTimeoutMs ?? 5000 });
    conn.defineCommand('quotaTake', { lua: TAKE });
    conn.defineCommand('quotaRenew', { lua: RENEW });
    conn.defineCommand('quotaCountSlots', { lua: COUNT_SLOTS, numberOfKeys: 1 });
    // Errors reach the caller of each command; the connection retries by itself.
    conn.on('error', (err: unknown) => o.log?.warn({ err }, 'quota counters: Redis connection error'));
    this.conn = conn as Scripted;
  }

  static async open(o: RedisQuotaCountersOptions): Promise<RedisQuotaCounters> {
    const c = new RedisQuotaCounters(o);
    const timeout = o.connectTimeoutMs ?? 5000;
    try {
      c.conn.connect().catch(() => {});
      await withTimeout(nextReady(c.conn), timeout, 'connecting to Redis');
      return c;
    } catch (err) {
      await c.close();
      throw new RedisUnavailableError(o.url, timeout, err);
    }
  }

  async take(windows: readonly WindowCounter[], slots: readonly SlotCounter[], leaseId: string): Promise<TakeResult> {
    const keys = [...windows.map((w) => this.prefix + w.key), ...slots.map((s) => this.prefix + s.key)];
    const args: Array<string | number> = [windows.length, slots.length, leaseId];
    for (const w of windows) args.push(w.limit, w.windowMs);
    for (const s of slots) args.push(s.limit, s.leaseMs);
    const r = await this.conn.quotaTake(keys.length, ...keys, ...args);
    if (r[0] === 0) return { ok: false, index: r[1]!, retryMs: Math.max(0, r[2]!) };
    const out: Array<{ count: number; resetMs: number }> = [];
    for (let i = 0; i < windows.length; i++) out.push({ count: r[1 + 2 * i]!, resetMs: r[2 + 2 * i]! });
    return { ok: true, windows: out };
  }

  async renew(slotKeys: readonly string[], leaseId: string, leaseMs: number): Promise<void> {
    if (slotKeys.length === 0) return;
    await this.conn.quotaRenew(slotKeys.length, ...slotKeys.map((k) => this.prefix + k), leaseId, leaseMs);
  }

  async release(slotKeys: readonly string[], leaseId: string): Promise<void> {
    if (slotKeys.length === 0) return;
    const multi = this.conn.multi();
    for (const k of slotKeys) multi.zrem(this.prefix + k, leaseId);
    await multi.exec();
  }

  async peekWindow(key: string): Promise<{ count: number; resetMs: number }> {
    const [[, count], [, ttl]] = (await this.conn
      .multi()
      .get(this.prefix + key)
      .pttl(this.prefix + key)
      .exec()) as [[unknown, string | null], [unknown, number]];
    return count === null || ttl <= 0 ? { count: 0, resetMs: 0 } : { count: Number(count), resetMs: ttl };
  }

  async peekSlots(key: string): Promise<number> {
    return this.conn.quotaCountSlots(this.prefix + key);
  }

  async close(): Promise<void> {
    await closeConnection(this.conn);
  }
}

export function openRedisQuotaCounters(o: RedisQuotaCountersOptions): Promise<RedisQuotaCounters> {
  return RedisQuotaCounters.open(o);
}
