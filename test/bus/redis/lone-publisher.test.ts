/**
 * LonePublisher (src/bus/redis/lone-publisher.ts): a replica skips PUBLISH only while the last
 * count of the events channel's listeners found none but itself, and whatever it skipped after a
 * count was sent reaches a listener that shows up, as the last record of each task.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LonePublisher } from '../../../src/bus/redis/lone-publisher.js';
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
let republished: TaskEventRecord[][];
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
