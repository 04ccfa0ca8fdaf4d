/**
 * The UsageStore over Kysely, shared by both dialects. Reads and prune are single statements;
 * `write` and each rollup step are transactions, which each dialect runs its own way (SQLite:
 * synchronously, so nothing interleaves; PostgreSQL: a transaction holding the watermark row).
 *
 * Only final records count: a running task's record is dated at its creation until its terminal
 * commit re-dates it, and rollups take final records only, so counting non-final raw rows would
 * make an answer change when its hours are rolled up.
 *
 * A record written or amended after its hour was rolled up (clock skew between replicas, a call
 * queue that flushed late) is not in the rollup; the caller rolls up hours that closed a grace
 * period ago (`closedBefore` = now minus a few minutes) so this does not happen in practice.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UsageAmend, UsageGroup, UsageQuery, UsageRecord } from '../usage-record.js';
import type { UsageStore } from '../usage-store.js';
import { runQuery } from './usage-query.js';
import { fromUsageRow } from './usage-rows.js';
import { HOUR_MS } from './usage-sql.js';

/** Hours rolled up per transaction: a backlog is worked off without holding a write lock for long. */
export const ROLLUP_HOURS_PER_STEP = 24;

/** What one rollup transaction did: the watermark moved from `from` to `to` (hours it covered). */
export interface RollupStep {
  hours: number;
  done: boolean;
}

export abstract class SqlUsageStore implements UsageStore {
  protected constructor(protected readonly db: Kysely<Database>) {}

  abstract write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void>;

  /** One transaction: rolls up the next hours (at most ROLLUP_HOURS_PER_STEP) ending before `end`. */
  protected abstract rollupStep(end: number): Promise<RollupStep>;

  async query(q: UsageQuery): Promise<UsageGroup[]> {
    return runQuery(this.db, q, await this.rolledUntil());
  }

  async rollup(closedBefore: number): Promise<number> {
    const end = Math.floor(closedBefore / HOUR_MS) * HOUR_MS;
    let hours = 0;
    for (;;) {
      const step = await this.rollupStep(end);
      hours += step.hours;
      if (step.done) return hours;
    }
  }

  async prune(before: number): Promise<number> {
    const raw = await this.db.deleteFrom('usage_records').where('time', '<', before).executeTakeFirst();
    // Only hours that ended by `before`: a rollup row stands for its whole hour.
    await this.db
      .deleteFrom('usage_hourly')
      .where('hour', '<=', before - HOUR_MS)
      .execute();
    return Number(raw.numDeletedRows);
  }

  /** Every final record dated before this (epoch ms, a whole hour) is in usage_hourly. */
  async rolledUntil(): Promise<number> {
    const row = await this.db.selectFrom('usage_rollup_state').select('rolled_until').where('id', '=', 'hourly').executeTakeFirst();
    return Number(row?.rolled_until ?? 0);
  }

  /** One raw record as stored (tests, exports). */
  async get(id: string): Promise<UsageRecord | undefined> {
    const row = await this.db.selectFrom('usage_records').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromUsageRow(row) : undefined;
  }
}

/**
 * The next rollup step's hours, given the watermark and the first final record at or after it:
 * the watermark skips hours without records; the first rollup starts at the first record's hour.
 */
export function planRollupStep(rolledUntil: number, firstFinal: number | null, end: number): { start: number; stop: number; hours: number } | undefined {
  if (rolledUntil >= end) return undefined;
  if (firstFinal === null) return { start: end, stop: end, hours: rolledUntil === 0 ? 0 : (end - rolledUntil) / HOUR_MS };
  const start = Math.floor(firstFinal / HOUR_MS) * HOUR_MS;
  const stop = Math.min(start + ROLLUP_HOURS_PER_STEP * HOUR_MS, end);
  return { start, stop, hours: (stop - (rolledUntil === 0 ? start : rolledUntil)) / HOUR_MS };
}
