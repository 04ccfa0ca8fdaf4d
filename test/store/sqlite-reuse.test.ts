/**
 * A SQLite store emptied for the next test (test/support/sqlite-reuse.ts, the file contracts of
 * sqlite.test.ts and sqlite-contract-commit-thread.test.ts) answers as a store opened on a new copy
 * of the template: its file holds the template's rows again, sqlite_sequence included, and what
 * the store remembered of the old rows (task counts, the message-id filter) is gone. A store that
 * is no longer as it was opened, or a file whose schema a test changed, is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { TaskCommit } from '../../src/store/store.js';
import { emptyForNextTest, resetToTemplate } from '../support/sqlite-reuse.js';
import { sqliteTemplateFile } from '../support/store-templates.js';
import { newTask, T0 } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'agentport-reuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const template = sqliteTemplateFile(dir);
let n = 0;

async function openCopy(commitThread: boolean): Promise<{ store: SqliteStore; file: string }> {
  const file = join(dir, `store-${n++}.db`);
  await template.copy(file);
  const store = await openSqliteStore({ file, commitThread });
  await store.migrate();
  return { store, file };
}

/** Every table's rows (sqlite_sequence too), by table, as a new connection to the file reads them. */
function rowsOf(file: string): Record<string, unknown[]> {
  const raw = new Sqlite(file, { readonly: true });
  try {
    const tables = raw.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all() as string[];
    // some tables are WITHOUT ROWID: rows in a fixed order by their text
    return Object.fromEntries(
      tables.map((t) => [
        t,
        raw
          .prepare(`select * from "${t}"`)
          .all()
          .map((r) => JSON.stringify(r))
          .sort(),
      ]),
    );
  } finally {
    raw.close();
  }
}

const withMessage = (c: TaskCommit, messageId: string): TaskCommit => ({ ...c, originMessageId: messageId });

/** What a test sees of a store's answers about agent-a/alice, after one task with message m-1 and an outbox entry. */
async function answers(store: SqliteStore) {
  const before = {
    total: (await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize,
    byMessage: await store.findTaskByMessageId('agent-a', 'alice', 'm-1'),
    task: await store.getTask('agent-a', 'task-1'),
    generation: store.credentialsGeneration(),
    filter: store.messageIdFilterStatus(),
    migrations: await store.migrationStatus(),
    rolledUntil: await store.usage.rolledUntil(),
  };
  await store.commit([withMessage(newTask({ id: 'task-1', outbox: [{ configId: 'cfg' }] }), 'm-1')]);
  const after = {
    total: (await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize,
    version: (await store.getTask('agent-a', 'task-1'))?.version,
    byMessage: (await store.findTaskByMessageId('agent-a', 'alice', 'm-1'))?.task.id,
    outboxIds: (await store.claimOutbox(T0 + 1, 10, 1000)).map((e) => e.id),
    audit: (await store.audit.append([{ time: T0, replica: 'r1', action: 'apikey.created', outcome: 'success', actor: 'alice', target: 'apikey:k', details: {} }])).map((r) => r.seq),
  };
  return { before, after };
}

describe.each([
  ['with the commit thread', true],
  ['commits on the event loop', false],
])('a SQLite store emptied for the next test (%s)', (_name, commitThread) => {
  it('answers as a store on a new copy of the template, and its file holds the template rows', async () => {
    const used = await openCopy(commitThread);
    const fresh = await openCopy(commitThread);
    try {
      const s = used.store;
      // A test's worth of rows and of what the store remembers about them.
      await s.commit([withMessage(newTask({ id: 'task-1', outbox: [{ configId: 'cfg' }] }), 'm-1'), newTask(), newTask({ outbox: [{ configId: 'cfg' }] })]);
      expect((await s.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize).toBe(3);
      expect((await s.findTaskByMessageId('agent-a', 'alice', 'm-1'))?.task.id).toBe('task-1');
      // the message-id filter's build runs between turns of the event loop
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(s.messageIdFilterStatus().build).toBe('complete');
      await s.putApiKey({ keyId: 'k1', secretHash: 'ab'.repeat(32), subject: 's', scopes: ['a2a:discover'], createdAt: T0 });
      await s.audit.append([{ time: T0, replica: 'r1', action: 'apikey.created', outcome: 'success', actor: 'alice', target: 'apikey:k1', details: {} }]);
      await s.usage.rollup(T0 + 7 * 24 * 3_600_000);
      const raw = new Sqlite(used.file);
      raw.exec("insert into kysely_migration (name, timestamp) values ('9999_future', '2100-01-01T00:00:00.000Z')");
      raw.close();

      expect(emptyForNextTest(s, used.file, await template.file())).toBe(true);
      expect(rowsOf(used.file)).toEqual(rowsOf(await template.file()));
      expect(await answers(s)).toEqual(await answers(fresh.store));
    } finally {
      await used.store.close();
      await fresh.store.close();
    }
  });
});

describe('a SQLite store not emptied for the next test', () => {
  it('refuses a closed store', async () => {
    const { store, file } = await openCopy(true);
    await store.close();
    expect(emptyForNextTest(store, file, await template.file())).toBe(false);
  });

  it('refuses a store whose commit thread ended', async () => {
    const errors: Error[] = [];
    const file = join(dir, `store-${n++}.db`);
    await template.copy(file);
    const store = await openSqliteStore({ file, commitThread: true, onThreadStopped: (err) => errors.push(err) });
    try {
      await store.migrate();
      store.killThreadForTests('commit');
      await expect.poll(() => store.restartNeeded()).toBe('commit thread stopped');
      expect(emptyForNextTest(store, file, await template.file())).toBe(false);
      expect(errors).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('refuses a store whose checkpointer thread ended', async () => {
    const errors: Error[] = [];
    const file = join(dir, `store-${n++}.db`);
    await template.copy(file);
    const store = await openSqliteStore({ file, onThreadStopped: (err) => errors.push(err) });
    try {
      await store.migrate();
      store.killThreadForTests('checkpoint');
      await expect.poll(() => errors.length).toBe(1);
      expect(emptyForNextTest(store, file, await template.file())).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('leaves a file whose schema a test changed as it is, and the store is refused', async () => {
    const { store, file } = await openCopy(false);
    try {
      await store.commit([newTask({ id: 'kept' })]);
      const raw = new Sqlite(file);
      raw.exec('create index tasks_extra_idx on tasks (context_id)');
      raw.close();
      expect(resetToTemplate(file, await template.file())).toBe(false);
      expect(emptyForNextTest(store, file, await template.file())).toBe(false);
      expect((await store.getTask('agent-a', 'kept'))?.task.id).toBe('kept');
    } finally {
      await store.close();
    }
  });
});
