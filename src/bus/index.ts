export * from './event-bus.js';
export { InProcessEventBus, type InProcessEventBusOptions } from './in-process-bus.js';
export * from './redis/index.js';
