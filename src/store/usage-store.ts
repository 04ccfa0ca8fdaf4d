/**
 * Usage records in the database (issue 13): raw rows, hourly rollups, retention. A task's record is
 * written by `Store.commit` (TaskCommit.usage) in the same transaction as its events; everything
 * else arrives here in batches from the call queue (src/core/usage/).
 */
import type { UsageAmend, UsageGroup, UsageQuery, UsageRecord } from './usage-record.js';

export interface UsageStore {
  /**
   * Call records (kind 'call', inserted; an id already present is skipped) and amends (UPDATE of
   * the timing/size columns of an existing row; a missing id is ignored), in one transaction.
   */
  write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void>;
  /**
   * Groups over raw rows and rollups: closed rolled-up hours from `usage_hourly`, the rest from raw rows.
   * Counts final records only (a running task's record counts once its terminal commit makes it final).
   */
  query(q: UsageQuery): Promise<UsageGroup[]>;
  /** Aggregates every not-yet-rolled-up hour that ended before `closedBefore` (epoch ms); returns how many hours. */
  rollup(closedBefore: number): Promise<number>;
  /** Deletes raw rows and rollups dated before `before`; returns how many raw rows went. */
  prune(before: number): Promise<number>;
}
