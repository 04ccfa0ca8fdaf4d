/**
 * Usage records are billing-grade across replicas (issue 13): three replicas on shared PostgreSQL and
 * Redis take a load; the records per (agent, outcome) equal the calls the client made, exactly; then
 * a replica is killed (SIGKILL) in the middle of a load, and every task the client saw complete
 * has exactly one usage record, no task has two, and every stored task has its record (the record
 * is committed with the task's own events, so there is nothing in between to lose).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, ensureBuilt, startCluster, uniqueName, waitFor, withFailureLogs, type Cluster, type Replica } from '../support/cluster.js';
import { sendBlocking } from './a2a-client.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let cluster: Cluster;
let replicas: Replica[];
let dir: string;
const schema = uniqueName('usage');
const prefix = uniqueName('usage');

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`set search_path to "${schema}"`);
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs `n` calls with `concurrency` in flight; each settles to its task or its failure. */
async function load<T>(n: number, concurrency: number, one: (i: number) => Promise<T>): Promise<Array<{ ok: true; value: T } | { ok: false; error: unknown }>> {
  const out: Array<{ ok: true; value: T } | { ok: false; error: unknown }> = new Array(n);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      try {
        out[i] = { ok: true, value: await one(i) };
      } catch (error) {
        out[i] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

describe('usage records across three replicas', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-usage-'));
    cluster = await startCluster(['UA', 'UB', 'UC'], { postgresUrl: PG_URL, schema, redisUrl: REDIS_URL, prefix, agentLog: path.join(dir, 'agent.log'), extraConfig: { usage: { flushIntervalMs: 100 } } });
    replicas = cluster.replicas;
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await dropSchema(PG_URL, schema).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const withLogs = (fn: () => Promise<void>) => withFailureLogs({ cluster: () => cluster, replicaTail: 8_000 }, fn);

  it('records per (agent, outcome) equal the calls the client made, exactly', () =>
    withLogs(async () => {
      const echo = await load(90, 9, (i) => sendBlocking(replicas[i % 3]!, 'echo', `e${i}`));
      const work = await load(30, 6, (i) => sendBlocking(replicas[i % 3]!, 'work', i % 5 === 0 ? 'ask' : 'slow 2'));
      expect(echo.every((r) => r.ok) && work.every((r) => r.ok)).toBe(true);
      const rows = await query<{ agent: string; outcome: string; n: string }>("select agent, outcome, count(*) as n from usage_records_all where operation = 'SendMessage' group by agent, outcome order by 1, 2");
      expect(rows.map((r) => [r.agent, r.outcome, Number(r.n)])).toEqual([
        ['echo', 'TASK_STATE_COMPLETED', 90],
        ['work', 'TASK_STATE_COMPLETED', 24],
        ['work', 'TASK_STATE_INPUT_REQUIRED', 6],
      ]);
    }));

  it(
    'kill -9 of a replica mid-load: every task seen complete has one record, none two, every stored task has its own',
    () =>
      withLogs(async () => {
        const victim = replicas[2]!;
        const killAfter = 40;
        let started = 0;
        const results = await load(120, 12, async (i) => {
          if (++started === killAfter) void victim.kill();
          // after the kill the client only reaches the survivors, as a load balancer would
          const r = victim.running ? replicas[i % 3]! : replicas[i % 2]!;
          return sendBlocking(r, i % 4 === 0 ? 'work' : 'echo', i % 4 === 0 ? 'slow 3' : `k${i}`);
        });
        expect(victim.running).toBe(false);
        const seenCompleted = results.flatMap((r) => (r.ok && r.value.status.state === 'TASK_STATE_COMPLETED' ? [r.value.id as string] : []));
        expect(seenCompleted.length).toBeGreaterThan(60);
        // Tasks the killed replica was running are recovered by rule on a survivor (lease TTL + sweep):
        // their terminal commit, with the final record, comes from there.
        await waitFor(async () => (await query<{ n: string }>("select count(*) as n from tasks where state in ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')"))[0]!.n === '0', {
          timeoutMs: 20_000,
          what: 'orphaned tasks to be recovered',
        });
        const records = await query<{ id: string; outcome: string; final: number }>("select id, outcome, final from usage_records_all where kind = 'task'");
        const byId = new Map<string, number>();
        for (const r of records) byId.set(r.id, (byId.get(r.id) ?? 0) + 1);
        for (const id of seenCompleted) {
          expect(byId.get(id), `task ${id} seen COMPLETED`).toBe(1);
          expect(records.find((r) => r.id === id)).toMatchObject({ outcome: 'TASK_STATE_COMPLETED', final: 1 });
        }
        expect([...byId.values()].every((n) => n === 1)).toBe(true);
        // every task the store holds has exactly its record, in its current state
        const unmatched = await query<{ id: string; state: string; outcome: string | null }>(
          'select t.id, t.state, u.outcome from tasks t left join usage_records_all u on u.id = t.id where u.id is null or u.outcome <> t.state',
        );
        expect(unmatched).toEqual([]);
        // the outcome is the task row's state since migration 0023; what the commits wrote is final-ness
        const notFinal = await query<{ id: string }>(
          "select u.id from usage_records_all u join tasks t on t.id = u.id where t.state in ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED') and u.final <> 1",
        );
        expect(notFinal).toEqual([]);
      }),
    120_000,
  );
});
