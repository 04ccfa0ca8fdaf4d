/**
 * The Redis bus through Redis outages, on a private redis-server (killed and restarted on its
 * port) or behind a proxy that partitions one replica: streams keep flowing from the event log,
 * and live delivery resumes afterwards without gaps or duplicates.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TaskControl } from '../../src/bus/event-bus.js';
import type { RedisEventBus } from '../../src/bus/redis/index.js';
import { CutProxy } from './cut-proxy.js';
import { PrivateRedis } from './private-redis.js';
import { CollectingLog, openTestBus, uniquePrefix } from './redis-bus-fixtures.js';
import { TaskLog } from './task-log.js';
import { sleep, waitFor } from './wait.js';

const POLL_MS = 100;

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await PrivateRedis.start();
});
afterAll(async () => {
  await redis?.kill();
});

let tasks = 0;
const newTaskId = (): string => `outage-task-${process.pid}-${tasks++}`;

async function subscriberCounts(url: string, prefix: string): Promise<unknown> {
  const raw = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await raw.connect();
    return await raw.pubsub('NUMSUB', `${prefix}:events`, `${prefix}:control`);
  } finally {
    raw.disconnect();
  }
}

describe('RedisEventBus when Redis goes down and comes back', () => {
  let log: TaskLog;
  let prefix: string;
  const buses: RedisEventBus[] = [];
  let logA: CollectingLog;
  let logB: CollectingLog;

  beforeEach(async () => {
    log = await TaskLog.open();
    prefix = uniquePrefix();
    logA = new CollectingLog();
    logB = new CollectingLog();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
    await log.close();
    // A test that failed while Redis was down must not fail the next ones for it.
    if (!redis.running) await redis.restart();
  });

  async function open(replicaId: string, url: string, busLog: CollectingLog): Promise<RedisEventBus> {
    const bus = await openTestBus({ replicaId, prefix, url, readEvents: log.readEvents, log: busLog, pollWhileDownMs: POLL_MS });
    buses.push(bus);
    return bus;
  }

  it('streams from the log while Redis is down, then resubscribes and resumes live delivery with no gaps or duplicates', async () => {
    const a = await open('replica-a', redis.url, logA);
    const b = await open('replica-b', redis.url, logB);
    const t = newTaskId();
    await log.create(t);
    const got: number[] = [];
    b.subscribe(t, (r) => got.push(r.seq), { afterSeq: 1 });
    const signals: TaskControl[] = [];
    b.onControl((s) => signals.push(s));
    a.publish(await log.append(t));
    await waitFor('seq 2, live', () => got.includes(2));

    await redis.kill();
    await waitFor('a unhealthy', async () => !(await a.health()).ok);
    // Committed while Redis is down: publish neither throws nor waits, and b reads them from the log.
    for (let i = 0; i < 3; i++) {
      const records = await log.append(t);
      expect(() => a.publish(records)).not.toThrow();
    }
    expect(() => a.publishControl({ type: 'cancel', taskId: t })).not.toThrow();
    await waitFor('seq 3..5 from the log', () => got.includes(5), 5000);
    expect(got).toEqual([2, 3, 4, 5]);
    expect(logB.messages('warn')).toContainEqual(expect.stringContaining('reading subscribed tasks from the event log'));
    expect(logA.messages('warn')).toContainEqual(expect.stringContaining('control signal not published'));

    await redis.restart();
    await waitFor('both replicas healthy again', async () => (await a.health()).ok && (await b.health()).ok, 10_000);
    expect(await subscriberCounts(redis.url, prefix)).toEqual([`${prefix}:events`, 2, `${prefix}:control`, 2]);
    await sleep(3 * POLL_MS); // let the catch-up read and any republish land
    const readsBefore = log.readCount(t);

    for (let i = 0; i < 3; i++) a.publish(await log.append(t));
    a.publishControl({ type: 'cancel', taskId: t });
    await waitFor('seq 8 and the cancel', () => got.includes(8) && signals.length > 0);
    await sleep(3 * POLL_MS);
    expect(got).toEqual([2, 3, 4, 5, 6, 7, 8]);
    // No polling and no gap fill after the outage: 6..8 came live through Redis.
    expect(log.readCount(t)).toBe(readsBefore);
    // The cancel sent during the outage was lost (leases fence that); the one after arrived once.
    expect(signals).toEqual([{ type: 'cancel', taskId: t, from: 'replica-a' }]);
    expect(logB.messages('info')).toContainEqual(expect.stringContaining('live delivery resumed'));
  });

  it('delivers records committed between the last poll and the resubscription (catch-up on reconnect)', async () => {
    const a = await open('replica-a', redis.url, logA);
    // Polls so rare that none runs during this test: only the reconnect catch-up can deliver.
    const b = await openTestBus({ replicaId: 'replica-b', prefix, url: redis.url, readEvents: log.readEvents, log: logB, pollWhileDownMs: 60_000 });
    buses.push(b);
    const t = newTaskId();
    await log.create(t);
    const got: number[] = [];
    b.subscribe(t, (r) => got.push(r.seq), { afterSeq: 1 });
    await waitFor('the catch-up read', () => log.readCount(t) > 0);

    await redis.kill();
    await waitFor('b unhealthy', async () => !(await b.health()).ok);
    a.publish(await log.append(t)); // dropped: Redis is down
    await redis.restart();
    await waitFor('b healthy', async () => (await b.health()).ok, 10_000);
    await waitFor('seq 2', () => got.includes(2));
    await sleep(3 * POLL_MS);
    expect(got).toEqual([2]);
  });
});

describe('RedisEventBus when one replica is partitioned from Redis', () => {
  let log: TaskLog;
  let proxy: CutProxy;
  const buses: RedisEventBus[] = [];

  beforeEach(async () => {
    log = await TaskLog.open();
    proxy = await CutProxy.start(redis.port);
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
    await proxy.cut();
    await log.close();
  });

  it('republishes the last record it could not publish, so a replica that never lost Redis fills the gap', async () => {
    const prefix = uniquePrefix();
    const open = async (replicaId: string, url: string): Promise<RedisEventBus> => {
      const bus = await openTestBus({ replicaId, prefix, url, readEvents: log.readEvents, pollWhileDownMs: POLL_MS });
      buses.push(bus);
      return bus;
    };
    const a = await open('replica-a', proxy.url); // partitioned below
    const b = await open('replica-b', redis.url); // stays connected, so it has no reason to poll
    const t = newTaskId();
    await log.create(t);
    const got: number[] = [];
    b.subscribe(t, (r) => got.push(r.seq), { afterSeq: 1 });
    a.publish(await log.append(t));
    await waitFor('seq 2, live', () => got.includes(2));

    await proxy.cut();
    await waitFor('a unhealthy', async () => !(await a.health()).ok);
    a.publish(await log.append(t)); // 3: dropped
    a.publish(await log.append(t)); // 4: dropped; the one republished
    await sleep(5 * POLL_MS);
    expect(got).toEqual([2]);
    expect((await b.health()).ok).toBe(true);

    const reads = log.readCount(t);
    await proxy.restore();
    await waitFor('seq 4', () => got.includes(4), 10_000);
    await sleep(3 * POLL_MS);
    expect(got).toEqual([2, 3, 4]);
    // 3 came from the log, shown missing by the republished 4.
    expect(log.readCount(t)).toBeGreaterThan(reads);
  });
});
