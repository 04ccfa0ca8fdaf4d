export { openRedisEventBus, RedisEventBus, type RedisEventBusLog, type RedisEventBusOptions } from './redis-event-bus.js';
export { RedisUnavailableError } from './connections.js';
export type { EventLogReader } from './ordered-subscription.js';
export { openRedisQuotaCounters, RedisQuotaCounters, type RedisQuotaCountersOptions } from './redis-quota-counters.js';
