/**
 * OrderedSubscription over a real SQLite event log: what it does when the log fails, lags behind
 * Redis, or holds a long gap, and when a listener publishes from inside a delivery.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrderedSubscription, type EventLogReader } from '../../../src/bus/redis/ordered-subscription.js';
import type { TaskEventRecord } from '../../../src/store/store.js';
import { TaskLog } from '../task-log.js';
import { waitFor } from '../wait.js';

describe('OrderedSubscription', () => {
  let log: TaskLog;
  const t = 'task-1';
  beforeEach(async () => {
    log = await TaskLog.open();
    await log.create(t);
  });
  afterEach(async () => {
    await log.close();
  });

  function subscription(o: { readEvents?: EventLogReader; afterSeq?: number; listener?: (r: TaskEventRecord) => void; readErrors?: unknown[] } = {}): {
    sub: OrderedSubscription;
    got: number[];
  } {
    const got: number[] = [];
    const sub = new OrderedSubscription({
      taskId: t,
      listener: o.listener ?? ((r) => got.push(r.seq)),
      readEvents: o.readEvents ?? log.readEvents,
      afterSeq: o.afterSeq,
      retryDelayMs: 20,
      onListenerError: () => {},
      onReadError: (err) => o.readErrors?.push(err),
    });
    return { sub, got };
  }

  it('retries a failed log read after the delay, then delivers in order', async () => {
    let failures = 2;
    const readErrors: unknown[] = [];
    const readEvents: EventLogReader = async (...args) => {
      if (failures-- > 0) throw new Error('database unavailable');
      return log.readEvents(...args);
    };
    const { sub, got } = subscription({ readEvents, afterSeq: 1, readErrors });
    const records = await log.append(t, 3);
    sub.offer([records[2]!]); // 4: gap, the reads fail twice
    sub.offer([records[0]!]); // buffered while the fill waits to retry
    await waitFor('seq 4', () => got.includes(4));
    expect(got).toEqual([2, 3, 4]);
    expect(readErrors).toHaveLength(2);
  });

  it('waits instead of spinning when the log does not have the missing records yet (a lagging replica)', async () => {
    const [r2] = await log.append(t);
    const [r3] = await log.append(t);
    let lagging = true;
    let reads = 0;
    const readEvents: EventLogReader = async (taskId, after, limit) => {
      reads++;
      return lagging ? [] : log.readEvents(taskId, after, limit);
    };
    const { sub, got } = subscription({ readEvents, afterSeq: 1 });
    sub.offer([r3!]);
    const since = Date.now();
    await waitFor('three reads of the lagging log', () => reads >= 3);
    const readsAfter = reads;
    const elapsed = Date.now() - since;
    expect(got).toEqual([]);
    // one read per 20 ms retry (and the first at once), not a hot loop
    expect(readsAfter).toBeLessThanOrEqual(Math.ceil(elapsed / 20) + 2);
    lagging = false;
    await waitFor('seq 3', () => got.includes(3));
    sub.offer([r2!, r3!]);
    // Delivery is in order: once a later record is through, a re-delivery of 2 or 3 would be too.
    const [r4] = await log.append(t);
    sub.offer([r4!]);
    await waitFor('seq 4', () => got.includes(4));
    expect(got).toEqual([2, 3, 4]);
    sub.close();
  });

  it('fills a gap longer than one page of the log, in order', async () => {
    // A subscription reads the log only when an offer shows a gap: the 1200 records below are one.
    const { sub, got } = subscription({ afterSeq: 1 });
    await log.append(t, 1200);
    const [last] = await log.append(t);
    sub.offer([last!]);
    await waitFor('seq 1202', () => got.includes(1202));
    expect(got).toEqual(Array.from({ length: 1201 }, (_, i) => i + 2));
  });

  it('keeps order when a listener delivers a later record to the same subscription from inside a delivery', async () => {
    const records = await log.append(t, 3);
    const seen: number[] = [];
    let sub: OrderedSubscription | undefined;
    ({ sub } = subscription({
      afterSeq: 1,
      listener: (r) => {
        seen.push(r.seq);
        if (r.seq === 2) sub?.offer([records[1]!]); // 3, re-entering
      },
    }));
    sub.offer(records);
    await waitFor('seq 4', () => seen.includes(4));
    // A duplicate caused by the re-entry would come before a later record.
    const [r5] = await log.append(t);
    sub.offer([r5!]);
    await waitFor('seq 5', () => seen.includes(5));
    expect(seen).toEqual([2, 3, 4, 5]);
  });

  it('delivers nothing after close, not even a fill already under way', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let readsDone = 0;
    const readEvents: EventLogReader = async (...args) => {
      await gate;
      const out = await log.readEvents(...args);
      readsDone++;
      return out;
    };
    const records = await log.append(t, 2);
    const { sub, got } = subscription({ readEvents, afterSeq: 1 });
    sub.offer([records[1]!]); // gap: the fill waits at the gate
    sub.close();
    release();
    // the fill's read has returned (and what it read was dropped)
    await waitFor('the gated read to return', () => readsDone >= 1);
    sub.offer(records);
    expect(got).toEqual([]);
  });
});
