/**
 * The Redis event bus against the shared Redis on 127.0.0.1:6379 and a real SQLite event log:
 * the bus contract (on one replica, and across two), ordering and gap filling across replicas,
 * control routing, health and opening.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventBus, TaskControl } from '../../src/bus/event-bus.js';
import { openRedisEventBus, type RedisEventBus, RedisUnavailableError } from '../../src/bus/redis/index.js';
import { describeBusContract } from './bus-contract.js';
import { freePort } from './private-redis.js';
import { CollectingLog, openTestBus, SHARED_REDIS_URL, uniquePrefix } from './redis-bus-fixtures.js';
import { TaskLog } from './task-log.js';
import { sleep, waitFor } from './wait.js';

/** Long enough for a stray echo or duplicate to come back through Redis on this machine. */
const settle = (): Promise<void> => sleep(50);

let replicas = 0;
const replicaId = (): string => `replica-${process.pid}-${replicas++}`;

describeBusContract('redis, one replica', () => openTestBus({ replicaId: replicaId(), prefix: uniquePrefix() }), { settle });

/** Publishes on one replica, subscribes on another: every delivery goes through Redis. */
async function openReplicaPair(): Promise<EventBus> {
  const prefix = uniquePrefix();
  const publisher = await openTestBus({ replicaId: replicaId(), prefix });
  const subscriber = await openTestBus({ replicaId: replicaId(), prefix });
  return {
    publish: (records) => publisher.publish(records),
    subscribe: (taskId, listener, opts) => subscriber.subscribe(taskId, listener, opts),
    publishControl: (signal) => publisher.publishControl(signal),
    onControl: (listener) => subscriber.onControl(listener),
    health: () => subscriber.health(),
    close: async () => {
      await Promise.all([publisher.close(), subscriber.close()]);
    },
  };
}

describeBusContract('redis, published on one replica and received on another', openReplicaPair, { settle });

describe('RedisEventBus across two replicas sharing one Redis and one event log', () => {
  let log: TaskLog;
  let a: RedisEventBus;
  let b: RedisEventBus;
  let logB: CollectingLog;
  let prefix: string;
  let tasks = 0;
  const newTaskId = (): string => `task-${process.pid}-${tasks++}`;

  beforeEach(async () => {
    log = await TaskLog.open();
    prefix = uniquePrefix();
    a = await openTestBus({ replicaId: 'replica-a', prefix, readEvents: log.readEvents });
    logB = new CollectingLog();
    b = await openTestBus({ replicaId: 'replica-b', prefix, readEvents: log.readEvents, log: logB });
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await log.close();
  });

  /** Subscribes on `bus` from `afterSeq` and waits until its catch-up read is done. */
  async function follow(bus: RedisEventBus, taskId: string, afterSeq?: number): Promise<number[]> {
    const got: number[] = [];
    const reads = log.readCount(taskId);
    bus.subscribe(taskId, (r) => got.push(r.seq), afterSeq === undefined ? {} : { afterSeq });
    if (afterSeq !== undefined) await waitFor('the catch-up read', () => log.readCount(taskId) > reads);
    await settle();
    return got;
  }

  it('delivers another replica’s records in seq order without reading the log', async () => {
    const t = newTaskId();
    await log.create(t);
    const got = await follow(b, t, 1);
    const readsAfterCatchUp = log.readCount(t);
    for (let i = 0; i < 5; i++) a.publish(await log.append(t, 2));
    await waitFor('11 records', () => got.length >= 10);
    await settle();
    expect(got).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(log.readCount(t)).toBe(readsAfterCatchUp);
  });

  it('drops records already delivered when they arrive again', async () => {
    const t = newTaskId();
    await log.create(t);
    const got = await follow(b, t, 1);
    const records = await log.append(t, 3);
    a.publish(records.slice(0, 2));
    a.publish(records.slice(0, 2));
    a.publish(records.slice(1));
    a.publish(records);
    await waitFor('seq 4', () => got.includes(4));
    await settle();
    expect(got).toEqual([2, 3, 4]);
  });

  it('fills a gap from the log when a committed record’s publish never arrived', async () => {
    const t = newTaskId();
    await log.create(t);
    const got = await follow(b, t, 1);
    a.publish(await log.append(t));
    await log.append(t, 2); // committed; its publish is lost
    const reads = log.readCount(t);
    a.publish(await log.append(t));
    await waitFor('seq 5', () => got.includes(5));
    await settle();
    expect(got).toEqual([2, 3, 4, 5]);
    expect(log.readCount(t)).toBeGreaterThan(reads);
  });

  it('delivers in seq order records that arrive out of order (two publishers around a lease hand-over)', async () => {
    const t = newTaskId();
    await log.create(t);
    const got = await follow(b, t, 1);
    const [r2] = await log.append(t);
    const [r3] = await log.append(t);
    const c = await openTestBus({ replicaId: 'replica-c', prefix, readEvents: log.readEvents });
    try {
      c.publish([r3!]);
      await sleep(20);
      a.publish([r2!]);
      await waitFor('seq 3', () => got.includes(3));
      await settle();
      expect(got).toEqual([2, 3]);
    } finally {
      await c.close();
    }
  });

  it('with afterSeq, first delivers what the log holds past it (committed and published before subscribing), then live records', async () => {
    const t = newTaskId();
    await log.create(t);
    a.publish(await log.append(t, 4)); // seq 2..5, published while b had no subscriber
    const got: number[] = [];
    b.subscribe(t, (r) => got.push(r.seq), { afterSeq: 2 });
    await waitFor('seq 5 from the log', () => got.includes(5));
    a.publish(await log.append(t));
    await waitFor('seq 6', () => got.includes(6));
    await settle();
    expect(got).toEqual([3, 4, 5, 6]);
  });

  it('with afterSeq 0, delivers the task from its first record', async () => {
    const t = newTaskId();
    await log.create(t);
    await log.append(t);
    const got: number[] = [];
    b.subscribe(t, (r) => got.push(r.seq), { afterSeq: 0 });
    await waitFor('seq 2', () => got.includes(2));
    await settle();
    expect(got).toEqual([1, 2]);
  });

  it('without afterSeq, starts at the first record it receives and fills gaps after it', async () => {
    const t = newTaskId();
    await log.create(t);
    await log.append(t, 2); // seq 2, 3: before the subscription, never delivered
    const got = await follow(b, t);
    a.publish(await log.append(t)); // 4
    await log.append(t); // 5, publish lost
    a.publish(await log.append(t)); // 6
    await waitFor('seq 6', () => got.includes(6));
    await settle();
    expect(got).toEqual([4, 5, 6]);
  });

  it('delivers a replica’s own records to its subscribers synchronously, and only once', async () => {
    const t = newTaskId();
    await log.create(t);
    const got: number[] = [];
    a.subscribe(t, (r) => got.push(r.seq), { afterSeq: 1 });
    await waitFor('the catch-up read', () => log.readCount(t) > 0);
    await settle();
    const records = await log.append(t, 3);
    a.publish(records);
    expect(got).toEqual([2, 3, 4]);
    await settle();
    expect(got).toEqual([2, 3, 4]);
  });

  it('routes control signals by `to`, stamps `from`, and does not deliver its own signals twice', async () => {
    const onA: TaskControl[] = [];
    const onB: TaskControl[] = [];
    a.onControl((s) => onA.push(s));
    b.onControl((s) => onB.push(s));
    a.publishControl({ type: 'cancel', taskId: 't-to-b', to: 'replica-b' });
    a.publishControl({ type: 'cancel', taskId: 't-to-a', to: 'replica-a' });
    a.publishControl({ type: 'cancel', taskId: 't-to-c', to: 'replica-c' });
    const forwarded = {
      agentId: 'agent',
      owner: 'alice',
      message: { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] },
      extensions: ['https://ext.example/v1'],
      // the caller's usecase binding travels with the message (the holder runs it bound, not open)
      usecases: ['retail'],
    };
    a.publishControl({ type: 'message', taskId: 't-all', forwarded });
    // Redis keeps one connection's order: once the broadcast is in, the routed ones before it are too.
    await waitFor('the broadcast on b', () => onB.some((s) => s.taskId === 't-all'));
    await settle();
    expect(onB).toEqual([
      { type: 'cancel', taskId: 't-to-b', to: 'replica-b', from: 'replica-a' },
      { type: 'message', taskId: 't-all', forwarded, from: 'replica-a' },
    ]);
    expect(onA).toEqual([
      { type: 'cancel', taskId: 't-to-a', to: 'replica-a', from: 'replica-a' },
      { type: 'message', taskId: 't-all', forwarded, from: 'replica-a' },
    ]);
  });

  it('ignores malformed frames on its channels', async () => {
    const t = newTaskId();
    await log.create(t);
    const got = await follow(b, t, 1);
    const onB: TaskControl[] = [];
    b.onControl((s) => onB.push(s));
    const raw = new Redis(SHARED_REDIS_URL);
    try {
      await raw.publish(`${prefix}:events`, 'not a frame');
      await raw.publish(`${prefix}:events`, `"x"\n${JSON.stringify(t)}\n[{"taskId":"other","seq":2}]`);
      await raw.publish(`${prefix}:control`, `"x"\n""\n{"type":"shutdown","taskId":"t"}`);
      // Its own origin: skipped before the body is looked at, so no warning for it.
      await raw.publish(`${prefix}:events`, `"replica-b"\n${JSON.stringify(t)}\n{not json`);
      a.publish(await log.append(t));
      a.publishControl({ type: 'cancel', taskId: t });
      await waitFor('seq 2 and the cancel', () => got.length === 1 && onB.length === 1);
      await settle();
      expect(got).toEqual([2]);
      expect(onB).toEqual([{ type: 'cancel', taskId: t, from: 'replica-a' }]);
      expect(logB.messages('warn').filter((m) => m.includes('malformed'))).toHaveLength(3);
    } finally {
      raw.disconnect();
    }
  });

  it('forgets a task once its last subscriber leaves, and stops delivering to it', async () => {
    const t = newTaskId();
    await log.create(t);
    const got: number[] = [];
    const offs = [b.subscribe(t, (r) => got.push(r.seq)), b.subscribe(t, () => {}), b.subscribe(newTaskId(), () => {})];
    expect(b.subscribedTaskCount).toBe(2);
    for (const off of offs) off();
    expect(b.subscribedTaskCount).toBe(0);
    a.publish(await log.append(t));
    await settle();
    expect(got).toEqual([]);
  });

  it('reports healthy while Redis answers, with the round trip of a probe through it; closing is idempotent and leaves it unhealthy', async () => {
    const health = await a.health();
    expect(health).toEqual({ ok: true, roundTripMs: expect.any(Number) });
    expect(health.roundTripMs).toBeGreaterThan(0);
    await a.close();
    await a.close();
    expect(await a.health()).toEqual({ ok: false, detail: 'event bus closed' });
    expect(() => a.publish([{ taskId: 't', seq: 1, event: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }, createdAt: 1 }])).not.toThrow();
    expect(() => a.publishControl({ type: 'cancel', taskId: 't' })).not.toThrow();
  });
});

describe('openRedisEventBus', () => {
  it('fails within a few seconds, naming the URL with its password masked, when Redis is unreachable', async () => {
    const port = await freePort(); // nothing listens on it
    const url = `redis://:s3cret@127.0.0.1:${port}`;
    const started = Date.now();
    const err = await openRedisEventBus({ url, replicaId: 'r', readEvents: async () => [], log: new CollectingLog() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(7000);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    const message = (err as Error).message;
    expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).toContain('ECONNREFUSED');
    expect(message).not.toContain('s3cret');
  });

  it('rejects a URL that is not redis:// or rediss://', async () => {
    await expect(openRedisEventBus({ url: 'http://127.0.0.1:6379', replicaId: 'r', readEvents: async () => [] })).rejects.toThrow(/redis:\/\/ or rediss:\/\//);
  });

  it('subscribes each replica once to the two channels of its prefix', async () => {
    const prefix = uniquePrefix();
    const x = await openTestBus({ replicaId: 'x', prefix });
    const y = await openTestBus({ replicaId: 'y', prefix });
    const raw = new Redis(SHARED_REDIS_URL);
    try {
      x.subscribe('t1', () => {});
      x.subscribe('t2', () => {});
      y.subscribe('t1', () => {});
      expect(await raw.pubsub('NUMSUB', `${prefix}:events`, `${prefix}:control`)).toEqual([`${prefix}:events`, 2, `${prefix}:control`, 2]);
    } finally {
      raw.disconnect();
      await Promise.all([x.close(), y.close()]);
    }
  });
});
