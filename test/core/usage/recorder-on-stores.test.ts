/**
 * The call queue against the real stores: what the recorder builds from a call (fractional
 * latencies, optional fields absent) is what SQLite and PostgreSQL accept, and the analytics query
 * finds it. PostgreSQL's bigint refuses what SQLite stores without a word (a time with a fraction).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageRecorder } from '../../../src/core/usage/usage-recorder.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js';

const pgUrl = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(join(tmpdir(), 'agentport-recorder-'));
const schema = `t_recorder_${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
});

const stores: Record<string, () => Promise<Store>> = {
  sqlite: () => openSqliteStore({ file: join(dir, 'usage.db') }),
  postgres: () => openPostgresStore({ connectionString: pgUrl, schema, connectionTimeoutMs: 5000 }),
};

describe.each(Object.keys(stores))('the call queue on %s', (name) => {
  it('writes a call with fractional timings, and the query counts it', async () => {
    const store = await stores[name]!();
    await store.migrate();
    const errors: unknown[] = [];
    const recorder = new UsageRecorder({
      store: store.usage,
      replica: 'r1',
      config: { enabled: true, retentionDays: 90, queueLimit: 100, flushIntervalMs: 1000 },
      log: { warn: () => {}, error: (obj) => errors.push(obj) },
    });
    try {
      const d = recorder.open('a2a-jsonrpc/1.0')!;
      d.operation = 'GetTask';
      d.agent = 'echo';
      d.ttfbMs = 0.731;
      recorder.finish(d, { status: 200, latencyMs: 1.4567, bytesOut: 321 });
      await recorder.flush();
      expect(errors).toEqual([]);
      const groups = await store.usage.query({ groupBy: ['operation'], filters: { agent: ['echo'] }, from: Date.now() - 60_000, to: Date.now() + 60_000 });
      expect(groups.map((g) => [g.key.operation, g.calls])).toEqual([['GetTask', 1]]);
    } finally {
      await recorder.close();
      await store.close();
    }
  });
  it('writes a large queue in slices with turns of the event loop between them, every row kept', async () => {
    const store = await stores[name]!();
    await store.migrate();
    const writes: number[] = [];
    const inner = store.usage;
    // The real store, watched: how many rows each write carried.
    const watched = Object.create(inner) as typeof inner;
    watched.write = (records, amends) => {
      writes.push(records.length + amends.length);
      return inner.write(records, amends);
    };
    const recorder = new UsageRecorder({
      store: watched,
      replica: 'r1',
      config: { enabled: true, retentionDays: 90, queueLimit: 10_000, flushIntervalMs: 1000 },
      log: { warn: () => {}, error: () => {} },
    });
    try {
      for (let i = 0; i < 1_100; i++) {
        const d = recorder.open('a2a-jsonrpc/1.0')!;
        d.operation = 'GetTask';
        d.agent = 'slices';
        recorder.finish(d, { status: 200, latencyMs: 1 });
      }
      let turns = 0;
      let counting = true;
      const tick = (): void => {
        if (!counting) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      await recorder.flush();
      counting = false;
      expect(writes).toEqual([250, 250, 250, 250, 100]);
      // Other work ran between the slices, not only after the whole queue.
      expect(turns).toBeGreaterThanOrEqual(4);
      const groups = await store.usage.query({ groupBy: ['operation'], filters: { agent: ['slices'] }, from: Date.now() - 60_000, to: Date.now() + 60_000 });
      expect(groups.map((g) => [g.key.operation, g.calls])).toEqual([['GetTask', 1_100]]);
    } finally {
      await recorder.close();
      await store.close();
    }
  });
});
