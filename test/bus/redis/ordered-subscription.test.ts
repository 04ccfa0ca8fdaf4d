/**
 * OrderedSubscription over a real SQLite event log: what it does when the log fails, lags behind
 * Redis, or holds a long gap, and when a listener publishes from inside a delivery.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrderedSubscription, type EventLogReader } from '../../../src/bus/redis/ordered-subscription.js';
import type { TaskEventRecord } from '../../../src/store/store.js';
import { TaskLog } from '../task-log.js';
import { sleep, waitFor } from '../wait.js';

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
    sub.offer([records[2]]); // 4: gap, the reads fail twice
    sub.offer([records[0]]); // buffered while the fill waits to retry
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
    await sleep(5);
    sub.offer([r3]);
    await sleep(100);
    expect(got).toEqual([]);
    expect(reads).toBeLessThanOrEqual(8); // one per 20 ms retry, not a hot loop
    lagging = false;
    await waitFor('seq 3', () => got.includes(3));
    sub.offer([r2, r3]);
    await sleep(30);
    expect(got).toEqual([2, 3]);
    sub.close();
  });

  it('fills a gap longer than one page of the log, in order', async () => {
    const { sub, got } = subscription({ afterSeq: 1 });
    await sleep(5);
    await log.append(t, 1200);
    const [last] = await log.append(t);
    sub.offer([last]);
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
        if (r.seq === 2) sub?.offer([records[1]]); // 3, re-entering
      },
    }));
    sub.offer(records);
    await sleep(20);
    expect(seen).toEqual([2, 3, 4]);
  });

  it('delivers nothing after close, not even a fill already under way', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const readEvents: EventLogReader = async (...args) => {
      await gate;
      return log.readEvents(...args);
    };
    const records = await log.append(t, 2);
    const { sub, got } = subscription({ readEvents, afterSeq: 1 });
    sub.offer([records[1]]); // gap: the fill waits at the gate
    sub.close();
    release();
    await sleep(20);
    sub.offer(records);
    expect(got).toEqual([]);
  });
});
