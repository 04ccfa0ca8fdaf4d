/**
 * LonePublisher (src/bus/redis/lone-publisher.ts): a replica skips PUBLISH only while the last
 * count of the events channel's listeners found none but itself, and whatever it skipped after a
 * count was sent reaches a listener that shows up, as the last record of each task.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LonePublisher, republishFromLog, type SkippedTail } from '../../../src/bus/redis/lone-publisher.js';
import type { TaskEventRecord } from '../../../src/store/task-event-record.js';

const POLL_MS = 500;

function record(taskId: string, seq: number): TaskEventRecord {
  return { taskId, seq, createdAt: seq, event: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } } };
}

/** A count the test answers by hand, one at a time, in the order asked. */
class Counts {
  readonly asked: Array<{ resolve: (n: number) => void; reject: (e: Error) => void }> = [];
  readonly fn = (): Promise<number> => new Promise((resolve, reject) => this.asked.push({ resolve, reject }));
  async answer(n: number): Promise<void> {
    const next = this.asked.shift();
    if (!next) throw new Error('no count asked');
    next.resolve(n);
    await vi.advanceTimersByTimeAsync(0);
  }
  async fail(): Promise<void> {
    this.asked.shift()?.reject(new Error('Redis down'));
    await vi.advanceTimersByTimeAsync(0);
  }
}

let counts: Counts;
let republished: SkippedTail[][];
let lone: LonePublisher;

beforeEach(() => {
  vi.useFakeTimers();
  counts = new Counts();
  republished = [];
  lone = new LonePublisher({ countListeners: counts.fn, republish: (r) => republished.push(r), pollMs: POLL_MS });
});

afterEach(() => {
  lone.close();
  vi.useRealTimers();
});

describe('LonePublisher', () => {
  it('numbers each spell of being alone: the same number while alone, a new one after any moment not alone (ADR 0095)', async () => {
    expect(lone.spell).toBeUndefined();
    lone.start();
    await counts.answer(1);
    const first = lone.spell;
    expect(first).toBeTypeOf('number');
    // still alone at the next counts: the same spell
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(1);
    expect(lone.spell).toBe(first);
    // another listener counted: no spell, then a new one
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(2);
    expect(lone.spell).toBeUndefined();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(1);
    const second = lone.spell;
    expect(second).toBeTypeOf('number');
    expect(second).not.toBe(first);
    // a greeting (another replica subscribing) ends the spell at once, before any count
    lone.heard();
    expect(lone.spell).toBeUndefined();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(1);
    expect([first, second]).not.toContain(lone.spell);
    // the subscriber connection down: unsure, so no spell; nor after a failed count
    const third = lone.spell;
    lone.stop();
    expect(lone.spell).toBeUndefined();
    lone.start();
    await counts.answer(1);
    expect([first, second, third]).not.toContain(lone.spell);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.fail();
    expect(lone.spell).toBeUndefined();
  });

  it('is alone only once a count found one listener (itself), and no longer once it found more', async () => {
    expect(lone.alone).toBe(false);
    lone.start();
    expect(counts.asked).toHaveLength(1);
    expect(lone.alone).toBe(false);
    await counts.answer(1);
    expect(lone.alone).toBe(true);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(2);
    expect(lone.alone).toBe(false);
  });

  it('counts a failed count as not alone', async () => {
    lone.start();
    await counts.answer(1);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.fail();
    expect(lone.alone).toBe(false);
  });

  it('republishes the last skipped record of each task when a listener shows up', async () => {
    lone.start();
    await counts.answer(1);
    lone.skip(record('a', 1));
    lone.skip(record('b', 1));
    lone.skip(record('a', 3));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    lone.skip(record('b', 2));
    await counts.answer(2);
    expect(republished).toHaveLength(1);
    expect(republished[0]!.map((r) => `${r.taskId}:${r.seq}`).sort()).toEqual(['a:3', 'b:2']);
  });

  it('keeps a skipped record by its task and seq only, not the record', async () => {
    lone.start();
    await counts.answer(1);
    lone.skip(record('a', 4));
    lone.stop();
    // toStrictEqual: a tail carrying the record's event or time (kept alive until a republish) fails.
    expect(republished).toStrictEqual([[{ taskId: 'a', seq: 4 }]]);
  });

  it('lets go of records skipped before a count that found it alone, keeps those skipped while that count was on its way', async () => {
    lone.start();
    await counts.answer(1);
    lone.skip(record('old', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS); // count 2 sent
    lone.skip(record('during', 1));
    await counts.answer(1); // nobody else when count 2 ran: 'old' was skipped before it was sent
    await vi.advanceTimersByTimeAsync(POLL_MS); // count 3 sent
    await counts.answer(3);
    expect(republished.map((rs) => rs.map((r) => r.taskId))).toEqual([['during']]);
  });

  it('publishes everything skipped when stopped, and ignores a count that was on its way', async () => {
    lone.start();
    await counts.answer(1);
    lone.skip(record('a', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS); // a count in flight
    lone.stop();
    expect(lone.alone).toBe(false);
    expect(republished.map((rs) => rs.map((r) => r.taskId))).toEqual([['a']]);
    await counts.answer(1);
    expect(lone.alone).toBe(false);
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(counts.asked).toHaveLength(0);
  });

  it('publishes again at once when another replica greets, whatever a count on its way says', async () => {
    lone.start();
    await counts.answer(1);
    lone.skip(record('a', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS); // a count in flight, taken before the greeting replica subscribed
    lone.heard();
    expect(lone.alone).toBe(false);
    expect(republished.map((rs) => rs.map((r) => r.taskId))).toEqual([['a']]);
    await counts.answer(1);
    expect(lone.alone).toBe(false);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await counts.answer(2);
    expect(lone.alone).toBe(false);
  });

  it('asks again after a restart', async () => {
    lone.start();
    await counts.answer(1);
    lone.stop();
    lone.start();
    await counts.answer(1);
    expect(lone.alone).toBe(true);
  });
});

describe('republishFromLog', () => {
  /** A log holding records 1..n of each task in `tasks`, whose reads the test can make fail. */
  function log(tasks: Record<string, number>) {
    const reads: string[] = [];
    let failures = 0;
    return {
      reads,
      failNext(n: number) {
        failures = n;
      },
      readEvents: async (taskId: string, afterSeq: number, limit: number): Promise<TaskEventRecord[]> => {
        reads.push(`${taskId}>${afterSeq}/${limit}`);
        if (failures > 0) {
          failures--;
          throw new Error('store down');
        }
        const last = tasks[taskId] ?? 0;
        const out: TaskEventRecord[] = [];
        for (let seq = afterSeq + 1; seq <= last && out.length < limit; seq++) out.push(record(taskId, seq));
        return out;
      },
    };
  }

  it('publishes each tail as the log holds it, read by its seq', async () => {
    const l = log({ a: 5, b: 2 });
    const published: TaskEventRecord[] = [];
    await republishFromLog(
      [
        { taskId: 'a', seq: 3 },
        { taskId: 'b', seq: 2 },
      ],
      { readEvents: l.readEvents, publish: (r) => published.push(r), retryMs: 100, closed: () => false, onReadError: () => {} },
    );
    expect(l.reads.sort()).toEqual(['a>2/1', 'b>1/1']);
    expect(published.sort((x, y) => x.taskId.localeCompare(y.taskId))).toEqual([record('a', 3), record('b', 2)]);
  });

  it('leaves out a tail the log no longer has', async () => {
    const l = log({ b: 1 });
    const published: TaskEventRecord[] = [];
    await republishFromLog(
      [
        { taskId: 'gone', seq: 2 },
        { taskId: 'b', seq: 1 },
      ],
      { readEvents: l.readEvents, publish: (r) => published.push(r), retryMs: 100, closed: () => false, onReadError: () => {} },
    );
    expect(published).toEqual([record('b', 1)]);
  });

  it('reads a tail again every retryMs until the log answers, and reports the first failure only', async () => {
    const l = log({ a: 1 });
    l.failNext(2);
    const published: TaskEventRecord[] = [];
    const errors: unknown[] = [];
    const done = republishFromLog([{ taskId: 'a', seq: 1 }], { readEvents: l.readEvents, publish: (r) => published.push(r), retryMs: 100, closed: () => false, onReadError: (e) => errors.push(e) });
    await vi.advanceTimersByTimeAsync(0);
    expect(l.reads).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(l.reads).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(l.reads).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(100);
    await done;
    expect(l.reads).toHaveLength(3);
    expect(published).toEqual([record('a', 1)]);
    expect(errors).toHaveLength(1);
  });

  it('stops reading and publishes nothing once the bus closed', async () => {
    const l = log({ a: 1 });
    l.failNext(1);
    let closed = false;
    const published: TaskEventRecord[] = [];
    const done = republishFromLog([{ taskId: 'a', seq: 1 }], { readEvents: l.readEvents, publish: (r) => published.push(r), retryMs: 100, closed: () => closed, onReadError: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    closed = true;
    await vi.advanceTimersByTimeAsync(100);
    await done;
    expect(l.reads).toHaveLength(1);
    expect(published).toEqual([]);
  });

  it('reads at most four tails at once', async () => {
    let inFlight = 0;
    let most = 0;
    const tails = Array.from({ length: 10 }, (_, i) => ({ taskId: `t${i}`, seq: 1 }));
    const published: TaskEventRecord[] = [];
    const done = republishFromLog(tails, {
      readEvents: async (taskId) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        return [record(taskId, 1)];
      },
      publish: (r) => published.push(r),
      retryMs: 100,
      closed: () => false,
      onReadError: () => {},
    });
    await vi.advanceTimersByTimeAsync(100);
    await done;
    expect(most).toBe(4);
    expect(published.map((r) => r.taskId).sort()).toEqual(tails.map((t) => t.taskId).sort());
  });
});
