/**
 * Distributed mode under faults (issue 7): three replicas on a PostgreSQL and a Redis private to this
 * file, so that they can be crashed and restarted without touching the shared servers.
 *   - kill -9 of the replica running a task: another replica recovers it by rule within the lease
 *     TTL plus a sweep (non-resumable → FAILED with a message; resumable → re-run to COMPLETED);
 *   - Redis killed and restarted mid-stream: an open stream on B of a task on A goes on without gaps;
 *   - PostgreSQL crashed and restarted: requests meanwhile answer 503 promptly, without stack traces,
 *     then succeed; every acknowledged task is intact.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentLogFor, ensureBuilt, startCluster, uniqueName, waitFor, type Cluster, type Replica } from '../support/cluster.js';
import { sleep, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../support/private-services.js';
import { comparable, describe as describeEvents, eventLog, getTask, orderProblem, rpcRaw, sendBlocking, sendNonBlocking, stateOf, subscribe, userMessage, waitForState } from './a2a-client.js';

const LEASE_TTL_MS = 2_000;
const SWEEP_MS = 300;
/** how long after a kill the orphaned task may take to be recovered: TTL + a sweep + scheduling slack */
const RECOVERY_BOUND_MS = LEASE_TTL_MS + SWEEP_MS + 1_500;
/** the two tests that start a replica again at their end (see them) */
const RESTARTS_A_REPLICA_MS = 90_000;
/** the longest any request may take while a backing service is down */
const OUTAGE_ANSWER_BOUND_MS = 10_000;

let pgServer: PrivatePostgres;
let redis: PrivateRedis;
let cluster: Cluster;
let A: Replica;
let B: Replica;
let C: Replica;
let dir: string;
let agentLog: string;

async function withLogs(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (process.env.AGENTPORT_TEST_DUMP_LOGS) writeFileSync(process.env.AGENTPORT_TEST_DUMP_LOGS, cluster?.logs(60_000) ?? '');
    if (err instanceof Error) {
      err.message += `\n\n--- replica output (tail) ---\n${cluster?.logs(8_000)}`;
      err.message += `\n--- private PostgreSQL log (tail) ---\n${(await pgServer?.log())?.slice(-2_000)}`;
      err.message += `\n--- private Redis log (tail) ---\n${redis?.log().slice(-1_000)}`;
    }
    throw err;
  }
}

async function readyStatus(r: Replica): Promise<number> {
  try {
    const res = await fetch(`${r.base}/readyz`, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return -1;
  }
}

/** Polls /readyz until every replica answers `status`; fails at once when one of them has died. */
const waitReadyStatus = (replicas: Replica[], status: number, timeoutMs: number, what: string) =>
  waitFor(
    async () => {
      const dead = replicas.find((r) => !r.running);
      if (dead) throw new ReplicaDied(dead);
      return (await Promise.all(replicas.map(readyStatus))).every((s) => s === status);
    },
    { timeoutMs, intervalMs: 100, what, failFast: (err) => err instanceof ReplicaDied },
  );

class ReplicaDied extends Error {
  constructor(r: Replica) {
    super(`replica ${r.id} died:\n${r.crashSummary()}`);
  }
}

/** What a client must never see: a stack trace or an internal path in an error answer. */
const LEAKS = /\n\s+at |\\n\s+at |node_modules|\/dist\/|\/src\//;

describe('distributed mode under faults (private PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-faults-'));
    agentLog = path.join(dir, 'agent.log');
    [pgServer, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    cluster = await startCluster(['A', 'B', 'C'], {
      postgresUrl: pgServer.url,
      schema: uniqueName('faults'),
      redisUrl: redis.url,
      prefix: uniqueName('faults'),
      agentLog,
      leaseTtlMs: LEASE_TTL_MS,
      sweepIntervalMs: SWEEP_MS,
    });
    [A, B, C] = [cluster.get('A'), cluster.get('B'), cluster.get('C')];
  }, 120_000);

  // A test that failed half-way may have left a replica down.
  beforeEach(() => cluster.ensureRunning(), 60_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([pgServer?.destroy(), redis?.destroy()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  // These two start replica A again at their end; under the suite's load (the image test's pod beside
  // them) that restart alone took ~20 s, past the default 30 s limit (session 38's clean clone). What
  // they assert of recovery is bounded by RECOVERY_BOUND_MS inside, not by this limit.
  it(
    'recovers the tasks of a replica killed with -9 by rule: FAILED when not resumable, re-run when resumable',
    () =>
      withLogs(async () => {
        const plain = await sendNonBlocking(A, 'work', 'slow 100');
        const resumable = await sendNonBlocking(A, 'resumable', 'slow 30');
        for (const t of [plain, resumable]) {
          await waitFor(() => agentLogFor(agentLog, t.id).some((l) => l.event === 'step' && l.step! >= 3), {
            timeoutMs: 5_000,
            what: `task ${t.id} to take 3 steps`,
          });
          expect(agentLogFor(agentLog, t.id).find((l) => l.event === 'start')?.pid, 'ran on A').toBe(A.pid);
        }
        const deadPid = A.pid;
        await A.kill();
        const killedAt = Date.now();

        // Not resumable: FAILED, with a status message that says why, seen from any replica.
        const failed = await waitForState(B, 'work', plain.id, 'TASK_STATE_FAILED', RECOVERY_BOUND_MS + 3_000);
        const failedAfter = Date.now() - killedAt;
        const why = JSON.stringify(failed.status.message?.parts ?? []);
        expect(why, 'the status message says the server running it stopped').toMatch(/(server|replica)\b.*\bstopped/i);
        expect((await getTask(C, 'work', plain.id)).status.state).toBe('TASK_STATE_FAILED');
        expect(failedAfter, 'recovered within lease TTL + sweep').toBeLessThanOrEqual(RECOVERY_BOUND_MS);

        // Resumable: re-run on another replica (ctx.resumed), which finishes the work.
        const resumedLine = await waitFor(() => agentLogFor(agentLog, resumable.id).find((l) => l.event === 'resumed'), {
          timeoutMs: RECOVERY_BOUND_MS + 3_000,
          what: `task ${resumable.id} to be resumed`,
        });
        expect(resumedLine.at - killedAt, 'resumed within lease TTL + sweep').toBeLessThanOrEqual(RECOVERY_BOUND_MS);
        expect([B.pid, C.pid]).toContain(resumedLine.pid);
        expect(resumedLine.pid).not.toBe(deadPid);
        const done = await waitForState(C, 'resumable', resumable.id, 'TASK_STATE_COMPLETED', 10_000);
        const parts = done.artifacts.flatMap((a: { parts: Array<{ text: string }> }) => a.parts.map((p) => p.text));
        expect(parts, 'each chunk exactly once, in order, across the two runs').toEqual(Array.from({ length: 30 }, (_, i) => `chunk ${i + 1}`));
        const log = await eventLog(B, 'resumable', resumable.id);
        expect(orderProblem(log)).toBeUndefined();
        expect(stateOf(log[log.length - 1]!)).toBe('TASK_STATE_COMPLETED');
        const starts = agentLogFor(agentLog, resumable.id).filter((l) => l.event === 'start' || l.event === 'resumed');
        expect(
          starts.map((l) => l.event),
          'one run before the kill, one resumed run after',
        ).toEqual(['start', 'resumed']);
        // eslint-disable-next-line no-console
        console.log(`kill -9: FAILED after ${failedAfter} ms, resumed after ${resumedLine.at - killedAt} ms (TTL ${LEASE_TTL_MS}, sweep ${SWEEP_MS})`);

        await A.start();
      }),
    RESTARTS_A_REPLICA_MS,
  );

  it(
    'hands a resumable task over at a graceful stop (rolling restart) without waiting for the lease to lapse',
    () =>
      withLogs(async () => {
        const task = await sendNonBlocking(A, 'resumable', 'slow 30');
        await waitFor(() => agentLogFor(agentLog, task.id).some((l) => l.event === 'step' && l.step! >= 3), {
          timeoutMs: 5_000,
          what: `task ${task.id} to take 3 steps`,
        });
        const stoppedPid = A.pid;
        const stoppingAt = Date.now();
        await A.stop(10_000);
        const resumedLine = await waitFor(() => agentLogFor(agentLog, task.id).find((l) => l.event === 'resumed'), {
          timeoutMs: RECOVERY_BOUND_MS + 3_000,
          what: `task ${task.id} to be resumed after A stopped`,
        });
        expect(resumedLine.pid).not.toBe(stoppedPid);
        // Released, not expired: picked up by the next sweep after the stop, well inside the lease TTL.
        expect(resumedLine.at - stoppingAt, 'resumed before the lease would have lapsed').toBeLessThan(LEASE_TTL_MS);
        const done = await waitForState(B, 'resumable', task.id, 'TASK_STATE_COMPLETED', 10_000);
        const parts = done.artifacts.flatMap((a: { parts: Array<{ text: string }> }) => a.parts.map((p) => p.text));
        expect(parts, 'each chunk exactly once, in order, across the two runs').toEqual(Array.from({ length: 30 }, (_, i) => `chunk ${i + 1}`));
        expect(orderProblem(await eventLog(C, 'resumable', task.id))).toBeUndefined();
        await A.start();
      }),
    RESTARTS_A_REPLICA_MS,
  );

  it('keeps a stream on B of a task on A going without gaps across a Redis restart', () =>
    withLogs(async () => {
      const task = await sendNonBlocking(A, 'work', 'slow 40');
      const onB = await subscribe(B, 'work', task.id);
      await onB.waitFor((e) => !!e.data?.artifactUpdate, 5_000, 'a first chunk on B');

      await redis.kill();
      const chunksAtKill = (await getTask(A, 'work', task.id)).artifacts?.[0]?.parts?.length ?? 0;
      await waitReadyStatus([A, B, C], 503, 5_000, 'every replica to report not ready while Redis is down');
      // The task goes on while Redis is down (PostgreSQL holds the events).
      await waitFor(async () => ((await getTask(A, 'work', task.id)).artifacts?.[0]?.parts?.length ?? 0) >= chunksAtKill + 3, {
        timeoutMs: 5_000,
        what: 'the task to progress while Redis is down',
      });
      await redis.start();
      await waitReadyStatus([A, B, C], 200, 10_000, 'every replica to be ready again after Redis is back');

      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([onB.done.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 15_000)))]);
      clearTimeout(timer);
      if (!ended) onB.close();
      expect(ended && onB.endedByServer(), `stream on B ended by the server; got ${describeEvents(onB.events)}`).toBe(true);

      const log = await eventLog(C, 'work', task.id);
      expect(stateOf(log[log.length - 1]!)).toBe('TASK_STATE_COMPLETED');
      const [snapshot, ...rest] = onB.events;
      expect(comparable(rest), 'B got every event after its snapshot, once, in order').toEqual(comparable(log.filter((e) => e.id! > snapshot!.id!)));
    }));

  it('answers 503 promptly while PostgreSQL is down, recovers after, and loses nothing acknowledged', () =>
    withLogs(async () => {
      const replicas = [A, B, C];
      const acked: Array<{ id: string; text: string }> = [];
      const badAnswers: string[] = [];
      let stopLoad = false;
      let outage = false;
      let outageAnswers = 0;

      // A steady load of blocking sends spread over the replicas, across the crash and the restart.
      const client = async (c: number) => {
        for (let i = 0; !stopLoad; i++) {
          const r = replicas[(c + i) % replicas.length]!;
          const text = `load-${c}-${i}`;
          const t0 = Date.now();
          let a: { status: number; body: any };
          try {
            a = await rpcRaw(r, 'echo', 'SendMessage', { message: userMessage(text) }, OUTAGE_ANSWER_BOUND_MS);
          } catch (err) {
            badAnswers.push(`${r.id} ${text}: no answer within ${Date.now() - t0} ms (${err instanceof Error ? err.message : err})`);
            continue;
          }
          const task = a.body?.result?.task;
          if (a.status === 200 && task?.id) acked.push({ id: task.id, text });
          else if (a.status === 503 && a.body?.error?.code !== undefined && !LEAKS.test(JSON.stringify(a.body))) outageAnswers++;
          else badAnswers.push(`${r.id} ${text}: HTTP ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
          if (outage) await sleep(50);
        }
      };
      const load = Array.from({ length: 4 }, (_, c) => client(c));
      await waitFor(() => acked.length >= 20, { timeoutMs: 10_000, what: '20 acknowledged sends before the crash' });

      await pgServer.crash();
      outage = true;
      await waitReadyStatus(replicas, 503, 5_000, 'every replica to report not ready while PostgreSQL is down');
      // Each kind of request, on each replica, over both HTTP bindings: a prompt, clean 503.
      const known = acked[0]!.id;
      for (const r of replicas) {
        const probes: Array<[string, () => Promise<{ status: number; text: string }>]> = [
          ['SendMessage', async () => raw(await rpcRaw(r, 'echo', 'SendMessage', { message: userMessage('during outage') }, OUTAGE_ANSWER_BOUND_MS))],
          ['GetTask', async () => raw(await rpcRaw(r, 'echo', 'GetTask', { id: known }, OUTAGE_ANSWER_BOUND_MS))],
          ['ListTasks', async () => raw(await rpcRaw(r, 'echo', 'ListTasks', { pageSize: 5 }, OUTAGE_ANSWER_BOUND_MS))],
          ['REST message:send', () => restSend(r, 'during outage')],
        ];
        for (const [name, probe] of probes) {
          const t0 = Date.now();
          const a = await probe();
          const ms = Date.now() - t0;
          // soft: one run reports every kind of request that misbehaves, not only the first
          expect.soft(a.status, `${name} on ${r.id} during the outage: ${a.text.slice(0, 300)}`).toBe(503);
          expect.soft(a.text, `${name} on ${r.id}: no internals in the answer`).not.toMatch(LEAKS);
          expect.soft(ms, `${name} on ${r.id} answered within the bound`).toBeLessThan(OUTAGE_ANSWER_BOUND_MS);
          // An A2A error a client can act on: Unavailable (REST status UNAVAILABLE; JSON-RPC -32603, which
          // Internal shares, so also its ErrorInfo reason).
          const body = (() => {
            try {
              return JSON.parse(a.text);
            } catch {
              return undefined;
            }
          })();
          if (name.startsWith('REST')) expect.soft(body?.error?.status, `${name} on ${r.id}: error status`).toBe('UNAVAILABLE');
          else {
            expect.soft(body?.error?.code, `${name} on ${r.id}: JSON-RPC error code`).toBe(-32603);
            expect.soft(body?.error?.data?.[0]?.reason, `${name} on ${r.id}: JSON-RPC ErrorInfo reason`).toBe('UNAVAILABLE');
          }
        }
      }
      const ackedBeforeRestart = acked.length;

      await pgServer.start();
      outage = false;
      await waitReadyStatus(replicas, 200, 15_000, 'every replica to be ready again after PostgreSQL is back');
      await waitFor(() => acked.length >= ackedBeforeRestart + 20, { timeoutMs: 15_000, what: '20 acknowledged sends after the restart' });
      stopLoad = true;
      await Promise.all(load);

      for (const r of replicas) expect(r.running, `replica ${r.id} survived the outage`).toBe(true);
      expect.soft(badAnswers.slice(0, 5), `${badAnswers.length} answers were neither an ack nor a clean 503`).toEqual([]);
      // Every acknowledged task, read back from a replica other than the one that took it when possible.
      const problems: string[] = [];
      for (const [i, a] of acked.entries()) {
        const r = replicas[i % replicas.length]!;
        const t = await getTask(r, 'echo', a.id).catch((err: Error) => ({ error: err.message }));
        if (t.status?.state !== 'TASK_STATE_COMPLETED') problems.push(`${a.id}: ${JSON.stringify(t).slice(0, 200)}`);
        else if (JSON.stringify(t.artifacts.flatMap((x: { parts: unknown[] }) => x.parts)) !== JSON.stringify([{ text: a.text }])) {
          problems.push(`${a.id}: artifacts ${JSON.stringify(t.artifacts)}`);
        }
      }
      expect(problems.slice(0, 10), `${problems.length} of ${acked.length} acknowledged tasks damaged`).toEqual([]);
      // eslint-disable-next-line no-console
      console.log(`PostgreSQL crash: ${acked.length} acknowledged sends (${ackedBeforeRestart} before the restart), ${outageAnswers} clean 503s from the load`);
      // and new work flows on every replica
      for (const r of replicas) expect((await sendBlocking(r, 'echo', `after ${r.id}`)).status.state).toBe('TASK_STATE_COMPLETED');
    }));
});

function raw(a: { status: number; body: unknown }): { status: number; text: string } {
  return { status: a.status, text: typeof a.body === 'string' ? a.body : JSON.stringify(a.body) };
}

async function restSend(r: Replica, text: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${r.url('echo')}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage(text) }),
    signal: AbortSignal.timeout(OUTAGE_ANSWER_BOUND_MS),
  });
  return { status: res.status, text: await res.text() };
}
