/**
 * The distributed-mode metrics of two replicas in this process, on the shared PostgreSQL
 * (127.0.0.1:5432) and Redis (127.0.0.1:6379), each under a schema and prefix of its own: the
 * replica running a task reports it running and its lease held; a subscription on the other replica
 * is an open stream there and sees the events with a measured bus lag; a follow-up sent to the
 * other replica is forwarded (sent there, received here).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_AGENT, uniqueName } from '../support/cluster.js';
import { countOf, parseExposition, sampleSum, type Exposition } from '../support/prometheus.js';
import { readSse, rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const schema = uniqueName('metrics');
let A: TestServer;
let B: TestServer;

const replica = (id: string) =>
  startTestServer({
    storage: { driver: 'postgres', url: PG_URL, schema, maxConnections: 4 },
    bus: { driver: 'redis', url: REDIS_URL, prefix: schema },
    cluster: { replicaId: id, leaseTtlMs: 2_000, sweepIntervalMs: 300 },
    agents: [{ id: 'work', module: CLUSTER_AGENT }],
    metrics: { listen: '127.0.0.1:0' },
  });

const scrape = async (r: TestServer): Promise<Exposition> => parseExposition(await (await fetch(r.urls.metrics!)).text());

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  A = await replica('metrics-a');
  B = await replica('metrics-b');
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([A?.stop(), B?.stop()]);
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describe('distributed-mode metrics across two replicas', () => {
  it('a task running on A: running and leased there, followed from B through the bus with a measured lag', async () => {
    const lagBefore = countOf(await scrape(B), 'agentport_bus_delivery_lag_seconds');
    const sent = await rpc(`${A.http}/a2a/work`, 'SendMessage', { message: userMessage('slow 15'), configuration: { returnImmediately: true } });
    const taskId: string = sent.body.result.task.id;
    await until('the task running on A', async () => sampleSum(await scrape(A), 'agentport_tasks_running') === 1);
    expect(sampleSum(await scrape(A), 'agentport_cluster_leases_held')).toBe(1);
    expect(sampleSum(await scrape(B), 'agentport_tasks_running')).toBe(0);

    const subscription = fetch(`${B.http}/a2a/work`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
    });
    await until('the subscription open on B', async () => sampleSum(await scrape(B), 'agentport_open_streams', { kind: 'subscription' }) === 1);
    const events = await readSse(await subscription);
    expect(events.at(-1)?.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

    const b = await scrape(B);
    expect(countOf(b, 'agentport_bus_delivery_lag_seconds') - lagBefore).toBeGreaterThan(0);
    expect(sampleSum(b, 'agentport_open_streams', { kind: 'subscription' })).toBe(0);
    await until('the task finished on A', async () => sampleSum(await scrape(A), 'agentport_tasks_finished_total', { agent: 'work', state: 'COMPLETED' }) === 1);
    expect(sampleSum(await scrape(A), 'agentport_tasks_running')).toBe(0);
  }, 30_000);

  it('a follow-up sent to B for a task A holds is forwarded: sent by B, received by A', async () => {
    const asked = await rpc(`${A.http}/a2a/work`, 'SendMessage', { message: userMessage('ask') });
    const task = asked.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [a0, b0] = await Promise.all([scrape(A), scrape(B)]);
    await rpc(`${B.http}/a2a/work`, 'SendMessage', { message: userMessage('answer yes', { taskId: task.id, contextId: task.contextId }) });
    await until('the answered task', async () => (await rpc(`${A.http}/a2a/work`, 'GetTask', { id: task.id })).body.result.status.state === 'TASK_STATE_COMPLETED');
    const [a1, b1] = await Promise.all([scrape(A), scrape(B)]);
    const moved = (after: Exposition, before: Exposition, direction: string) =>
      sampleSum(after, 'agentport_cluster_forwarded_messages_total', { direction }) - sampleSum(before, 'agentport_cluster_forwarded_messages_total', { direction });
    expect(moved(b1, b0, 'sent')).toBe(1);
    expect(moved(a1, a0, 'received')).toBe(1);
    expect(moved(a1, a0, 'sent') + moved(b1, b0, 'received')).toBe(0);
  }, 30_000);
});
