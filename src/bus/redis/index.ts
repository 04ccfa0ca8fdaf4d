/**
 * The Redis bus and quota counters, opened on demand: the Redis client (ioredis) and the modules
 * that use it are loaded when a Redis bus is configured, not by every start that reaches the bus's
 * index (issue 26, suite time: every `agentport serve` child paid for them).
 */
import type { RedisEventBus, RedisEventBusOptions } from './redis-event-bus.js';
import type { RedisQuotaCounters, RedisQuotaCountersOptions } from './redis-quota-counters.js';

export type { RedisEventBus, RedisEventBusLog, RedisEventBusOptions } from './redis-event-bus.js';
export { RedisUnavailableError } from './unavailable-error.js';
export type { EventLogReader } from './ordered-subscription.js';
export type { RedisQuotaCounters, RedisQuotaCountersOptions } from './redis-quota-counters.js';

export async function openRedisEventBus(opts: RedisEventBusOptions): Promise<RedisEventBus> {
  const { openRedisEventBus: open } = await import('./redis-event-bus.js');
  return open(opts);
}

export async function openRedisQuotaCounters(opts: RedisQuotaCountersOptions): Promise<RedisQuotaCounters> {
  const { openRedisQuotaCounters: open } = await import('./redis-quota-counters.js');
  return open(opts);
}
