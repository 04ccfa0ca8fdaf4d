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
import { TASK_USAGE_COLUMNS } from './task-usage-columns.js';
import { fromUsageRow } from './usage-rows.js';
import { DAILY, HOURLY, rolledUntilOf, type RollupLevel } from './usage-sql.js';

/** What one rollup transaction did: how many units (hours, days) it newly covered, and whether it reached the end. */
export interface RollupStep {
  units: number;
  done: boolean;
}

export abstract class SqlUsageStore implements UsageStore {
  protected constructor(protected readonly db: Kysely<Database>) {}

  abstract write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void>;

  /** One transaction: rolls up the level's next units (at most unitsPerStep) ending before `end`. */
  protected abstract rollupStep(level: RollupLevel, end: number): Promise<RollupStep>;

  async query(q: UsageQuery): Promise<UsageGroup[]> {
    const [hourly, daily] = await Promise.all([this.rolledUntil(HOURLY), this.rolledUntil(DAILY)]);
    return runQuery(this.db, q, hourly, daily);
  }

  /** Hourly rollups up to closedBefore's hour, then daily rollups of the days they completed; returns the hours. */
  async rollup(closedBefore: number): Promise<number> {
    const hours = await this.rollupLevel(HOURLY, Math.floor(closedBefore / HOURLY.unit) * HOURLY.unit);
    const hourly = await this.rolledUntil(HOURLY);
    await this.rollupLevel(DAILY, Math.floor(hourly / DAILY.unit) * DAILY.unit);
    return hours;
  }

  private async rollupLevel(level: RollupLevel, end: number): Promise<number> {
    let units = 0;
    for (;;) {
      const step = await this.rollupStep(level, end);
      units += step.units;
      if (step.done) return units;
    }
  }

  async prune(before: number): Promise<number> {
    const raw = await this.db.deleteFrom('usage_records').where('time', '<', before).executeTakeFirst();
    const tasks = await this.pruneTaskRecords(before);
    // Only hours and days that ended by `before`: a rollup row stands for its whole unit.
    await this.db
      .deleteFrom('usage_hourly')
      .where('hour', '<=', before - HOURLY.unit)
      .execute();
    await this.db
      .deleteFrom('usage_daily')
      .where('day', '<=', before - DAILY.unit)
      .execute();
    return Number(raw.numDeletedRows) + tasks;
  }

  /**
   * A task's record lives in its task row (migration 0023), which outlives it: its timing row is
   * deleted and its usage columns emptied, so the view no longer shows it.
   */
  private async pruneTaskRecords(before: number): Promise<number> {
    await this.db
      .deleteFrom('task_usage_timing')
      .where('id', 'in', (eb) => eb.selectFrom('tasks').select('id').where('usage_time', '<', before))
      .execute();
    const emptied = Object.fromEntries(TASK_USAGE_COLUMNS.map((c) => [c, null]));
    const r = await this.db.updateTable('tasks').set(emptied).where('usage_time', '<', before).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Everything dated before this (epoch ms, a whole unit) is in the level's table. */
  async rolledUntil(level: RollupLevel = HOURLY): Promise<number> {
    const { rows } = await rolledUntilOf(level).execute(this.db);
    return Number(rows[0]?.rolled_until ?? 0);
  }

  /** One raw record as stored (tests, exports). */
  async get(id: string): Promise<UsageRecord | undefined> {
    const row = await this.db.selectFrom('usage_records_all').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromUsageRow(row) : undefined;
  }
}

/**
 * The next rollup step, given the level's watermark and the first source time at or after it:
 * the watermark skips units without data; the first rollup starts at the first data's unit.
 */
export function planRollupStep(level: RollupLevel, rolledUntil: number, first: number | null, end: number): { start: number; stop: number; units: number } | undefined {
  if (rolledUntil >= end) return undefined;
  if (first === null) return { start: end, stop: end, units: rolledUntil === 0 ? 0 : (end - rolledUntil) / level.unit };
  const start = Math.floor(first / level.unit) * level.unit;
  const stop = Math.min(start + level.unitsPerStep * level.unit, end);
  return { start, stop, units: (stop - (rolledUntil === 0 ? start : rolledUntil)) / level.unit };
}
