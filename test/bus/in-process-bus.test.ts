import { describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../src/bus/in-process-bus.js';
import type { TaskEventRecord } from '../../src/store/store.js';
import { describeBusContract } from './bus-contract.js';

describeBusContract('in-process', async () => new InProcessEventBus({ onListenerError: () => {} }));

function record(taskId: string, seq: number): TaskEventRecord {
  return { taskId, seq, event: { userMessage: { messageId: `m${seq}`, role: 'ROLE_USER', parts: [{ text: 'x' }] } }, createdAt: seq };
}

describe('InProcessEventBus', () => {
  it('delivers synchronously, before publish returns', () => {
    const bus = new InProcessEventBus();
    const got: number[] = [];
    bus.subscribe('t', (r) => got.push(r.seq));
    bus.publish([record('t', 1), record('t', 2)]);
    expect(got).toEqual([1, 2]);
  });

  it('reports listener errors to onListenerError', () => {
    const errors: unknown[] = [];
    const bus = new InProcessEventBus({ onListenerError: (e) => errors.push(e) });
    const boom = new Error('boom');
    bus.subscribe('t', () => {
      throw boom;
    });
    bus.onControl(() => {
      throw boom;
    });
    bus.publish([record('t', 1)]);
    bus.publishControl({ type: 'cancel', taskId: 't' });
    expect(errors).toEqual([boom, boom]);
  });

  it('forgets a task once its last listener unsubscribes', () => {
    const bus = new InProcessEventBus();
    const offs = Array.from({ length: 1000 }, (_, i) => bus.subscribe(`t${i % 10}`, () => {}));
    expect(bus.subscribedTaskCount).toBe(10);
    for (const off of offs) off();
    expect(bus.subscribedTaskCount).toBe(0);
  });

  it('does not let a stale unsubscribe remove a later subscription of the same task', () => {
    const bus = new InProcessEventBus();
    const off = bus.subscribe('t', () => {});
    off();
    const got: number[] = [];
    bus.subscribe('t', (r) => got.push(r.seq));
    off();
    bus.publish([record('t', 1)]);
    expect(got).toEqual([1]);
    expect(bus.subscribedTaskCount).toBe(1);
  });

  it('applies subscriptions changed by a listener from the next record on', () => {
    const bus = new InProcessEventBus();
    const got: string[] = [];
    let offB: () => void = () => {};
    bus.subscribe('t', (r) => {
      got.push(`a${r.seq}`);
      offB();
      if (r.seq === 1) bus.subscribe('t', (x) => got.push(`c${x.seq}`));
    });
    offB = bus.subscribe('t', (r) => got.push(`b${r.seq}`));
    bus.publish([record('t', 1), record('t', 2)]);
    expect(got).toEqual(['a1', 'b1', 'a2', 'c2']);
  });

  it('does not deliver the current record to a listener that a sole listener adds', () => {
    const bus = new InProcessEventBus();
    const got: string[] = [];
    bus.subscribe('t', (r) => {
      got.push(`a${r.seq}`);
      if (r.seq === 1) bus.subscribe('t', (x) => got.push(`b${x.seq}`));
    });
    bus.publish([record('t', 1), record('t', 2)]);
    expect(got).toEqual(['a1', 'a2', 'b2']);
  });

  it('drops every subscription on close', async () => {
    const bus = new InProcessEventBus();
    const got: number[] = [];
    bus.subscribe('t', (r) => got.push(r.seq));
    await bus.close();
    bus.publish([record('t', 1)]);
    expect(got).toEqual([]);
    expect(bus.subscribedTaskCount).toBe(0);
  });
});
