import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamResponse, Task, TaskState } from '../../../src/protocol/a2a/types.js';
import type { Store } from '../../../src/store/store.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { backoffDelay, PushDeliveryWorker, type PushDeliveryWorkerOptions } from '../../../src/core/push/delivery-worker.js';
import { SsrfGuard } from '../../../src/net/ssrf-guard.js';
import { startReceiver, type Receiver, type ReceivedRequest } from './receiver.js';
import { Metrics } from '../../../src/observability/metrics/index.js';
import { parseExposition, sampleSum } from '../../support/prometheus.js';

const guard = new SsrfGuard({ allowHttp: true, allow: ['127.0.0.1'] });

let dir: string;
let file: string;
const stores: Store[] = [];
const workers: PushDeliveryWorker[] = [];
const receivers: Receiver[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentport-push-'));
  file = join(dir, 'store.db');
});

afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  for (const s of stores.splice(0)) await s.close();
  for (const r of receivers.splice(0)) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openStore(): Promise<Store> {
  const store = await openSqliteStore({ file });
  await store.migrate();
  stores.push(store);
  return store;
}

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

function worker(store: Store, opts: Partial<PushDeliveryWorkerOptions> = {}): PushDeliveryWorker {
  const w = new PushDeliveryWorker({
    store,
    guard,
    timeoutMs: 2000,
    pollMs: 10,
    backoff: { baseMs: 20, maxMs: 200 },
    ...opts,
  });
  workers.push(w);
  return w;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Writes a task and its status events through Store.commit, with one outbox row per event per config. */
class TaskWriter {
  private version = 0;
  private seq = 0;
  constructor(
    private readonly store: Store,
    readonly taskId: string,
  ) {}

  async addConfig(configId: string, url: string): Promise<void> {
    await this.store.putPushConfig({
      agentId: 'agent-1',
      owner: 'alice',
      taskId: this.taskId,
      config: { id: configId, taskId: this.taskId, url, token: `token-${configId}` },
      createdAt: Date.now(),
    });
  }

  async emit(configIds: string[], count = 1, state: TaskState = 'TASK_STATE_WORKING'): Promise<void> {
    const now = Date.now();
    const task: Task = {
      id: this.taskId,
      contextId: `ctx-${this.taskId}`,
      status: { state, timestamp: new Date(now).toISOString() },
    };
    const events = [];
    const outbox = [];
    for (let i = 0; i < count; i++) {
      const seq = ++this.seq;
      const payload: StreamResponse = {
        statusUpdate: { taskId: this.taskId, contextId: task.contextId, status: task.status, metadata: { seq } },
      };
      events.push({ taskId: this.taskId, seq, event: payload, createdAt: now });
      for (const configId of configIds) outbox.push({ taskId: this.taskId, configId, seq, payload });
    }
    await this.store.commit([
      {
        agentId: 'agent-1',
        owner: 'alice',
        task,
        expectedVersion: this.version,
        seq: this.seq,
        events,
        outbox,
        createdAt: now,
      },
    ]);
    this.version++;
  }
}

const seqOf = (r: ReceivedRequest): number => (JSON.parse(r.body.toString('utf8')) as { statusUpdate: { metadata: { seq: number } } }).statusUpdate.metadata.seq;
const taskOf = (r: ReceivedRequest): string => (JSON.parse(r.body.toString('utf8')) as { statusUpdate: { taskId: string } }).statusUpdate.taskId;

describe('backoffDelay', () => {
  it('doubles per attempt, caps at maxMs, and jitters within the upper half', () => {
    const policy = { baseMs: 1000, maxMs: 5 * 60_000 };
    expect(backoffDelay(1, policy, () => 0)).toBe(500);
    expect(backoffDelay(1, policy, () => 0.999999)).toBe(1000);
    expect(backoffDelay(4, policy, () => 0.999999)).toBe(8000);
    expect(backoffDelay(20, policy, () => 0.999999)).toBe(300_000);
    expect(backoffDelay(20, policy, () => 0)).toBe(150_000);
  });
});

describe('PushDeliveryWorker', () => {
  it('retries with growing backoff until the receiver returns 200', async () => {
    const store = await openStore();
    let calls = 0;
    const r = await receiver((_req, res) => res.writeHead(++calls <= 2 ? 503 : 200).end());
    const t = new TaskWriter(store, 'task-retry');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);

    const w = worker(store, { backoff: { baseMs: 60, maxMs: 1000 }, random: () => 0.999999 });
    w.start();
    await waitFor(async () => r.requests.length === 3 && (await store.countOutbox()) === 0);
    // stop() waits for any delivery in flight: nothing can arrive after it
    await w.stop();

    const [a, b, c] = r.requests.map((x) => x.receivedAt);
    // attempt 1 failed → wait ~60 ms; attempt 2 failed → wait ~120 ms
    expect(b! - a!).toBeGreaterThanOrEqual(55);
    expect(c! - b!).toBeGreaterThanOrEqual(115);
    expect(r.requests.every((x) => x.headers['x-a2a-notification-token'] === 'token-cfg')).toBe(true);
    expect(r.requests).toHaveLength(3);
  });

  it('delivers each task in order while different tasks go out concurrently', async () => {
    const store = await openStore();
    let active = 0;
    let maxActive = 0;
    const r = await receiver((_req, res) => {
      active++;
      maxActive = Math.max(maxActive, active);
      setTimeout(
        () => {
          active--;
          res.writeHead(200).end();
        },
        5 + Math.floor(Math.random() * 20),
      );
    });
    const tasks = ['task-a', 'task-b', 'task-c', 'task-d'].map((id) => new TaskWriter(store, id));
    for (const t of tasks) {
      await t.addConfig('cfg', r.url());
      await t.emit(['cfg'], 3);
      await t.emit(['cfg'], 3);
    }

    worker(store, { concurrency: 4 }).start();
    await waitFor(async () => r.requests.length === 24 && (await store.countOutbox()) === 0);

    for (const t of tasks) {
      const seqs = r.requests.filter((x) => taskOf(x) === t.taskId).map(seqOf);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    }
    expect(maxActive).toBeGreaterThan(1);
    expect(maxActive).toBeLessThanOrEqual(4);
  });

  it('holds a task’s later events back while its earlier one is being retried', async () => {
    const store = await openStore();
    let failFirst = 2;
    const r = await receiver((req, res) => res.writeHead(seqOf(req) === 1 && failFirst-- > 0 ? 500 : 200).end());
    const t = new TaskWriter(store, 'task-hol');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg'], 3);

    worker(store).start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    expect(r.requests.map(seqOf)).toEqual([1, 1, 1, 2, 3]);
  });

  it('resumes delivery from the outbox after a restart with the same database', async () => {
    let status = 503;
    const r = await receiver((_req, res) => res.writeHead(status).end());
    const first = await openStore();
    const t = new TaskWriter(first, 'task-restart');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg'], 2);

    const w1 = worker(first, { backoff: { baseMs: 50, maxMs: 50 } });
    w1.start();
    await waitFor(() => r.requests.length >= 1);
    await w1.stop();
    await first.close();
    stores.splice(stores.indexOf(first), 1);
    const attemptsBefore = r.requests.length;

    status = 200;
    const second = await openStore();
    expect(await second.countOutbox()).toBe(2);
    worker(second).start();
    await waitFor(async () => (await second.countOutbox()) === 0);
    expect(r.requests.slice(attemptsBefore).map(seqOf)).toEqual([1, 2]);
  });

  it('delivers a row whose claiming worker died once the lease expires', async () => {
    const r = await receiver();
    const store = await openStore();
    const t = new TaskWriter(store, 'task-lease');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);
    // A worker that claimed the row and crashed before sending.
    const claimedAt = Date.now();
    const claimed = await store.claimOutbox(claimedAt, 10, 300);
    expect(claimed).toHaveLength(1);

    worker(store).start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    expect(r.requests.map(seqOf)).toEqual([1]);
    // sent only once the dead worker's lease had expired
    expect(r.requests[0]!.receivedAt! - claimedAt).toBeGreaterThanOrEqual(290);
  });

  it('sends nothing to a config deleted before delivery, and still serves the task’s other configs', async () => {
    const gone = await receiver();
    const kept = await receiver();
    const store = await openStore();
    const t = new TaskWriter(store, 'task-deleted');
    await t.addConfig('gone', gone.url());
    await t.addConfig('kept', kept.url());
    await t.emit(['gone', 'kept'], 2);
    await store.deletePushConfig('task-deleted', 'gone');

    const w = worker(store);
    w.start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    await w.stop();
    expect(gone.requests).toHaveLength(0);
    expect(kept.requests.map(seqOf)).toEqual([1, 2]);
  });

  it('keeps a dead webhook from holding back the task’s other configs, each config still in order (issue 25 P1)', async () => {
    // The dead one hangs until the attempt times out, then waits a long backoff before its retry.
    const dead = await receiver(() => {});
    const working = await receiver();
    const store = await openStore();
    const t = new TaskWriter(store, 'task-p1');
    await t.addConfig('dead', dead.url());
    await t.addConfig('working', working.url());
    await t.emit(['dead', 'working'], 3);
    await t.emit(['dead', 'working'], 2);

    const timeoutMs = 3_000;
    const started = Date.now();
    worker(store, { timeoutMs, backoff: { baseMs: 60_000, maxMs: 60_000 } }).start();
    await waitFor(() => working.requests.length === 5, timeoutMs);
    // All five while the dead webhook's first attempt is still hanging: nothing queued behind it.
    expect(Date.now() - started).toBeLessThan(timeoutMs);
    expect(working.requests.map(seqOf)).toEqual([1, 2, 3, 4, 5]);
    expect(dead.requests.map(seqOf)).toEqual([1]);
  });

  it('gives up after maxAttempts and moves on to the task’s next event', async () => {
    const r = await receiver((req, res) => res.writeHead(seqOf(req) === 1 ? 500 : 200).end());
    const store = await openStore();
    const t = new TaskWriter(store, 'task-giveup');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg'], 2);

    const w = worker(store, { maxAttempts: 3 });
    w.start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    await w.stop();
    expect(r.requests.map(seqOf)).toEqual([1, 1, 1, 2]);
  });

  it('gives up at once on a non-retryable status', async () => {
    const r = await receiver((_req, res) => res.writeHead(404).end());
    const store = await openStore();
    const t = new TaskWriter(store, 'task-404');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);

    const w = worker(store);
    w.start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    await w.stop();
    expect(r.requests).toHaveLength(1);
  });

  it('gives up at once on a URL the SSRF guard refuses, without sending', async () => {
    const r = await receiver();
    const store = await openStore();
    const t = new TaskWriter(store, 'task-ssrf');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);

    worker(store, { guard: new SsrfGuard({ allowHttp: true }) }).start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    expect(r.requests).toHaveLength(0);
  });

  it('delivers promptly on kick() without waiting for the poll', async () => {
    const r = await receiver();
    const store = await openStore();
    // The real store, with its claims counted: the first round must have found nothing.
    let claimsDone = 0;
    const claimOutbox = store.claimOutbox.bind(store);
    store.claimOutbox = async (...args) => {
      const out = await claimOutbox(...args);
      claimsDone++;
      return out;
    };
    const w = worker(store, { pollMs: 60_000 });
    w.start();
    await waitFor(() => claimsDone >= 1); // the next poll is a minute away

    const t = new TaskWriter(store, 'task-kick');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);
    w.kick();
    await waitFor(() => r.requests.length === 1, 2000);
  });

  it('stop() waits for the delivery in flight to be sent and recorded', async () => {
    const r = await receiver((_req, res) => setTimeout(() => res.writeHead(200).end(), 300));
    const store = await openStore();
    const t = new TaskWriter(store, 'task-stop');
    await t.addConfig('cfg', r.url());
    await t.emit(['cfg']);

    const w = worker(store);
    w.start();
    await waitFor(() => r.requests.length === 1);
    await w.stop();
    expect(await store.countOutbox()).toBe(0);
  });
});

describe('PushDeliveryWorker metrics', () => {
  it('counts sent, retried and given up, and the outbox backlog the gauges read', async () => {
    const metrics = new Metrics({ version: 'test', replica: 'r' });
    const r = await receiver((req, res) => res.writeHead(seqOf(req) === 1 ? 500 : 200).end());
    const store = await openStore();
    metrics.sources.outbox = () => store.outboxBacklog();
    const t = new TaskWriter(store, 'task-metrics');
    await t.addConfig('cfg', r.url());
    const queuedAt = Date.now();
    await t.emit(['cfg'], 2);
    const backlog = await store.outboxBacklog();
    expect(backlog.pending).toBe(2);
    expect(backlog.oldestCreatedAt).toBeGreaterThanOrEqual(queuedAt - 1000);
    expect(backlog.oldestCreatedAt).toBeLessThanOrEqual(Date.now());
    const before = await parseExposition(await metrics.scrape());
    expect(sampleSum(before, 'agentport_push_outbox_depth')).toBe(2);
    expect(sampleSum(before, 'agentport_push_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);

    const w = worker(store, { maxAttempts: 3, metrics });
    w.start();
    await waitFor(async () => (await store.countOutbox()) === 0);
    await w.stop();
    const after = await parseExposition(await metrics.scrape());
    // seq 1: two failed attempts retried, the third given up; seq 2 sent at once.
    expect(sampleSum(after, 'agentport_push_deliveries_total', { result: 'retried' })).toBe(2);
    expect(sampleSum(after, 'agentport_push_deliveries_total', { result: 'given_up' })).toBe(1);
    expect(sampleSum(after, 'agentport_push_deliveries_total', { result: 'sent' })).toBe(1);
    expect(sampleSum(after, 'agentport_push_outbox_depth')).toBe(0);
    expect(sampleSum(after, 'agentport_push_outbox_oldest_age_seconds')).toBe(0);
    expect(await store.outboxBacklog()).toEqual({ pending: 0 });
  });
});
