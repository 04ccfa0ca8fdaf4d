import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { describeStoreContract } from './store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite (file, WAL)', () => openSqliteStore({ file: join(dir, `store-${n++}.db`) }));
describeStoreContract('sqlite (:memory:, synchronous=full)', () => openSqliteStore({ file: ':memory:', synchronous: 'full' }));

describe('sqlite store specifics', () => {
  it('opens the file in WAL mode with the chosen synchronous level', async () => {
    const file = join(dir, 'pragmas.db');
    const store = await openSqliteStore({ file, synchronous: 'full' });
    await store.migrate();
    await store.close();
    const Sqlite = (await import('better-sqlite3')).default;
    const raw = new Sqlite(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
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
