/**
 * Migration 0023 on a store the schema before it made (both dialects): task records move from
 * usage_records into their task rows and timing rows, call records stay, and every usage read
 * (one record, a query, a rollup) answers what the rows said before the move.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import type { UsageRecord } from '../../src/store/usage-record.js';
import type { SqlUsageStore } from '../../src/store/usage/sql-usage-store.js';
import { migrateTo } from '../support/migrate-to.js';

const BEFORE = '0022_usage_remote_identity';
const HOUR = 3_600_000;
const T = 20_000 * 24 * HOUR + 5 * 60_000;

const task = (id: string, owner: string, state: string) => ({
  id,
  agent_id: 'agent-a',
  owner,
  context_id: `ctx-${id}`,
  state,
  status_time: T,
  created_at: T - 100,
  seq: 3,
  version: 2,
  task: JSON.stringify({ id, contextId: `ctx-${id}`, status: { state } }),
});

/** a usage_records row as 0022 left it, every column given */
const row = (o: Record<string, unknown> & { id: string }): Record<string, unknown> & { id: string } => ({
  kind: 'task',
  time: T,
  started_at: T - 100,
  final: 1,
  replica: 'r1',
  face: 'a2a-jsonrpc/1.0',
  operation: 'SendMessage',
  agent: 'agent-a',
  skill: null,
  tool: null,
  client_id: null,
  key_id: null,
  usecase: null,
  remote_subject: null,
  remote_issuer: null,
  error: 0,
  ttfb_ms: null,
  latency_ms: null,
  duration_ms: 100,
  bytes_in: null,
  bytes_out: null,
  model: null,
  prompt_tokens: 0,
  completion_tokens: 0,
  cached_tokens: 0,
  cost: 0,
  ...o,
});

const TASKS = [task('t1', 'alice', 'TASK_STATE_COMPLETED'), task('t2', 'bob', 'TASK_STATE_FAILED'), task('t3', 'carol', 'TASK_STATE_INPUT_REQUIRED')];
const RECORDS = [
  // an echo: subject = owner, timing amended
  row({
    id: 't1',
    task_id: 't1',
    context_id: 'ctx-t1',
    subject: 'alice',
    outcome: 'TASK_STATE_COMPLETED',
    ttfb_ms: 1.5,
    latency_ms: 2.5,
    bytes_in: 120,
    bytes_out: 448,
    prompt_tokens: 10,
    completion_tokens: 4,
    cached_tokens: 2,
    cost: 1.25,
    model: 'm1',
    skill: 'echo',
    key_id: 'k1',
  }),
  // a failed task whose subject is not its owner, with a remote identity and no timing
  row({
    id: 't2',
    task_id: 't2',
    context_id: 'ctx-t2',
    subject: 'mallory',
    outcome: 'TASK_STATE_FAILED',
    error: 1,
    remote_subject: 'bea',
    remote_issuer: 'https://as.example',
    client_id: 'cl',
    usecase: 'u',
    tool: 'search',
    prompt_tokens: 3,
    cost: 0.5,
  }),
  // a task at rest, not final: dated at its start
  row({ id: 't3', task_id: 't3', context_id: 'ctx-t3', subject: 'carol', outcome: 'TASK_STATE_INPUT_REQUIRED', final: 0, time: T - 100, duration_ms: null, bytes_in: 7 }),
  // a call record
  row({ id: 'c1', kind: 'call', face: 'management', operation: 'GET /api/v1/usage', agent: null, subject: 'alice', outcome: 'OK', latency_ms: 3, duration_ms: null, task_id: null, context_id: null }),
];

/** What fromUsageRow makes of a 0022 row: the expected record, written out from the rows above. */
function expected(r: Record<string, unknown>): UsageRecord {
  const out: Record<string, unknown> = {};
  const names: Record<string, string> = {
    started_at: 'startedAt',
    task_id: 'taskId',
    context_id: 'contextId',
    client_id: 'clientId',
    key_id: 'keyId',
    remote_subject: 'remoteSubject',
    remote_issuer: 'remoteIssuer',
    ttfb_ms: 'ttfbMs',
    latency_ms: 'latencyMs',
    duration_ms: 'durationMs',
    bytes_in: 'bytesIn',
    bytes_out: 'bytesOut',
    prompt_tokens: 'promptTokens',
    completion_tokens: 'completionTokens',
    cached_tokens: 'cachedTokens',
  };
  for (const [k, v] of Object.entries(r)) {
    if (v === null || (k === 'cached_tokens' && v === 0)) continue;
    out[names[k] ?? k] = k === 'final' || k === 'error' ? v === 1 : v;
  }
  return out as unknown as UsageRecord;
}

async function fill(db: Kysely<unknown>): Promise<void> {
  for (const t of TASKS)
    await db
      .insertInto('tasks' as never)
      .values(t as never)
      .execute();
  for (const r of RECORDS)
    await db
      .insertInto('usage_records' as never)
      .values(r as never)
      .execute();
}

async function checkMoved(store: Store, count: (q: string) => Promise<number>): Promise<void> {
  const usage = store.usage as SqlUsageStore;
  for (const r of RECORDS) expect(await usage.get(r.id)).toEqual(expected(r));
  // moved: only the call stays in usage_records; the two amended fields of t1 are in its timing row
  expect(await count(`select count(*) as n from usage_records`)).toBe(1);
  expect(await count(`select count(*) as n from tasks where usage_time is not null`)).toBe(3);
  expect(await count(`select count(*) as n from task_usage_timing`)).toBe(1);
  // the final records (t1, t2, c1) in one query, from raw rows and again after the rollup
  const q = { groupBy: [], filters: {}, from: T - HOUR, to: T + HOUR };
  const totals = async () => (await usage.query(q)).map((g) => ({ calls: g.calls, errors: g.errors, promptTokens: g.promptTokens, cost: g.cost, bytesIn: g.bytesIn, bytesOut: g.bytesOut }));
  const want = [{ calls: 3, errors: 1, promptTokens: 13, cost: 1.75, bytesIn: 120, bytesOut: 448 }];
  expect(await totals()).toEqual(want);
  await usage.rollup(T + 2 * HOUR);
  expect(await totals()).toEqual(want);
  const bySubject = (await usage.query({ ...q, groupBy: ['subject'] })).map((g) => [g.key.subject, g.calls]);
  expect(bySubject).toEqual([
    ['alice', 2],
    ['mallory', 1],
  ]);
}

describe('migration 0023 (a task usage record in its task row)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0023-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves the task records of a SQLite store made by 0022, and every read answers as before', async () => {
    const file = join(dir, 'store.db');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    const { error } = await new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') }).migrateTo(BEFORE);
    expect(error).toBeUndefined();
    await fill(old);
    await old.destroy();
    const store = await openSqliteStore({ file });
    try {
      await store.migrate();
      const raw = new Sqlite(file, { readonly: true });
      try {
        await checkMoved(store, async (q) => Number((raw.prepare(q).get() as { n: number }).n));
      } finally {
        raw.close();
      }
    } finally {
      await store.close();
    }
  });

  it('moves them back on SQLite when 0023 is reverted', async () => {
    const file = join(dir, 'down.db');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    const migrator = new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') });
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    await fill(old);
    expect((await migrator.migrateTo('0023_task_usage_in_task_row')).error).toBeUndefined();
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    await old.destroy();
    const raw = new Sqlite(file, { readonly: true });
    try {
      const rows = raw.prepare('select * from usage_records order by id').all() as Record<string, unknown>[];
      const want = [...RECORDS].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(rows.map((r) => expected(r))).toEqual(want.map((r) => expected(r)));
      expect(raw.prepare("select count(*) as n from sqlite_master where name in ('usage_records_all', 'task_usage_timing', 'tasks_usage_time_idx')").get()).toEqual({ n: 0 });
    } finally {
      raw.close();
    }
  });

  it('moves the task records of a PostgreSQL schema made by 0022, and every read answers as before', async () => {
    const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
    const schema = `t_${randomBytes(5).toString('hex')}_0023`;
    const old = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` }) }) });
    try {
      const { error } = await migrateTo(new Migrator({ db: old, provider: new InCodeMigrationProvider('postgres'), migrationTableSchema: schema }), BEFORE, schema);
      expect(error).toBeUndefined();
      await fill(old);
      const store = await openPostgresStore({ connectionString: url, schema });
      try {
        await store.migrate();
        await checkMoved(store, async (q) => Number((await sql.raw<{ n: string }>(q).execute(old)).rows[0]!.n));
      } finally {
        await store.close();
      }
    } finally {
      await sql.raw(`drop schema if exists "${schema}" cascade`).execute(old);
      await old.destroy();
    }
  });
});
