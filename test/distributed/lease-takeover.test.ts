/**
 * A replica that stalls (SIGSTOP) past its lease TTL while its executor is quiet (issue 19):
 *   - an executor quiet for longer than the TTL keeps its task: the lease keeper renews it;
 *   - after a takeover, the stalled replica's lease keeper stops its executor as soon as it runs
 *     again, without waiting for the executor's next commit;
 *   - C5: the stalled executor's side effect, guarded by ctx.stillOwner(), does not happen twice;
 *   - C4: requests whose clients gave up while the replica was stalled start no work.
 * Two replicas on a PostgreSQL and a Redis private to this file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentLogFor, ensureBuilt, readAgentLog, startCluster, uniqueName, waitFor, withFailureLogs, type Cluster, type Replica } from '../support/cluster.js';
import { sleep, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../support/private-services.js';
import { call, rpcRaw, sendBlocking, sendNonBlocking, userMessage, waitForState } from './a2a-client.js';

const LEASE_TTL_MS = 1_000;
const SWEEP_MS = 200;
/** a stall long enough for the other replica to see the lease expired and take the task */
const STALL_MS = LEASE_TTL_MS + SWEEP_MS + 1_300;

let pgServer: PrivatePostgres;
let redis: PrivateRedis;
let cluster: Cluster;
let A: Replica;
let B: Replica;
let dir: string;
let agentLog: string;

const withLogs = (fn: () => Promise<void>) => withFailureLogs({ cluster: () => cluster }, fn);

/** Waits until A has the task's executor running (its first log line is from A). */
async function startedOnA(taskId: string): Promise<void> {
  const first = await waitFor(() => agentLogFor(agentLog, taskId)[0], { timeoutMs: 5_000, what: `task ${taskId} to start` });
  expect(first.pid, 'the task runs on A').toBe(A.pid);
}

describe('lease takeover after a stall (private PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-takeover-'));
    agentLog = path.join(dir, 'agent.log');
    [pgServer, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    cluster = await startCluster(['A', 'B'], {
      postgresUrl: pgServer.url,
      schema: uniqueName('takeover'),
      redisUrl: redis.url,
      prefix: uniqueName('takeover'),
      agentLog,
      leaseTtlMs: LEASE_TTL_MS,
      sweepIntervalMs: SWEEP_MS,
    });
    [A, B] = [cluster.get('A'), cluster.get('B')];
  }, 120_000);

  beforeEach(() => {
    A.resume();
    return cluster.ensureRunning();
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([pgServer?.destroy(), redis?.destroy()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('keeps the task of an executor quiet for three lease TTLs on its replica: no takeover, one side effect', () =>
    withLogs(async () => {
      const task = await sendNonBlocking(A, 'work', `fenced ${3 * LEASE_TTL_MS}`);
      await startedOnA(task.id);
      const done = await waitForState(B, 'work', task.id, 'TASK_STATE_COMPLETED', 3 * LEASE_TTL_MS + 5_000);
      expect(done.status.message.parts[0].text).toBe('effect done');
      const lines = agentLogFor(agentLog, task.id);
      expect(
        lines.map((l) => `${l.event}@${l.replica}`),
        'one run, on A, never taken over',
      ).toEqual(['start@A', 'effect@A', 'done@A']);
    }));

  it('C5: the stalled executor checks stillOwner() and skips its side effect; the replica that took over performs it once', () =>
    withLogs(async () => {
      // Quiet for less than the stall: on SIGCONT the executor's timer fires at once, before any commit.
      const task = await sendNonBlocking(A, 'resumable', `fenced ${LEASE_TTL_MS}`);
      await startedOnA(task.id);
      A.pause();
      await waitFor(() => agentLogFor(agentLog, task.id).some((l) => l.event === 'resumed' && l.replica === 'B'), {
        timeoutMs: STALL_MS + 3_000,
        what: 'B to resume the task of the stalled replica',
      });
      A.resume();
      await waitForState(B, 'resumable', task.id, 'TASK_STATE_COMPLETED', 10_000);
      // A's executor has run past its guard by now (or was stopped by its lease keeper first).
      await waitFor(() => agentLogFor(agentLog, task.id).some((l) => l.replica === 'A' && (l.event === 'fenced' || l.event === 'aborted')), {
        timeoutMs: 5_000,
        what: "A's executor to reach its guard or be stopped",
      });
      const effects = agentLogFor(agentLog, task.id).filter((l) => l.event === 'effect');
      expect(
        effects.map((l) => l.replica),
        'the side effect happened once, on B',
      ).toEqual(['B']);
    }));

  it("the stalled replica's lease keeper stops its quiet executor as soon as it runs again, not at its next commit", () =>
    withLogs(async () => {
      const QUIET_MS = 10_000;
      const task = await sendNonBlocking(A, 'resumable', `fenced ${QUIET_MS}`);
      await startedOnA(task.id);
      A.pause();
      await waitFor(() => agentLogFor(agentLog, task.id).some((l) => l.event === 'resumed' && l.replica === 'B'), {
        timeoutMs: STALL_MS + 3_000,
        what: 'B to resume the task of the stalled replica',
      });
      A.resume();
      const resumedAt = Date.now();
      const aborted = await waitFor(() => agentLogFor(agentLog, task.id).find((l) => l.event === 'aborted' && l.replica === 'A'), {
        timeoutMs: 2 * LEASE_TTL_MS + 2_000,
        what: "A's lease keeper to stop its executor",
      });
      expect(aborted.at - resumedAt, 'stopped within a lease TTL of running again').toBeLessThan(LEASE_TTL_MS + 1_000);
      await call(B, 'resumable', 'CancelTask', { id: task.id });
    }));

  it('C4: requests whose clients gave up while the replica was stalled start nothing when it runs again', () =>
    withLogs(async () => {
      A.pause();
      const texts = Array.from({ length: 5 }, (_, i) => `gone-${Date.now().toString(36)}-${i}`);
      const answers = await Promise.all(
        texts.map((t) =>
          rpcRaw(A, 'work', 'SendMessage', { message: userMessage(t) }, 500).then(
            () => 'answered',
            () => 'gave up',
          ),
        ),
      );
      expect(answers).toEqual(texts.map(() => 'gave up'));
      A.resume();
      // Requests are handled in arrival order: once a later one is answered, the abandoned ones were seen.
      expect((await sendBlocking(A, 'work', 'after the stall')).status.state).toBe('TASK_STATE_COMPLETED');
      await sleep(300);
      const started = readAgentLog(agentLog).filter((l) => texts.includes(l.text));
      expect(
        started.map((l) => `${l.event} ${l.text}`),
        'no abandoned request ran',
      ).toEqual([]);
    }));
});
