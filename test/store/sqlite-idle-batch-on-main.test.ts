/**
 * ADR 0092: with the commit thread, a small batch is written on the store's own connection while
 * the thread has nothing in hand. Which path a batch takes is read from the statements the store's
 * connection runs (better-sqlite3's `verbose`): an insert or update of `tasks` there is the main
 * path; the thread's connection is not traced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ConcurrentUpdateError } from '../../src/store/store.js';
import { newTask, update } from './fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-idle-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

interface Opened {
  store: SqliteStore;
  /** task writes the store's own connection has run since the last call */
  mainWrites: () => number;
  stopped: Error[];
}

async function open(o: { idleBatchOnMain: number; synchronous?: 'normal' | 'full' }): Promise<Opened> {
  let writes = 0;
  const stopped: Error[] = [];
  const store = await openSqliteStore({
    file: path.join(dir, `s-${n++}.db`),
    commitThread: true,
    idleBatchOnMain: o.idleBatchOnMain,
    synchronous: o.synchronous,
    onThreadStopped: (err) => stopped.push(err),
    onStatement: (sql) => {
      if (/^(insert into|update) "tasks"/.test(sql)) writes++;
    },
  });
  await store.migrate();
  expect(store.commitsOnThread, 'the commit thread started (dist/ built)').toBe(true);
  return {
    store,
    stopped,
    mainWrites: () => {
      const w = writes;
      writes = 0;
      return w;
    },
  };
}

describe('SQLite: small batches on the store connection while the commit thread is idle (ADR 0092)', () => {
  it('writes a batch up to the limit on the store connection, a larger one on the thread', async () => {
    const { store, mainWrites } = await open({ idleBatchOnMain: 2 });
    await store.commit([newTask()]);
    expect(mainWrites()).toBe(1);
    await store.commit([newTask(), newTask()]);
    expect(mainWrites()).toBe(2);
    const three = [newTask(), newTask(), newTask()];
    await store.commit(three);
    expect(mainWrites()).toBe(0);
    for (const c of three) expect((await store.getTask('agent-a', c.task.id))?.version).toBe(1);
    await store.close();
  });

  it('sends a small batch to the thread while a batch is in hand there, so a task’s commits keep their order across the switch', async () => {
    const { store, mainWrites } = await open({ idleBatchOnMain: 1 });
    const a = newTask();
    const first = store.commit([a, newTask()]);
    // a is not committed yet: on the store connection this update would find version 0 and conflict.
    const second = store.commit([update(a)]);
    await Promise.all([first, second]);
    expect(mainWrites()).toBe(0);
    // The thread is idle again: the next one is the store connection's, and follows both.
    await store.commit([update(update(a))]);
    expect(mainWrites()).toBe(1);
    expect((await store.getTask('agent-a', a.task.id))?.version).toBe(3);
    await store.close();
  });

  it('keeps the exact task count across both paths', async () => {
    const { store } = await open({ idleBatchOnMain: 1 });
    await store.commit([newTask({ owner: 'carol' })]);
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'carol', pageSize: 10 })).totalSize).toBe(1);
    await store.commit([newTask({ owner: 'carol' })]); // the store connection
    await store.commit([newTask({ owner: 'carol' }), newTask({ owner: 'carol' })]); // the thread
    const pending = store.commit([newTask({ owner: 'carol' }), newTask({ owner: 'carol' })]);
    await store.commit([newTask({ owner: 'carol' })]); // the thread: the batch before is in hand
    await pending;
    await store.commit([newTask({ owner: 'carol' })]); // the store connection
    expect((await store.listTasks({ agentId: 'agent-a', owner: 'carol', pageSize: 10 })).totalSize).toBe(8);
    await store.close();
  });

  it('settles the right commits when a batch fails on either path', async () => {
    const { store, mainWrites } = await open({ idleBatchOnMain: 1 });
    const a = newTask();
    await store.commit([a]);
    mainWrites();
    // On the store connection: the conflict names its task.
    const onMain = await store.commit([newTask({ id: a.task.id })]).catch((err: unknown) => err);
    expect(mainWrites()).toBe(1);
    expect(onMain).toBeInstanceOf(ConcurrentUpdateError);
    expect((onMain as ConcurrentUpdateError).taskId).toBe(a.task.id);
    // On the thread (three commits), then each retried alone on the store connection.
    const gc = new GroupCommitter(store);
    const b = newTask();
    const results = await Promise.allSettled([gc.commit(update(a)), gc.commit(newTask({ id: a.task.id })), gc.commit(b)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as ConcurrentUpdateError).taskId).toBe(a.task.id);
    expect((await store.getTask('agent-a', a.task.id))?.version).toBe(2);
    expect((await store.getTask('agent-a', b.task.id))?.version).toBe(1);
    expect(store.storageFailure()).toBeUndefined();
    await gc.close();
    await store.close();
  });

  it('never writes on the store connection with synchronous full', async () => {
    const { store, mainWrites } = await open({ idleBatchOnMain: 8, synchronous: 'full' });
    await store.commit([newTask()]);
    expect(mainWrites()).toBe(0);
    await store.close();
  });

  it('writes nothing on the store connection once the thread has stopped', async () => {
    const { store, mainWrites, stopped } = await open({ idleBatchOnMain: 8 });
    store.killThreadForTests('commit', 'terminate');
    for (let i = 0; stopped.length === 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toHaveLength(1);
    const c = newTask();
    await expect(store.commit([c])).rejects.toThrow(/commit thread stopped/);
    expect(mainWrites()).toBe(0);
    expect(await store.getTask('agent-a', c.task.id)).toBeUndefined();
    await store.close();
  });

  it('writes nothing on the store connection while it closes', async () => {
    const { store, mainWrites } = await open({ idleBatchOnMain: 8 });
    const closing = store.close();
    await expect(store.commit([newTask()])).rejects.toThrow(/closed/);
    expect(mainWrites()).toBe(0);
    await closing;
  });
});
