/**
 * The pipelined GroupCommitter against a real PostgreSQL (AGENTPORT_TEST_PG, default the local
 * server): several batches in flight over the pool, and still every task's commits applied in the
 * order they were enqueued.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store, TaskCommit } from '../../src/store/store.js';
import { newTask, update } from './fixtures.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_${randomBytes(5).toString('hex')}_gc`;
let store: PostgresStore;

beforeAll(async () => {
  store = await openPostgresStore({ connectionString: url, schema, maxConnections: 6, connectionTimeoutMs: 5000 });
  await store.migrate();
});

afterAll(async () => {
  await store?.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
});

/**
 * The real store, watched: which tasks each commit() call held and which calls overlapped. It
 * changes nothing of what reaches PostgreSQL.
 */
function watched(inner: PostgresStore) {
  const inFlight = new Set<string[]>();
  let most = 0;
  const overlaps: string[] = [];
  const store = {
    commitConcurrency: inner.commitConcurrency,
    async commit(commits: TaskCommit[]): Promise<void> {
      const ids = commits.map((c) => c.task.id);
      for (const other of inFlight) {
        for (const id of ids) if (other.includes(id)) overlaps.push(id);
      }
      inFlight.add(ids);
      most = Math.max(most, inFlight.size);
      try {
        await inner.commit(commits);
      } finally {
        inFlight.delete(ids);
      }
    },
  };
  return { store: store as unknown as Store, mostInFlight: () => most, overlaps };
}

describe('GroupCommitter over PostgreSQL, pipelined', () => {
  it('uses the pool less one connection as its pipeline depth', () => {
    expect(store.commitConcurrency).toBe(5);
  });

  it('keeps every task’s commits in enqueue order while several batches are in flight', async () => {
    const w = watched(store);
    // Few tasks and small batches: a task's next commit comes up while its last is still in flight.
    const gc = new GroupCommitter(w.store, { maxBatch: 2 });
    const tasks = 6;
    const steps = 12;
    const chains: TaskCommit[][] = [];
    for (let t = 0; t < tasks; t++) {
      const chain = [newTask({ id: `order-${schema}-${t}` })];
      for (let s = 1; s < steps; s++) chain.push(update(chain[s - 1]!, { outboxConfigIds: ['hook'] }));
      chains.push(chain);
    }
    // The tasks interleaved (step s of every task, then step s + 1), half in one tick, the rest
    // a tick apart. Each commit expects the version its predecessor wrote, so a commit applied
    // before its predecessor would be rejected.
    const pending: Promise<void>[] = [];
    for (let s = 0; s < steps; s++) {
      for (let t = 0; t < tasks; t++) pending.push(gc.commit(chains[t]![s]!));
      if (s >= steps / 2) await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.allSettled(pending);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // Batches did overlap, and never on the same task.
    expect(w.mostInFlight()).toBeGreaterThan(1);
    expect(w.overlaps).toEqual([]);
    for (const chain of chains) {
      const id = chain[0]!.task.id;
      expect(await store.getTask('agent-a', id)).toMatchObject({ version: steps, seq: steps });
      expect((await store.readEvents(id, 0)).map((e) => e.seq)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
    }
    // The outbox delivers a task's entries in id order: the ids must follow each task's seqs.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ task_id: string; seq: number }>(`select task_id, seq from "${schema}".push_outbox order by id`);
      for (const chain of chains) {
        const seqs = rows.filter((r) => r.task_id === chain[0]!.task.id).map((r) => r.seq);
        expect(seqs).toEqual(Array.from({ length: steps - 1 }, (_, i) => i + 2));
      }
    } finally {
      await client.end();
    }
    await gc.close();
  });

  it('rejects only the stale commit of a pipelined batch and keeps the rest', async () => {
    const gc = new GroupCommitter(store, { maxBatch: 4 });
    const existing = newTask({ id: `stale-${schema}` });
    await gc.commit(existing);
    const stale = update(existing, { expectedVersion: 7 });
    const fresh = Array.from({ length: 10 }, (_, i) => newTask({ id: `fresh-${schema}-${i}` }));
    const results = await Promise.allSettled([...fresh.slice(0, 5), stale, ...fresh.slice(5)].map((c) => gc.commit(c)));
    expect(results.map((r) => r.status)).toEqual([...Array(5).fill('fulfilled'), 'rejected', ...Array(5).fill('fulfilled')]);
    for (const c of fresh) expect(await store.getTask('agent-a', c.task.id)).toMatchObject({ version: 1 });
    expect(await store.getTask('agent-a', existing.task.id)).toMatchObject({ version: 1 });
    await gc.close();
  });
});
