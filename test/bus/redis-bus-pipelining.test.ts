/**
 * The Redis bus sends what it publishes in one tick as one write (issue 26): a group commit settles
 * many tasks at once and each publishes its records. Counted twice: the write system calls this
 * process makes (Linux /proc/self/io), and the chunks that reach a TCP proxy between the replica
 * and the shared Redis, while another replica, reading Redis directly, receives every record.
 */
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisEventBus } from '../../src/bus/redis/index.js';
import type { TaskEventRecord } from '../../src/store/store.js';
import { freePort } from './private-redis.js';
import { openTestBus, SHARED_REDIS_URL, uniquePrefix } from './redis-bus-fixtures.js';
import { sleep, waitFor } from './wait.js';

/** A proxy to Redis that counts the chunks clients send through it. */
class CountingProxy {
  chunksToRedis = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: URL): Promise<CountingProxy> {
    const port = await freePort();
    let proxy: CountingProxy | undefined;
    const server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        proxy!.sockets.add(s);
        s.on('close', () => proxy!.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk) => {
        proxy!.chunksToRedis++;
        upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    proxy = new CountingProxy(server, port);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    const closed = once(this.server, 'close');
    this.server.close();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

/** Write-type system calls this process made so far (every thread; the test's window holds only the bus's). */
const writeSyscalls = (): number => Number(/^syscw: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

const record = (taskId: string): TaskEventRecord => ({
  taskId,
  seq: 1,
  event: { task: { id: taskId, contextId: `ctx-${taskId}`, status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date(0).toISOString() } } },
  createdAt: 1,
});

describe('RedisEventBus publishing', () => {
  let proxy: CountingProxy;
  let publisher: RedisEventBus;
  let receiver: RedisEventBus;

  beforeEach(async () => {
    proxy = await CountingProxy.start(new URL(SHARED_REDIS_URL));
    const prefix = uniquePrefix();
    publisher = await openTestBus({ replicaId: `pub-${process.pid}`, prefix, url: proxy.url });
    receiver = await openTestBus({ replicaId: `recv-${process.pid}`, prefix });
  });

  afterEach(async () => {
    await Promise.all([publisher?.close(), receiver?.close()]);
    await proxy?.close();
  });

  it('sends the records of 50 tasks published in one tick in one write, and another replica gets them all', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `task-${process.pid}-${i}`);
    const got = new Set<string>();
    for (const id of ids) receiver.subscribe(id, (r) => got.add(r.taskId));
    await sleep(50); // whatever the connections said at opening has gone through
    proxy.chunksToRedis = 0;

    // as a group commit settles: every task of the batch publishes in the same tick
    const before = writeSyscalls();
    for (const id of ids) publisher.publish([record(id)]);
    await new Promise((r) => setImmediate(r)); // the tick is over: what it queued has gone out
    const writes = writeSyscalls() - before;
    await waitFor('every record at the other replica', () => got.size === ids.length);

    // one PUBLISH per task, all in one write (one per task before: 50)
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(3);
    expect(proxy.chunksToRedis).toBeGreaterThanOrEqual(1);
    expect(proxy.chunksToRedis).toBeLessThanOrEqual(2);
  });
});
