import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { openSqliteStore, StoreUnavailableError } from '../../src/store/index.js';
import type { SqlUsageStore } from '../../src/store/usage/sql-usage-store.js';
import { DAILY, HOURLY } from '../../src/store/usage/usage-sql.js';
import { describeSqliteFileContract } from './sqlite-file-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The contract's other two variants have files of their own, run beside this one by `unit`'s
// workers: sqlite-contract-commit-thread.test.ts and sqlite-contract-memory.test.ts.
describeSqliteFileContract('sqlite (file, WAL)', false);

describe('sqlite store specifics', () => {
  it('opens the file in WAL mode with the chosen synchronous level', async () => {
    const file = join(dir, 'pragmas.db');
    const store = await openSqliteStore({ file, synchronous: 'full' });
    await store.migrate();
    await store.close();
    const raw = new Sqlite(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('ping names the file and the cause when the database cannot be used', async () => {
    const file = join(dir, 'ping.db');
    const store = await openSqliteStore({ file });
    await store.ping();
    await store.close();
    const err = await store.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(new RegExp(`^SQLite database ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is unreachable: .+`));
  });

  it('keeps committed data across reopening the file', async () => {
    const file = join(dir, 'reopen.db');
    const first = await openSqliteStore({ file });
    await first.migrate();
    const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' as const } };
    await first.commit([{ agentId: 'a', owner: 'o', task, expectedVersion: 0, seq: 1, events: [{ taskId: 't1', seq: 1, event: { task }, createdAt: 1 }], outbox: [], createdAt: 1 }]);
    await first.close();
    const second = await openSqliteStore({ file });
    await second.migrate();
    expect((await second.getTask('a', 't1'))?.task).toEqual(task);
    await second.close();
  });

  it('rebuilds usage_daily in the text layout after 0011: its watermark goes back to 0, usage_hourly stays, answers do not change', async () => {
    const file = join(dir, 'usage-layout.db');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    const { error } = await new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') }).migrateTo('0010_quotas');
    await old.destroy();
    expect(error).toBeUndefined();
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    const day = 20_000 * DAY;
    const raw = new Sqlite(file);
    /** a row with the given values and 0 in every other NOT NULL column */
    const insert = (table: string, values: Record<string, unknown>) => {
      const columns = raw.pragma(`table_info(${table})`) as { name: string; notnull: number }[];
      const row = Object.fromEntries(columns.filter((c) => c.notnull === 1 || c.name in values).map((c) => [c.name, values[c.name] ?? 0]));
      raw
        .prepare(
          `insert into ${table} (${Object.keys(row).join(', ')}) values (${Object.keys(row)
            .map(() => '?')
            .join(', ')})`,
        )
        .run(...Object.values(row));
    };
    // one call of 7 ms, rolled up in 0008's layout: 7 ms is in the bucket <= 10 ms (lat_le_04 and above count it)
    const call = { kind: 'call', face: 'mcp/2025-11-25', operation: 'tools/call', outcome: 'OK', calls: 1, lat_count: 1, lat_min: 7, lat_max: 7 };
    const buckets = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`lat_le_${String(i + 4).padStart(2, '0')}`, 1]));
    insert('usage_records', { ...call, id: 'c1', time: day + 60_000, started_at: day + 60_000, final: 1, replica: 'r1', latency_ms: 7 });
    insert('usage_hourly', { ...call, ...buckets, hour: day });
    insert('usage_daily', { ...call, ...buckets, day });
    raw.prepare('update usage_rollup_state set rolled_until = ?').run(day + DAY);
    raw.close();

    const store = await openSqliteStore({ file });
    try {
      await store.migrate();
      const usage = store.usage as SqlUsageStore;
      expect(await usage.rolledUntil(HOURLY)).toBe(day + DAY);
      expect(await usage.rolledUntil(DAILY)).toBe(0);
      const q = { groupBy: [], filters: {}, from: day, to: day + DAY };
      const answer = async () => (await usage.query(q)).map((g) => [g.calls, g.latencyMs]);
      expect(await answer()).toEqual([[1, { p50: 7, p95: 7, p99: 7 }]]);
      await usage.rollup(day + DAY + HOUR);
      expect(await usage.rolledUntil(DAILY)).toBe(day + DAY);
      const check = new Sqlite(file, { readonly: true });
      expect(check.prepare('select day, calls, lat_hist, dur_hist from usage_daily').all()).toEqual([{ day, calls: 1, lat_hist: '4:1', dur_hist: null }]);
      check.close();
      expect(await answer()).toEqual([[1, { p50: 7, p95: 7, p99: 7 }]]);
    } finally {
      await store.close();
    }
  });

  it('upgrades a database an older Agentport left at 0001: its tasks stay, without leases, and can be claimed', async () => {
    const file = join(dir, 'upgrade.db');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    const { error } = await new Migrator({ db: old, provider: new InCodeMigrationProvider('sqlite') }).migrateTo('0001_initial');
    await old.destroy();
    expect(error).toBeUndefined();
    const task = { id: 't-old', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' as const } };
    const raw = new Sqlite(file);
    raw
      .prepare('insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run('t-old', 'a', 'o', 'c1', 'TASK_STATE_WORKING', 1, 1, 1, 3, JSON.stringify(task));
    raw.close();

    const store = await openSqliteStore({ file });
    try {
      expect((await store.migrationStatus()).pending).toEqual([
        '0002_task_leases',
        '0003_signing_keys',
        '0004_api_keys',
        '0005_oauth',
        '0006_sessions',
        '0007_task_message_ids',
        '0008_usage',
        '0009_audit',
        '0010_quotas',
        '0011_usage_rollup_layout',
        '0012_task_trace_parent',
        '0013_task_live_index',
        '0014_task_counts',
        '0015_session_grants',
        '0016_api_key_owners',
        '0017_task_caller',
        '0018_remote_tokens',
        '0020_usage_cached_tokens',
        '0021_push_outbox_config_head',
        '0022_usage_remote_identity',
        '0023_task_usage_in_task_row',
        '0024_task_running_index',
        '0025_events_row_task_refs',
        '0026_credentials_generation',
        '0027_task_final_events',
        '0028_postgres_task_inserts',
        '0029_postgres_list_index_ascending',
        '0030_postgres_usage_time_brin',
      ]);
      await store.migrate();
      const stored = await store.getTask('a', 't-old');
      expect(stored).toMatchObject({ task, version: 3 });
      expect(stored).not.toHaveProperty('lease');
      expect((await store.claimOrphanedTasks(['TASK_STATE_WORKING'], 'r1', 10, 20, 10)).map((t) => t.version)).toEqual([4]);
    } finally {
      await store.close();
    }
  });
});
