/**
 * Opening Redis buses for tests: each gets a channel prefix of its own, so test files running in
 * parallel against the shared Redis never see each other's messages.
 */
import { randomUUID } from 'node:crypto';
import { openRedisEventBus, type RedisEventBus, type RedisEventBusLog } from '../../src/bus/redis/index.js';
import type { EventLogReader, RedisEventBusOptions } from '../../src/bus/redis/index.js';

export const SHARED_REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const uniquePrefix = (): string => `agentport-test:${randomUUID()}`;

/** Collects what the bus logs, so tests stay quiet and can look at it. */
export class CollectingLog implements RedisEventBusLog {
  readonly entries: { level: 'info' | 'warn' | 'error'; obj: object; msg?: string }[] = [];
  info(obj: object, msg?: string): void {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: object, msg?: string): void {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: object, msg?: string): void {
    this.entries.push({ level: 'error', obj, msg });
  }
  messages(level: 'info' | 'warn' | 'error'): string[] {
    return this.entries.filter((e) => e.level === level).map((e) => e.msg ?? '');
  }
}

export interface TestBusOptions {
  replicaId: string;
  prefix: string;
  readEvents?: EventLogReader;
  url?: string;
  log?: RedisEventBusLog;
  pollWhileDownMs?: number;
  listenerCheckMs?: number;
  metrics?: RedisEventBusOptions['metrics'];
}

export function openTestBus(o: TestBusOptions): Promise<RedisEventBus> {
  return openRedisEventBus({
    url: o.url ?? SHARED_REDIS_URL,
    replicaId: o.replicaId,
    prefix: o.prefix,
    readEvents: o.readEvents ?? (async () => []),
    log: o.log ?? new CollectingLog(),
    pollWhileDownMs: o.pollWhileDownMs,
    listenerCheckMs: o.listenerCheckMs,
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
}
