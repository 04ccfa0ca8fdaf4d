import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { openSqliteStore, StoreUnavailableError } from '../../src/store/index.js';
import { describeStoreContract } from './store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** the file of the store the contract opened last: its peer and raw SQL go there */
let current = '';

describeStoreContract(
  'sqlite (file, WAL)',
  () => {
    current = join(dir, `store-${n++}.db`);
    return openSqliteStore({ file: current });
  },
  {
    openPeer: () => openSqliteStore({ file: current }),
    exec: async (text) => {
      const raw = new Sqlite(current);
      try {
        raw.exec(text);
      } finally {
        raw.close();
      }
    },
  },
);
describeStoreContract('sqlite (:memory:, synchronous=full)', () => openSqliteStore({ file: ':memory:', synchronous: 'full' }));

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
