/**
 * The chaos test (issue 19): three replicas under a steady load of blocking sends while faults hit
 * them one after another — kill -9 of a replica, a PostgreSQL restart, a Redis restart, SIGTERM
 * (rolling restart) and SIGSTOP past the lease TTL — on a PostgreSQL and a Redis private to this
 * file (never the shared servers). Asserted from the store and the agent log: 0 lost, 0 duplicated,
 * 0 stuck, and no "retry" answer from the replica already running the stored task. Recovery times
 * are printed.
 *
 * `npm test` runs one short round (the CI slice, well under 2 minutes); `npm run chaos` runs
 * CHAOS_ROUNDS rounds (default 3) with more clients and longer gaps between faults.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startCluster, uniqueName, waitFor, type Cluster, type Replica } from '../support/cluster.js';
import { sleep, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../support/private-services.js';
import { Load } from './load.js';
import { countRunning, judge, readTasks } from './verdict.js';

const FULL = process.env.CHAOS_FULL === '1';
const ROUNDS = FULL ? Math.max(1, Number(process.env.CHAOS_ROUNDS ?? 3)) : 1;
const CLIENTS = FULL ? 12 : 4;
/** load between two faults */
const GAP_MS = FULL ? 5_000 : 1_500;
const LEASE_TTL_MS = 2_000;
const SWEEP_MS = 300;
const COMMIT_RETRY_MS = 1_500;
const RECOVERY_BOUND_MS = LEASE_TTL_MS + SWEEP_MS + 3_000;

let pgServer: PrivatePostgres;
let redis: PrivateRedis;
let cluster: Cluster;
let replicas: Replica[];
let schema: string;
let dir: string;
let agentLog: string;

interface Recovery {
  fault: string;
  /** fault → every replica answers /readyz 200 */
  readyMs: number;
  /** fault → every task the victim was running at the fault has ended or moved on (kill -9, SIGSTOP) */
  orphansRecoveredMs?: number;
  /** fault → the next acknowledged request */
  nextAckMs: number;
  /** SIGTERM: how the process ended and how long the graceful stop took */
  exit?: string;
  stopMs?: number;
}

async function ready(r: Replica): Promise<boolean> {
  try {
    const res = await fetch(`${r.base}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

describe('chaos: faults under load on three replicas (private PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-chaos-'));
    agentLog = path.join(dir, 'agent.log');
    schema = uniqueName('chaos');
    [pgServer, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    cluster = await startCluster(['A', 'B', 'C'], {
      postgresUrl: pgServer.url,
      schema,
      redisUrl: redis.url,
      prefix: uniqueName('chaos'),
      agentLog,
      leaseTtlMs: LEASE_TTL_MS,
      sweepIntervalMs: SWEEP_MS,
      commitRetryMs: COMMIT_RETRY_MS,
    });
    replicas = cluster.replicas;
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas ?? []) r.resume();
    await cluster?.stop();
    await Promise.all([pgServer?.destroy(), redis?.destroy()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it(
    'loses, duplicates and strands nothing across kill -9, PostgreSQL and Redis restarts, SIGTERM and SIGSTOP',
    async () => {
      const load = new Load({ replicas, clients: CLIENTS, answerTimeoutMs: 20_000, maxAttempts: 8 });
      const recoveries: Recovery[] = [];
      const started = Date.now();
      load.start();
      try {
        await waitFor(() => load.acknowledged >= 20, { timeoutMs: 20_000, what: '20 acknowledged requests before the first fault' });
        for (let round = 0; round < ROUNDS; round++) {
          const victim = (i: number) => replicas[(round + i) % replicas.length];
          recoveries.push(
            await fault('kill -9', load, victim(0), async (v) => {
              await v.kill();
              await sleep(500);
              await v.start();
            }),
          );
          await sleep(GAP_MS);
          recoveries.push(
            await fault('PostgreSQL restart', load, undefined, async () => {
              await pgServer.stop();
              await pgServer.start();
            }),
          );
          await sleep(GAP_MS);
          recoveries.push(
            await fault('Redis restart', load, undefined, async () => {
              await redis.kill();
              await sleep(300);
              await redis.start();
            }),
          );
          await sleep(GAP_MS);
          let exit = '';
          let stopMs = 0;
          const sigterm = await fault('SIGTERM', load, victim(1), async (v) => {
            const t0 = Date.now();
            await v.stop(15_000);
            stopMs = Date.now() - t0;
            exit = /exited: (.*)\n?$/.exec(v.output().trimEnd())?.[1] ?? 'unknown';
            await v.start();
          });
          recoveries.push({ ...sigterm, exit, stopMs });
          await sleep(GAP_MS);
          recoveries.push(
            await fault('SIGSTOP', load, victim(2), async (v) => {
              v.pause();
              await sleep(LEASE_TTL_MS + SWEEP_MS + 1_000);
              v.resume();
            }),
          );
          await sleep(GAP_MS);
        }
      } finally {
        await load.stop();
      }
      // Settle: every task owed progress gets it (or is recovered) within a lease TTL and a sweep.
      await waitFor(async () => (await countRunning(pgServer.url, schema)) === 0, { timeoutMs: RECOVERY_BOUND_MS + 10_000, what: 'no stored task still owed progress' }).catch(() => undefined);
      const verdict = judge(load.sent, await readTasks(pgServer.url, schema), agentLog);
      const summary = {
        rounds: ROUNDS,
        seconds: Math.round((Date.now() - started) / 1000),
        requests: load.sent.length,
        acknowledged: verdict.acknowledged,
        stored: verdict.stored,
        states: verdict.states,
        lost: verdict.lost.length,
        duplicated: verdict.duplicated.length,
        stuck: verdict.stuck.length,
        blindRetry: verdict.blindRetry.length,
        recoveries,
      };
      // eslint-disable-next-line no-console
      console.log(`chaos summary ${JSON.stringify(summary, null, 1)}`);
      const detail = `\n${cluster.logs(3_000)}`;
      expect(verdict.lost, `lost${detail}`).toEqual([]);
      expect(verdict.duplicated, `duplicated${detail}`).toEqual([]);
      expect(verdict.stuck, `stuck${detail}`).toEqual([]);
      expect(verdict.blindRetry, `a "retry" answer for a task already running${detail}`).toEqual([]);
      expect(verdict.acknowledged).toBeGreaterThan(50);
      for (const r of recoveries) {
        expect(r.readyMs, `${r.fault}: ready again`).toBeLessThan(30_000);
        if (r.orphansRecoveredMs !== undefined) expect(r.orphansRecoveredMs, `${r.fault}: orphans recovered`).toBeLessThan(RECOVERY_BOUND_MS);
        // A graceful stop under load ends by itself, well before the SIGKILL fallback.
        if (r.exit !== undefined) expect(r.exit, `${r.fault}: exit after ${r.stopMs} ms`).toBe('code 0 signal null');
      }
    },
    FULL ? 30 * 60_000 : 110_000,
  );
});

/** Ids of the stored tasks owed progress (leased to `replica`, when given). */
async function runningIds(replica?: string): Promise<string[]> {
  const rows = await readTasks(pgServer.url, schema);
  return rows.filter((r) => ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED'].includes(r.state) && (replica === undefined || r.lease_owner === replica)).map((r) => r.id);
}

/** Runs one fault, then measures how long the cluster takes to be whole again. */
async function fault(name: string, load: Load, victim: Replica | undefined, act: (v: Replica) => Promise<void>): Promise<Recovery> {
  const at = Date.now();
  const acksBefore = load.acknowledged;
  let orphansRecoveredMs: number | undefined;
  const watchOrphans =
    victim && (name === 'kill -9' || name === 'SIGSTOP')
      ? (async () => {
          // The tasks the victim was running at the fault (its own later tasks, after a restart, do
          // not count): recovered once none of them is still owed progress by the victim.
          const orphans = new Set(await runningIds(victim.id));
          const deadline = at + RECOVERY_BOUND_MS + 5_000;
          while (Date.now() < deadline) {
            const still = (await runningIds().catch(() => [...orphans])).filter((id) => orphans.has(id));
            if (still.length === 0) {
              orphansRecoveredMs = Date.now() - at;
              return;
            }
            await sleep(100);
          }
        })()
      : Promise.resolve();
  await act(victim as Replica);
  await watchOrphans;
  await waitFor(async () => (await Promise.all(replicas.map(ready))).every(Boolean), { timeoutMs: 30_000, intervalMs: 100, what: `every replica ready after ${name}` });
  const readyMs = Date.now() - at;
  await waitFor(() => load.acknowledged > acksBefore, { timeoutMs: 30_000, what: `an acknowledged request after ${name}` });
  return { fault: name, readyMs, nextAckMs: Date.now() - at, ...(orphansRecoveredMs !== undefined ? { orphansRecoveredMs } : {}) };
}
