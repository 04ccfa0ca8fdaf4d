/**
 * A replica alone on its Redis publishes nothing (src/bus/redis/lone-publisher.ts, issue 26), and
 * loses nothing for a replica that joins: the joiner's greeting makes it publish before the joiner
 * opens (the republished tails themselves are covered by test/bus/redis/lone-publisher.test.ts),
 * and it goes back to skipping once the joiner has left. What reaches Redis is watched through a pattern subscription, which PUBSUB
 * NUMSUB does not count, so the watcher does not change what it watches.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisEventBus } from '../../src/bus/redis/index.js';
import type { TaskEventRecord } from '../../src/store/store.js';
import { openTestBus, SHARED_REDIS_URL, uniquePrefix } from './redis-bus-fixtures.js';
import { TaskLog } from './task-log.js';
import { sleep, waitFor } from './wait.js';

/** Longer than the bus's listener check (500 ms) and its answer. */
const CHECK_SETTLES_MS = 1200;

let prefix: string;
let log: TaskLog;
let watcher: Redis;
/** what reached the events channel: task id and seqs of each frame */
let frames: Array<[string, number[]]>;
/** the records of those frames, as sent */
let bodies: TaskEventRecord[];
const buses: RedisEventBus[] = [];

async function open(replicaId: string, listenerCheckMs?: number): Promise<RedisEventBus> {
  const bus = await openTestBus({ replicaId, prefix, readEvents: log.readEvents, listenerCheckMs });
  buses.push(bus);
  return bus;
}

beforeEach(async () => {
  prefix = uniquePrefix();
  log = await TaskLog.open();
  frames = [];
  bodies = [];
  watcher = new Redis(SHARED_REDIS_URL);
  watcher.on('pmessage', (_pattern: string, _channel: string, frame: string) => {
    const [, key, body] = frame.split('\n');
    const records = JSON.parse(body!) as TaskEventRecord[];
    frames.push([JSON.parse(key!) as string, records.map((r) => r.seq)]);
    bodies.push(...records);
  });
  await watcher.psubscribe(`${prefix}:events`);
});

afterEach(async () => {
  for (const bus of buses.splice(0)) await bus.close();
  watcher.disconnect();
  await log.close();
});

describe('RedisEventBus alone', () => {
  it('publishes nothing while alone; a replica that opens reads what came before from the log and gets the next records live', async () => {
    const a = await open('a');
    await sleep(CHECK_SETTLES_MS);
    a.publish([await log.create('t1')]);
    a.publish(await log.append('t1'));
    a.publish([await log.create('t2')]);
    await sleep(300);
    expect(frames).toEqual([]);

    const b = await open('b');
    // b reads what came before from the log, and gets what follows live.
    const got: number[] = [];
    b.subscribe('t1', (r) => got.push(r.seq), { afterSeq: 0 });
    await waitFor('b catches up from the log', () => got.length === 2);
    a.publish(await log.append('t1'));
    await waitFor('b receives seq 3', () => got.length === 3);
    expect(got).toEqual([1, 2, 3]);
    await waitFor('seq 3 on the channel', () => frames.length > 0 && frames.at(-1)![1][0] === 3);
    expect(frames.at(-1)).toEqual(['t1', [3]]);
    // Before it, at most the last skipped record of each task (republished on b's greeting when
    // a's last check had not yet let them go).
    for (const [key, seqs] of frames.slice(0, -1)) expect(['t1:2', 't2:1']).toContain(`${key}:${seqs.join(',')}`);
  });

  it("republishes the last skipped record of each task, read back from the log, on a joining replica's greeting", async () => {
    // One count at open (alone), the next a minute away: what it skips stays to be republished.
    const a = await open('a', 60_000);
    await sleep(500);
    a.publish([await log.create('t1')]);
    const t1 = await log.append('t1');
    a.publish(t1);
    const t2 = await log.create('t2');
    a.publish([t2]);
    await sleep(300);
    expect(frames).toEqual([]);

    await open('b');
    await waitFor('both tails on the channel', () => frames.length === 2);
    expect([...frames].sort()).toEqual([
      ['t1', [2]],
      ['t2', [1]],
    ]);
    // The log's records as committed: the same as the records a skipped.
    expect(bodies.sort((x, y) => x.taskId.localeCompare(y.taskId))).toEqual([t1.at(-1), t2]);
    expect(log.readCount('t1')).toBe(1);
    expect(log.readCount('t2')).toBe(1);
  });

  it('goes back to skipping once the other replica has left', async () => {
    const a = await open('a');
    const b = await open('b');
    a.publish([await log.create('t1')]);
    await waitFor('t1 published while b listens', () => frames.length === 1);
    await b.close();
    await sleep(CHECK_SETTLES_MS);
    a.publish(await log.append('t1'));
    await sleep(300);
    expect(frames).toEqual([['t1', [1]]]);
  });
});
