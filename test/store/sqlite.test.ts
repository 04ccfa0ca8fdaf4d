import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
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
    await first.commit([
      { agentId: 'a', owner: 'o', task, expectedVersion: 0, seq: 1, events: [{ taskId: 't1', seq: 1, event: { task }, createdAt: 1 }], outbox: [], createdAt: 1 },
    ]);
    await first.close();
    const second = await openSqliteStore({ file });
    await second.migrate();
    expect((await second.getTask('a', 't1'))?.task).toEqual(task);
    await second.close();
  });
});
