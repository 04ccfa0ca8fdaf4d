/**
 * Bus lag between replicas (agentport_bus_delivery_lag_seconds) over the shared Redis: a frame
 * published with metrics on carries its publish time, the receiving replica observes one lag per
 * frame and hands its subscribers the records without the stamp; frames of a replica with metrics
 * off still arrive as before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisEventBus } from '../../src/bus/redis/index.js';
import type { TaskEventRecord } from '../../src/store/task-event-record.js';
import { Metrics } from '../../src/observability/metrics/index.js';
import { countOf, parseExposition } from '../support/prometheus.js';
import { openTestBus, uniquePrefix } from './redis-bus-fixtures.js';
import { TaskLog } from './task-log.js';
import { waitFor } from './wait.js';

const lagCount = async (m: Metrics) => countOf(await parseExposition(await m.scrape()), 'agentport_bus_delivery_lag_seconds');

describe('Redis bus lag metric', () => {
  let log: TaskLog;
  let buses: RedisEventBus[] = [];
  let prefix: string;

  beforeEach(async () => {
    log = await TaskLog.open();
    prefix = uniquePrefix();
  });
  afterEach(async () => {
    await Promise.all(buses.map((b) => b.close()));
    buses = [];
    await log.close();
  });

  async function replica(id: string, metrics?: Metrics): Promise<RedisEventBus> {
    const bus = await openTestBus({ replicaId: id, prefix, readEvents: log.readEvents, ...(metrics ? { metrics } : {}) });
    buses.push(bus);
    return bus;
  }

  it('observes one lag per frame from another replica, and subscribers never see the stamp', async () => {
    const ma = new Metrics({ version: 'test', replica: 'a' });
    const mb = new Metrics({ version: 'test', replica: 'b' });
    const a = await replica('replica-a', ma);
    const b = await replica('replica-b', mb);
    await log.create('t1');
    const got: TaskEventRecord[] = [];
    b.subscribe('t1', (r) => got.push(r), { afterSeq: 1 });
    await waitFor('the catch-up read', () => log.readCount('t1') > 0);
    for (let i = 0; i < 3; i++) a.publish(await log.append('t1', 2));
    await waitFor('6 records', () => got.length >= 6);
    expect(got.map((r) => r.seq)).toEqual([2, 3, 4, 5, 6, 7]);
    for (const r of got) expect(Object.keys(r).sort()).toEqual(['createdAt', 'event', 'seq', 'taskId']);
    expect(await lagCount(mb)).toBe(3);
    // Its own echo is not a delivery between replicas.
    expect(await lagCount(ma)).toBe(0);
  });

  it('delivers frames of a replica with metrics off, without observing a lag', async () => {
    const mb = new Metrics({ version: 'test', replica: 'b' });
    const a = await replica('replica-a');
    const b = await replica('replica-b', mb);
    await log.create('t2');
    const got: number[] = [];
    b.subscribe('t2', (r) => got.push(r.seq), { afterSeq: 1 });
    await waitFor('the catch-up read', () => log.readCount('t2') > 0);
    a.publish(await log.append('t2', 2));
    await waitFor('2 records', () => got.length >= 2);
    expect(got).toEqual([2, 3]);
    expect(await lagCount(mb)).toBe(0);
  });
});
