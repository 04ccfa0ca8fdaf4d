/**
 * Distributed mode, issue 7 "Done means": three replicas of the real CLI (A, B, C) on the machine's
 * PostgreSQL (a schema of their own) and Redis (a prefix of their own). Any replica takes any
 * request: streams, resumes, cancels, follow-ups and push configs reach the task wherever it runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/private-services.js';
import { ROOT, agentLogFor, dropSchema, ensureBuilt, startCluster, uniqueName, waitFor, withFailureLogs, type Cluster, type Replica } from '../support/cluster.js';
import { startReceiver, type Receiver } from '../core/push/receiver.js';
import { openPostgresStore } from '../../src/store/index.js';
import {
  call,
  comparable,
  describe as describeEvents,
  eventLog,
  getTask,
  kindOf,
  orderProblem,
  sendBlocking,
  sendNonBlocking,
  sendStreaming,
  stateOf,
  subscribe,
  TERMINAL,
  userMessage,
  waitForState,
  type LiveStream,
  type SseEvent,
} from './a2a-client.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const STREAM_MS = 15_000;

let cluster: Cluster;
let A: Replica;
let B: Replica;
let C: Replica;
let dir: string;
let agentLog: string;
const schema = uniqueName('dist');
const prefix = uniqueName('dist');
/** every task the suite created, for the final ListTasks comparison */
const created = new Map<string, string>(); // taskId → agentId

/** Waits for a live stream to end by itself (the task reached a terminal or interrupted state). */
async function untilEnded(s: LiveStream, who: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), STREAM_MS)));
  const r = await Promise.race([s.done.then(() => 'done' as const), timedOut]);
  clearTimeout(timer);
  if (r === 'timeout') {
    s.close();
    throw new Error(`stream on ${who} still open after ${STREAM_MS} ms; got ${describeEvents(s.events)}`);
  }
  expect(s.endedByServer(), `stream on ${who} was cut, not ended: ${describeEvents(s.events)}`).toBe(true);
}

/** The log's events after `seq`, in the shape streams are compared in. */
const logAfter = (log: SseEvent[], seq: number) => comparable(log.filter((e) => (e.id ?? 0) > seq));

describe('three replicas on shared PostgreSQL and Redis', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-dist-'));
    agentLog = path.join(dir, 'agent.log');
    // forceUsecase binds every caller, so a run shows whether the binding reached it (mode none
    // otherwise leaves callers unbound); the test agent ignores usecases elsewhere.
    cluster = await startCluster(['A', 'B', 'C'], { postgresUrl: PG_URL, schema, redisUrl: REDIS_URL, prefix, agentLog, extraConfig: { auth: { mode: 'none', forceUsecase: 'cluster' } } });
    [A, B, C] = [cluster.get('A'), cluster.get('B'), cluster.get('C')];
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await dropSchema(PG_URL, schema).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  /** Attaches the replicas' output to a failing assertion's message. */
  const withLogs = (fn: () => Promise<void>) => withFailureLogs({ cluster: () => cluster, replicaTail: 8_000 }, fn);

  it('streams a task sent on A on B and C with the same events as the log, live, to the end', () =>
    withLogs(async () => {
      const onA = await sendStreaming(A, 'work', userMessage('slow 20'));
      const first = await onA.waitFor(() => true, 5_000, 'the first event on A');
      const taskId: string = first.data?.task?.id ?? first.data?.statusUpdate?.taskId;
      expect(taskId, `first event on A: ${JSON.stringify(first.data)}`).toBeTypeOf('string');
      created.set(taskId, 'work');
      const [onB, onC] = await Promise.all([subscribe(B, 'work', taskId), subscribe(C, 'work', taskId)]);
      await Promise.all([untilEnded(onA, 'A'), untilEnded(onB, 'B'), untilEnded(onC, 'C')]);

      const log = await eventLog(A, 'work', taskId);
      expect(orderProblem(log)).toBeUndefined();
      expect(stateOf(log[log.length - 1]!)).toBe('TASK_STATE_COMPLETED');
      // The same log read from the other replicas.
      expect(comparable(await eventLog(B, 'work', taskId))).toEqual(comparable(log));
      expect(comparable(await eventLog(C, 'work', taskId))).toEqual(comparable(log));

      for (const [who, s] of [
        ['B', onB],
        ['C', onC],
      ] as const) {
        // SubscribeToTask opens with the task as it stands, then every later event, in order, to the end.
        const [snapshot, ...rest] = s.events;
        expect(snapshot?.data.task?.id, `${who} opens with ${kindOf(snapshot?.data)}`).toBe(taskId);
        expect(comparable(rest), `stream on ${who}`).toEqual(logAfter(log, snapshot!.id!));
        // The subscriber joined early: most of the run reached it live, not as one snapshot.
        expect(rest.filter((e) => e.data.artifactUpdate).length, `live artifact chunks on ${who}`).toBeGreaterThanOrEqual(10);
      }
      // B and C saw identical sequences from the point both were subscribed.
      const from = Math.max(onB.events[0]!.id!, onC.events[0]!.id!);
      expect(comparable(onB.events.filter((e) => e.id! > from))).toEqual(comparable(onC.events.filter((e) => e.id! > from)));
      // The sender's own stream on A is the log too.
      expect(comparable(onA.events.slice(1))).toEqual(logAfter(log, onA.events[0]!.id!));
    }));

  it('resumes on C with Last-Event-ID after a disconnect from B, losing and repeating nothing', () =>
    withLogs(async () => {
      const task = await sendNonBlocking(A, 'work', 'slow 20');
      created.set(task.id, 'work');
      const onB = await subscribe(B, 'work', task.id);
      await onB.waitFor((e) => /chunk [3-9]|chunk 1\d/.test(JSON.stringify(e.data?.artifactUpdate?.artifact?.parts ?? [])), 5_000, 'chunk 3 on B');
      onB.close();
      await onB.done;
      const lastId = onB.events[onB.events.length - 1]!.id!;
      const chunksSeen = onB.events.filter((e) => e.data.artifactUpdate).length;
      // Events happen while no one listens: at least three more chunks are committed.
      await waitFor(
        async () => {
          const t = await getTask(A, 'work', task.id);
          const parts = t.artifacts?.[0]?.parts?.length ?? 0;
          return parts >= chunksSeen + 3 || TERMINAL.has(t.status.state);
        },
        { timeoutMs: 5_000, what: 'three more chunks after the disconnect' },
      );
      const onC = await subscribe(C, 'work', task.id, lastId);
      await untilEnded(onC, 'C');

      const log = await eventLog(B, 'work', task.id);
      expect(stateOf(log[log.length - 1]!)).toBe('TASK_STATE_COMPLETED');
      expect(onC.events[0]?.id, 'C resumes right after the last id B delivered').toBe(log.find((e) => e.id! > lastId)!.id);
      const joined = [...onB.events.slice(1), ...onC.events];
      expect(comparable(joined)).toEqual(logAfter(log, onB.events[0]!.id!));
      const chunks = joined.flatMap((e) => e.data.artifactUpdate?.artifact?.parts?.map((p: { text: string }) => p.text) ?? []);
      expect(chunks.slice(-20)).toEqual(Array.from({ length: 20 }, (_, i) => `chunk ${i + 1}`).slice(-chunks.length));
    }));

  it('cancels on C a task running on A: the executor on A stops and the task is CANCELED everywhere', () =>
    withLogs(async () => {
      const task = await sendNonBlocking(A, 'work', 'slow 100');
      created.set(task.id, 'work');
      const start = await waitFor(() => agentLogFor(agentLog, task.id).find((l) => l.event === 'step'), {
        timeoutMs: 5_000,
        what: `the agent to take a step on ${task.id}`,
      });
      expect(start.pid, 'the executor runs on the replica that took the message').toBe(A.pid);

      const t0 = Date.now();
      const canceled = await call(C, 'work', 'CancelTask', { id: task.id });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      const aborted = await waitFor(() => agentLogFor(agentLog, task.id).find((l) => l.event === 'aborted'), {
        timeoutMs: 3_000,
        what: `the executor of ${task.id} to be aborted`,
        detail: () => JSON.stringify(agentLogFor(agentLog, task.id).slice(-5)),
      });
      expect(aborted.pid, 'the abort happened in A').toBe(A.pid);
      // eslint-disable-next-line no-console
      console.log(`cancel on C → abort on A: ${aborted.at - t0} ms`);

      for (const r of [A, B, C]) expect((await getTask(r, 'work', task.id)).status.state, `on ${r.id}`).toBe('TASK_STATE_CANCELED');
      const log = await eventLog(C, 'work', task.id);
      expect(stateOf(log[log.length - 1]!), 'CANCELED is the last event').toBe('TASK_STATE_CANCELED');
      const lines = agentLogFor(agentLog, task.id);
      const abortIndex = lines.indexOf(lines.find((l) => l.event === 'aborted')!);
      expect(
        lines.slice(abortIndex + 1).filter((l) => l.event === 'step' || l.event === 'done'),
        'no work after the abort',
      ).toEqual([]);
      expect(
        lines.filter((l) => l.event === 'start').map((l) => l.pid),
        'one executor, cluster-wide',
      ).toEqual([A.pid]);
    }));

  it('completes on B an INPUT_REQUIRED task created on A', () =>
    withLogs(async () => {
      const asked = await sendBlocking(A, 'work', 'ask');
      created.set(asked.id, 'work');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const answered = await sendBlocking(B, 'work', 'answer forty-two', { taskId: asked.id, contextId: asked.contextId });
      expect(answered.id).toBe(asked.id);
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      for (const r of [A, B, C]) {
        const t = await getTask(r, 'work', asked.id);
        expect(t.status.state, `on ${r.id}`).toBe('TASK_STATE_COMPLETED');
        expect(
          t.artifacts.flatMap((a: { parts: unknown[] }) => a.parts),
          `on ${r.id}`,
        ).toEqual([{ text: 'forty-two' }]);
      }
    }));

  it("runs a follow-up that arrived on another replica with the caller's usecase binding", () =>
    withLogs(async () => {
      const direct = await sendBlocking(A, 'work', 'usecases');
      created.set(direct.id, 'work');
      expect(direct.artifacts[0].parts).toEqual([{ text: '["cluster"]' }]);
      const asked = await sendBlocking(A, 'work', 'ask');
      created.set(asked.id, 'work');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const answered = await sendBlocking(B, 'work', 'usecases', { taskId: asked.id, contextId: asked.contextId });
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.artifacts.flatMap((a: { parts: unknown[] }) => a.parts)).toEqual([{ text: '["cluster"]' }]);
      // A still holds the task, so B forwarded the message over the bus and A ran it: the binding
      // travelled with it (without it the run is unbound and answers null)
      const runs = agentLogFor(agentLog, asked.id).filter((l) => l.event === 'start');
      expect(runs.map((l) => [l.text, l.replica])).toEqual([
        ['ask', 'A'],
        ['usecases', 'A'],
      ]);
    }));

  it('stops an executor whose lease another replica took, even with no cancel signal (fencing by lease)', () =>
    withLogs(async () => {
      const task = await sendNonBlocking(A, 'work', 'slow 100');
      created.set(task.id, 'work');
      await waitFor(() => agentLogFor(agentLog, task.id).some((l) => l.event === 'step'), { timeoutMs: 5_000, what: 'a first step on A' });
      // Another replica takes the task behind A's back (as recovery would after A stalled past its
      // TTL): no bus signal, only the lease row changes.
      const store = await openPostgresStore({ connectionString: PG_URL, schema });
      try {
        const now = Date.now();
        // A short lease: once it lapses, the sweep of a live replica recovers the task by rule.
        expect(await store.claimTask('work', task.id, 'intruder', now, now + 500, true)).toBeDefined();
      } finally {
        await store.close();
      }
      const takenAt = Date.now();
      const aborted = await waitFor(() => agentLogFor(agentLog, task.id).find((l) => l.event === 'aborted'), {
        timeoutMs: 5_000,
        what: 'the executor on A to stop after losing its lease',
      });
      expect(aborted.pid).toBe(A.pid);
      // The keeper renews every TTL/3; the executor's next commit would also have been refused.
      expect(aborted.at - takenAt).toBeLessThan(2_000);
      // The intruder never runs it: its lease lapses and the task ends FAILED by the recovery rule.
      const failed = await waitForState(C, 'work', task.id, 'TASK_STATE_FAILED', 10_000);
      expect(JSON.stringify(failed.status.message?.parts ?? [])).toMatch(/stopped/);
      expect(orderProblem(await eventLog(B, 'work', task.id))).toBeUndefined();
    }));

  it('runs one executor at a time for a task whose follow-ups arrive on two replicas at once', () =>
    withLogs(async () => {
      const asked = await sendBlocking(A, 'work', 'ask');
      created.set(asked.id, 'work');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const follow = { taskId: asked.id, contextId: asked.contextId };
      // Both replicas try to take the idle task at once: one claims it and runs the follow-up, the
      // other forwards its message to the executor that is now running.
      await Promise.all([sendNonBlocking(B, 'work', 'slow 5', follow), sendNonBlocking(C, 'work', 'slow 5', follow)]);
      const done = await waitForState(A, 'work', asked.id, 'TASK_STATE_COMPLETED', 10_000);
      const lines = agentLogFor(agentLog, asked.id).filter((l) => l.event === 'start');
      expect(
        lines.map((l) => l.text),
        'one run for the ask, one for the follow-ups',
      ).toEqual(['ask', 'slow 5']);
      const parts = done.artifacts.flatMap((x: { parts: Array<{ text: string }> }) => x.parts.map((p) => p.text));
      expect(parts, 'one executor produced the chunks, once each').toEqual(['chunk 1', 'chunk 2', 'chunk 3', 'chunk 4', 'chunk 5']);
      const users = (done.history ?? []).filter((m: { role: string }) => m.role === 'ROLE_USER');
      expect(
        users.map((m: { parts: Array<{ text: string }> }) => m.parts[0]!.text),
        'both follow-ups are in the history',
      ).toEqual(['ask', 'slow 5', 'slow 5']);
      expect(orderProblem(await eventLog(C, 'work', asked.id))).toBeUndefined();
    }));

  it('delivers push configured on B exactly once per event, in order, whichever replica runs the task', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      await withLogs(async () => {
        const asked = await sendBlocking(A, 'work', 'ask');
        created.set(asked.id, 'work');
        expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
        const config = await call(B, 'work', 'CreateTaskPushNotificationConfig', {
          taskId: asked.id,
          url: receiver.url('/hook/b'),
          token: 'token-on-b',
        });
        expect(config.taskId).toBe(asked.id);
        // The follow-up goes to A: the events are committed there, the config was written on B.
        await sendNonBlocking(A, 'work', 'slow 5', { taskId: asked.id, contextId: asked.contextId });
        await waitForState(C, 'work', asked.id, 'TASK_STATE_COMPLETED', 10_000);
        const bodies = () => receiver.requests.map((q) => JSON.parse(q.body.toString('utf8')));
        await waitFor(() => bodies().some((b) => b.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), {
          timeoutMs: 10_000,
          what: 'the COMPLETED push',
          detail: () => JSON.stringify(bodies().map(kindOf)),
        });
        // A duplicate would come from a second replica (or a retry) delivering the same outbox row:
        // wait until deliveries have been quiet for a second, bounded.
        let count = -1;
        await waitFor(
          async () => {
            const n = receiver.requests.length;
            const quiet = n === count;
            count = n;
            return quiet;
          },
          { timeoutMs: 10_000, intervalMs: 1_000, what: 'deliveries to settle' },
        );

        const log = await eventLog(C, 'work', asked.id);
        const inputRequired = [...log].reverse().find((e) => stateOf(e) === 'TASK_STATE_INPUT_REQUIRED')!;
        const expected = log.filter((e) => e.id! > inputRequired.id!).map((e) => e.data);
        expect(expected.length).toBeGreaterThanOrEqual(7); // WORKING, 5 chunks, COMPLETED
        expect(bodies(), 'every event after the config, once, in order').toEqual(expected);
        for (const q of receiver.requests) {
          expect(q.url).toBe('/hook/b');
          expect(q.headers['x-a2a-notification-token']).toBe('token-on-b');
        }
      });
    } finally {
      await receiver.close();
    }
  });

  it('serves the same JWKS (the shared card-signing keys) on every replica', () =>
    withLogs(async () => {
      const sets = await Promise.all([A, B, C].map(async (r) => (await fetch(`${r.base}/.well-known/jwks.json`)).json()));
      expect(sets[0].keys.length).toBeGreaterThan(0);
      expect(sets[1]).toEqual(sets[0]);
      expect(sets[2]).toEqual(sets[0]);
    }));

  it('works behind a round-robin proxy without sticky sessions, streaming SSE through it unbuffered', async () => {
    const port = await freePort();
    const proxy: ChildProcess = spawn(process.execPath, ['bench/rr-proxy.js', '--listen', String(port), '--verbose', ...[A, B, C].flatMap((r) => ['--upstream', r.base])], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let routed = '';
    proxy.stderr!.on('data', (b: Buffer) => (routed += b.toString('utf8')));
    try {
      await withLogs(async () => {
        const lb = { id: 'proxy', url: (agentId: string) => `http://127.0.0.1:${port}/a2a/${agentId}` } as Replica;
        await waitFor(() => routed.includes('rr-proxy: http://'), { timeoutMs: 5_000, what: 'the proxy to listen' });
        const stream = await sendStreaming(lb, 'work', userMessage('slow 6'));
        await untilEnded(stream, 'the proxy');
        const chunks = stream.events.filter((e) => e.data.artifactUpdate);
        expect(chunks.length).toBe(6);
        // Unbuffered: chunks arrived about 100 ms apart, not together at the end.
        expect(chunks[chunks.length - 1]!.at - chunks[0]!.at).toBeGreaterThanOrEqual(300);
        const taskId = stream.events[0]!.data.task?.id ?? stream.events[0]!.data.statusUpdate?.taskId;
        created.set(taskId, 'work');
        // Consecutive requests land on different replicas, and each answers the same.
        const views = [];
        for (let i = 0; i < 3; i++) views.push(await getTask(lb, 'work', taskId));
        for (const v of views) expect(v).toEqual(views[0]);
        expect(views[0].status.state).toBe('TASK_STATE_COMPLETED');
        const upstreams = new Set([...routed.matchAll(/-> (127\.0\.0\.1:\d+) 200/g)].map((m) => m[1]));
        expect(upstreams.size, routed).toBe(3);
      });
    } finally {
      proxy.kill('SIGTERM');
    }
  });

  it('answers GetTask and ListTasks identically on every replica', () =>
    withLogs(async () => {
      const first = await sendBlocking(A, 'echo', 'one');
      const contextId: string = first.contextId;
      const tasks = [first];
      for (const [i, r] of [B, C, A, B, C].entries()) tasks.push(await sendBlocking(r, 'echo', `n${i}`, { contextId }));
      for (const t of tasks) created.set(t.id, 'echo');
      expect(tasks.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);

      for (const t of tasks) {
        const views = await Promise.all([A, B, C].map((r) => getTask(r, 'echo', t.id)));
        expect(views[1]).toEqual(views[0]);
        expect(views[2]).toEqual(views[0]);
        expect(views[0].artifacts).toEqual(t.artifacts);
      }
      const lists = await Promise.all([A, B, C].map((r) => call(r, 'echo', 'ListTasks', { contextId, pageSize: 50 })));
      expect(lists[0].tasks.map((t: { id: string }) => t.id).sort()).toEqual(tasks.map((t) => t.id).sort());
      expect(lists[0].totalSize).toBe(6);
      expect(lists[1]).toEqual(lists[0]);
      expect(lists[2]).toEqual(lists[0]);

      // Everything this suite created, once every task has settled.
      for (const [id, agentId] of created) {
        await waitFor(async () => TERMINAL.has((await getTask(A, agentId, id)).status.state), { timeoutMs: 10_000, what: `task ${id} to settle` });
      }
      for (const agentId of ['work', 'echo']) {
        const all = await Promise.all([A, B, C].map((r) => call(r, agentId, 'ListTasks', { pageSize: 100 })));
        const ids = all[0].tasks.map((t: { id: string }) => t.id).sort();
        expect(ids).toEqual(
          [...created]
            .filter(([, a]) => a === agentId)
            .map(([id]) => id)
            .sort(),
        );
        expect(all[1]).toEqual(all[0]);
        expect(all[2]).toEqual(all[0]);
      }
    }));
});
