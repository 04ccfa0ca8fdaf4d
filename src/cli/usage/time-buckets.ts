/**
 * The UTC time buckets a window spans, for the sparkline of `agentport usage`: the same bucket
 * starts the server reports (`bucketStart`), so a group's series is filled in by looking them up.
 */
import type { UsageTimeBucket } from '../../store/usage-record.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The bucket drawn when none is asked: hourly up to two days, daily up to about three months, then monthly. */
export function sparkBucket(from: number, to: number): UsageTimeBucket {
  const span = to - from;
  if (span <= 2 * DAY) return 'hour';
  // A day per character stops being readable past a terminal's width.
  return span <= 92 * DAY ? 'day' : 'month';
}

export function bucketFloor(time: number, bucket: UsageTimeBucket): number {
  const d = new Date(time);
  if (bucket === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  if (bucket === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Math.floor(time / HOUR) * HOUR;
}

function next(start: number, bucket: UsageTimeBucket): number {
  if (bucket === 'hour') return start + HOUR;
  const d = new Date(start);
  return bucket === 'day' ? start + DAY : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The starts of every bucket that overlaps [from, to). */
export function bucketStarts(from: number, to: number, bucket: UsageTimeBucket): number[] {
  const out: number[] = [];
  for (let t = bucketFloor(from, bucket); t < to; t = next(t, bucket)) out.push(t);
  return out;
}
