/**
 * The EventBus contract: the in-process bus and any distributed bus (Redis) run it unchanged.
 *
 * Delivery may be asynchronous in a distributed bus, so the suite waits for deliveries instead of
 * assuming them synchronous; `settle` lets such a bus finish subscribing (default: one macrotask).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventBus, TaskControl } from '../../src/bus/event-bus.js';
import type { TaskEventRecord } from '../../src/store/store.js';

export interface BusContractOptions {
  /** waits until subscriptions made so far are live; default one macrotask */
  settle?: () => Promise<void>;
  /** how long to wait for a delivery; default 2000 ms */
  deliveryTimeoutMs?: number;
}

let counter = 0;
const taskId = (): string => `bus-task-${(counter++).toString(36)}`;

function record(task: string, seq: number): TaskEventRecord {
  return {
    taskId: task,
    seq,
    event: { statusUpdate: { taskId: task, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } } },
    createdAt: 1_700_000_000_000 + seq,
  };
}

const macrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

/** `from` is stamped by a distributed bus (the publishing replica); the rest must arrive as sent. */
function withoutFrom(signals: TaskControl[]): TaskControl[] {
  return signals.map(({ from: _from, ...rest }) => rest as TaskControl);
}

export function describeBusContract(name: string, open: () => Promise<EventBus>, opts: BusContractOptions = {}): void {
  const settle = opts.settle ?? macrotask;
  const timeoutMs = opts.deliveryTimeoutMs ?? 2000;

  /** Waits until `got` holds `n` items (or the timeout), then lets stray extra deliveries land. */
  async function received<T>(got: T[], n: number): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    while (got.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    await settle();
    return got;
  }

  describe(`EventBus contract: ${name}`, () => {
    let bus: EventBus;
    beforeEach(async () => {
      bus = await open();
    });
    afterEach(async () => {
      await bus.close();
    });

    it('delivers published records to the subscribers of their task, in order', async () => {
      const t = taskId();
      const got: TaskEventRecord[] = [];
      bus.subscribe(t, (r) => got.push(r));
      await settle();
      bus.publish([record(t, 1), record(t, 2)]);
      bus.publish([record(t, 3)]);
      expect(await received(got, 3)).toEqual([record(t, 1), record(t, 2), record(t, 3)]);
    });

    it('does not deliver the records of other tasks', async () => {
      const t = taskId();
      const other = taskId();
      const got: TaskEventRecord[] = [];
      bus.subscribe(t, (r) => got.push(r));
      await settle();
      bus.publish([record(other, 1), record(t, 1), record(other, 2)]);
      expect(await received(got, 1)).toEqual([record(t, 1)]);
    });

    it('delivers to every subscriber of a task', async () => {
      const t = taskId();
      const a: number[] = [];
      const b: number[] = [];
      bus.subscribe(t, (r) => a.push(r.seq));
      bus.subscribe(t, (r) => b.push(r.seq));
      await settle();
      bus.publish([record(t, 1), record(t, 2)]);
      expect(await received(a, 2)).toEqual([1, 2]);
      expect(await received(b, 2)).toEqual([1, 2]);
    });

    it('treats the same function subscribed twice as two subscriptions', async () => {
      const t = taskId();
      const got: number[] = [];
      const listener = (r: TaskEventRecord): void => {
        got.push(r.seq);
      };
      const off1 = bus.subscribe(t, listener);
      bus.subscribe(t, listener);
      await settle();
      off1();
      bus.publish([record(t, 1)]);
      expect(await received(got, 1)).toEqual([1]);
    });

    it('stops delivering after unsubscribe; unsubscribing twice is harmless', async () => {
      const t = taskId();
      const kept: number[] = [];
      const dropped: number[] = [];
      bus.subscribe(t, (r) => kept.push(r.seq));
      const off = bus.subscribe(t, (r) => dropped.push(r.seq));
      await settle();
      bus.publish([record(t, 1)]);
      await received(dropped, 1);
      off();
      off();
      bus.publish([record(t, 2)]);
      expect(await received(kept, 2)).toEqual([1, 2]);
      expect(dropped).toEqual([1]);
    });

    it('keeps delivering to other listeners when one throws', async () => {
      const t = taskId();
      const got: number[] = [];
      bus.subscribe(t, () => {
        throw new Error('listener bug');
      });
      bus.subscribe(t, (r) => got.push(r.seq));
      await settle();
      expect(() => bus.publish([record(t, 1), record(t, 2)])).not.toThrow();
      expect(await received(got, 2)).toEqual([1, 2]);
    });

    it('delivers control signals to every control listener until it unsubscribes', async () => {
      const a: TaskControl[] = [];
      const b: TaskControl[] = [];
      const offA = bus.onControl((s) => a.push(s));
      bus.onControl((s) => b.push(s));
      await settle();
      const cancel: TaskControl = { type: 'cancel', taskId: taskId() };
      bus.publishControl(cancel);
      expect(withoutFrom(await received(a, 1))).toEqual([cancel]);
      expect(withoutFrom(await received(b, 1))).toEqual([cancel]);
      offA();
      const second: TaskControl = { type: 'cancel', taskId: taskId() };
      bus.publishControl(second);
      expect(withoutFrom(await received(b, 2))).toEqual([cancel, second]);
      expect(withoutFrom(a)).toEqual([cancel]);
    });

    it('keeps delivering control signals when a control listener throws', async () => {
      const got: TaskControl[] = [];
      bus.onControl(() => {
        throw new Error('listener bug');
      });
      bus.onControl((s) => got.push(s));
      await settle();
      const cancel: TaskControl = { type: 'cancel', taskId: taskId() };
      expect(() => bus.publishControl(cancel)).not.toThrow();
      expect(withoutFrom(await received(got, 1))).toEqual([cancel]);
    });

    it('publishing with no subscribers is a no-op', async () => {
      expect(() => bus.publish([record(taskId(), 1)])).not.toThrow();
      expect(() => bus.publish([])).not.toThrow();
      expect(() => bus.publishControl({ type: 'cancel', taskId: taskId() })).not.toThrow();
    });
  });
}
