/**
 * Composes the quota engine of a replica (core/quotas): counters in Redis when replicas share a bus
 * (bus.driver: redis), else in this process; quotas from the configuration and the database.
 * Monthly budgets need `spend` (the usage store) and refusals reach the audit log through `audit`.
 */
import { LocalQuotaCounters, openRedisQuotaCounters, type QuotaCounters } from '../bus/index.js';
import type { Config } from '../config/config.js';
import type { AuditSink } from '../core/audit/audit-event.js';
import { CachedMonthlySpend, type MonthlySpend } from '../core/quotas/monthly-spend.js';
import { QuotaBook } from '../core/quotas/quota-book.js';
import { QuotaEngine } from '../core/quotas/quota-engine.js';
import type { QuotaStore } from '../store/quota-store.js';
import { StartFailure } from './start-failure.js';
import type { Metrics } from '../observability/metrics/index.js';

export interface Quotas {
  book: QuotaBook;
  engine: QuotaEngine;
  close(): Promise<void>;
}

export async function openQuotas(config: Config, store: QuotaStore, o: { log: { warn(obj: object, msg?: string): void }; spend?: MonthlySpend; audit?: AuditSink; metrics?: Metrics }): Promise<Quotas> {
  let counters: QuotaCounters;
  let close = async (): Promise<void> => {};
  if (config.bus.driver === 'redis') {
    const redis = await openRedisQuotaCounters({ url: config.bus.url, prefix: config.bus.prefix, replicaId: config.cluster.replicaId, log: o.log }).catch((error: unknown) => {
      throw new StartFailure(
        'the quota counters in Redis (bus.url)',
        `are unreachable: ${error instanceof Error ? error.message : String(error)}`,
        'check bus.url and that Redis is up and reachable from here',
        'environment',
        { cause: error },
      );
    });
    counters = redis;
    close = () => redis.close();
  } else {
    counters = new LocalQuotaCounters();
  }
  const book = new QuotaBook({ config: config.quotas, store, log: o.log });
  const engine = new QuotaEngine({
    book,
    counters,
    ...(o.spend ? { spend: new CachedMonthlySpend(o.spend) } : {}),
    ...(o.audit ? { audit: o.audit } : {}),
    ...(o.metrics ? { metrics: o.metrics } : {}),
    log: o.log,
  });
  return { book, engine, close };
}
