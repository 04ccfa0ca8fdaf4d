/**
 * A damaged page inside the tasks table (issue 25 D7b). Before, such a database opened, answered
 * pings, and `/readyz` said ready with `storage: ok` while every write failed with "The task could
 * not be stored". Now the start refuses it with the named "damaged" message, and a commit that
 * meets damage at run time turns the storage check of /readyz to `damaged`.
 *
 * The damage is made as the red team made it: one page of the file overwritten with random bytes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../src/bus/index.js';
import { readiness } from '../../src/server/readiness.js';
import { openSqliteStore } from '../../src/store/index.js';
import { startTestServer } from '../support/server.js';
import { newTask } from './fixtures.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A database of 300 tasks (the tasks table spans many pages), closed cleanly (no WAL left). */
async function databaseWithTasks(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentport-damage-'));
  dirs.push(dir);
  const file = path.join(dir, 'agentport.db');
  const store = await openSqliteStore({ file, checkpointThread: false });
  await store.migrate();
  // Completed: a start's recovery of cut-off tasks reads none of them.
  for (let i = 0; i < 10; i++) await store.commit(Array.from({ length: 30 }, () => newTask({ state: 'TASK_STATE_COMPLETED' })));
  await store.close();
  return { dir, file };
}

/**
 * Overwrites one page of the tasks table with random bytes: its root (an interior page, which every
 * insert passes), or a leaf in the middle (which nothing reads unless a row on it is asked for).
 */
async function damageTasksTable(file: string, which: 'root' | 'middle leaf'): Promise<void> {
  const db = new Sqlite(file, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = (db.prepare("select pageno from dbstat where name = 'tasks' and pagetype = 'leaf' order by pageno").all() as Array<{ pageno: number }>).map((r) => r.pageno);
  const root = (db.prepare("select rootpage from sqlite_master where type = 'table' and name = 'tasks'").get() as { rootpage: number }).rootpage;
  db.close();
  expect(leaves.length, 'the tasks table spans many pages').toBeGreaterThan(4);
  const page = which === 'root' ? root : leaves[Math.floor(leaves.length / 2)]!;
  const handle = await open(file, 'r+');
  await handle.write(randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
  await handle.close();
}

describe('a damaged SQLite database', () => {
  it('is refused at start with the named "damaged" message', async () => {
    const { dir, file } = await databaseWithTasks();
    await damageTasksTable(file, 'middle leaf');
    const failure = await startTestServer({}, { dataDir: dir, keepData: true }).then(
      async (s) => {
        await s.stop();
        return undefined;
      },
      (e: unknown) => e as Error & { exitCode?: number },
    );
    expect(failure, 'the server started on a damaged database').toBeDefined();
    expect(failure!.message).toContain(`the database ${file} is damaged and cannot be read`);
    expect(failure!.message).toContain('restore it from a backup');
    expect(failure!.exitCode).toBe(1);
  });

  it('starts on an undamaged one (the check passes)', async () => {
    const { dir } = await databaseWithTasks();
    const s = await startTestServer({}, { dataDir: dir, keepData: true });
    expect((await fetch(`${s.http}/readyz`)).status).toBe(200);
    await s.stop();
  });

  it('turns the storage check of /readyz to "damaged" once a commit fails on it at run time', async () => {
    const { file } = await databaseWithTasks();
    // Opened first, damaged after: as a page going bad under a running server.
    const store = await openSqliteStore({ file, checkpointThread: false });
    await damageTasksTable(file, 'root');
    const ready = readiness({ store, bus: new InProcessEventBus(), dbDir: path.dirname(file), log: { warn() {}, info() {} } });
    expect((await ready()).checks.storage).toBe('ok');
    await expect(store.commit([newTask()])).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_CORRUPT/) });
    expect((await ready()).checks.storage).toBe('damaged');
    await store.close();
  });
});
