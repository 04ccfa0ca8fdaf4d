/**
 * /readyz tells the truth (issue 14, item 5): storage, bus and push outbox, each with its figures;
 * a Redis bus's round trip measured through Redis, a Redis that stalls or dies makes the replica
 * unready (and ready again after), a push outbox whose oldest delivery is too old does too when
 * `push.maxOutboxAge` is set, and the public answer never names a host, port or path.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../support/private-services.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';

const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `ready_${randomBytes(4).toString('hex')}`;

interface ReadyBody {
  status: string;
  checks: Record<string, string>;
  measures?: { bus?: { roundTripMs: number }; push?: { pending: number; oldestAgeMs: number } };
}

async function readyz(s: TestServer): Promise<{ status: number; body: ReadyBody; text: string }> {
  const res = await fetch(`${s.http}/readyz`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as ReadyBody, text };
}

/** A webhook receiver that refuses everything: deliveries stay in the outbox, retried. */
async function refusingReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(503).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('/readyz on one server (SQLite, in-process bus)', () => {
  let s: TestServer;
  let receiver: Awaited<ReturnType<typeof refusingReceiver>>;
  beforeAll(async () => {
    receiver = await refusingReceiver();
    s = await startTestServer({ push: { allowHttp: true, allowlist: ['127.0.0.1'], maxOutboxAge: '1s' } });
  });
  afterAll(async () => {
    await s?.stop();
    await receiver?.close();
  });

  it('is ready with an empty outbox, and reports it; the in-process bus has no round trip', async () => {
    const r = await readyz(s);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', checks: { storage: 'ok', bus: 'ok', push: 'ok' }, measures: { push: { pending: 0, oldestAgeMs: 0 } } });
  });

  it('reports the push backlog, and is not ready once its oldest delivery is older than push.maxOutboxAge', async () => {
    const sent = await rpc(`${s.http}/a2a`, 'SendMessage', { message: userMessage('push me'), configuration: { taskPushNotificationConfig: { url: receiver.url, token: 'tok' } } });
    expect(sent.status).toBe(200);
    await expect.poll(async () => (await readyz(s)).body.measures?.push?.pending ?? 0).toBeGreaterThan(0);
    const young = await readyz(s);
    expect(young.status).toBe(200);
    expect(young.body.measures!.push!.oldestAgeMs).toBeLessThan(1000);
    await expect.poll(async () => (await readyz(s)).status, { timeout: 5000, interval: 200 }).toBe(503);
    const old = await readyz(s);
    expect(old.body).toMatchObject({ status: 'unavailable', checks: { storage: 'ok', bus: 'ok', push: 'outbox backlog too old' } });
    expect(old.body.measures!.push!.oldestAgeMs).toBeGreaterThan(1000);
    expect(old.text).not.toContain('127.0.0.1');
  });
});

describe('/readyz on a distributed server (PostgreSQL, a Redis of its own)', () => {
  let redis: PrivateRedis;
  let s: TestServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 200 });
    admin.on('error', () => {});
    await admin.connect();
    s = await startTestServer({ storage: { driver: 'postgres', url: PG_URL, schema: run }, bus: { driver: 'redis', url: redis.url, prefix: run } });
  });
  afterAll(async () => {
    await s?.stop();
    admin?.disconnect();
    await redis?.destroy();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`drop schema if exists "${run}" cascade`);
    await client.end();
  });

  it('measures the bus round trip through Redis', async () => {
    const r = await readyz(s);
    expect(r.status).toBe(200);
    expect(r.body.checks).toEqual({ storage: 'ok', bus: 'ok', push: 'ok' });
    expect(r.body.measures!.bus!.roundTripMs).toBeGreaterThan(0);
    expect(r.body.measures!.bus!.roundTripMs).toBeLessThan(500);
  });

  it('the round trip shows a stalled Redis, and past a second the replica is not ready', async () => {
    // CLIENT PAUSE … WRITE holds every PUBLISH (PING still answers): the lag between replicas.
    await admin.call('CLIENT', 'PAUSE', '400', 'WRITE');
    const slow = await readyz(s);
    expect(slow.status).toBe(200);
    expect(slow.body.measures!.bus!.roundTripMs).toBeGreaterThan(250);
    await admin.call('CLIENT', 'PAUSE', '1500', 'WRITE');
    const stalled = await readyz(s);
    expect(stalled.status).toBe(503);
    expect(stalled.body).toEqual({ status: 'unavailable', checks: { storage: 'ok', bus: 'unavailable', push: 'ok' }, measures: { push: { pending: 0, oldestAgeMs: 0 } } });
    await expect.poll(async () => (await readyz(s)).status, { timeout: 5000, interval: 200 }).toBe(200);
  });

  it('is not ready while Redis is down, without naming it, and ready again once it is back', async () => {
    await redis.kill();
    await expect.poll(async () => (await readyz(s)).status, { timeout: 10_000, interval: 200 }).toBe(503);
    const down = await readyz(s);
    expect(down.body.checks.bus).toBe('unavailable');
    expect(down.text).not.toContain(String(redis.port));
    expect(down.text).not.toContain('127.0.0.1');
    expect(down.text).not.toContain('redis');
    await redis.start();
    await expect.poll(async () => (await readyz(s)).status, { timeout: 15_000, interval: 200 }).toBe(200);
  });
});
