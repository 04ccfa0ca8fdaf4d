export * from './event-bus.js';
export { InProcessEventBus, type InProcessEventBusOptions } from './in-process-bus.js';
export * from './redis/index.js';
export type { QuotaCounters, SlotCounter, TakeResult, WindowCounter } from './quota-counters.js';
export { LocalQuotaCounters } from './local-quota-counters.js';
