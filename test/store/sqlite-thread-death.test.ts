/**
 * A thread of the SQLite store that dies (ADR 0062's amendment). The commit thread, ended for real
 * (Worker.terminate, or an exception thrown outside any try in it) through the store's test seam:
 * the commit it was running rejects rather than hangs, every later commit rejects with the cause,
 * nothing is written on the store's own connection behind its back, and the storage check /readyz
 * reads turns to "commit thread stopped" with the cause told to the log. The checkpointer thread,
 * ended the same way: the store stays ready, and SQLite's own checkpoints keep the log bounded.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { tasksInFile } from '../support/sqlite-file-counts.js';
import { afterAll, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../src/bus/index.js';
import { parseConfig } from '../../src/config/index.js';
import { openStore } from '../../src/server/open-store.js';
import Fastify from 'fastify';
import { addHealthRoutes } from '../../src/bindings/health/health-routes.js';
import { readiness } from '../../src/server/readiness.js';
import { openSqliteStore, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { TaskCommit } from '../../src/store/store.js';
import { newTask } from './fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-thread-death-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

interface Opened {
  store: SqliteStore;
  file: string;
  /** what the store told about threads that stopped, in order */
  stopped: Error[];
  /** the /readyz check of this store, and what it logged as not ready */
  ready: () => Promise<string>;
  warnings: string[];
}

async function open(o: { commitThread: boolean }): Promise<Opened> {
  const file = path.join(dir, `s-${n++}.db`);
  const stopped: Error[] = [];
  const store = await openSqliteStore({ file, commitThread: o.commitThread, onThreadStopped: (err) => stopped.push(err) });
  await store.migrate();
  expect(store.commitsOnThread, 'the commit thread started (dist/ built)').toBe(o.commitThread);
  const warnings: string[] = [];
  const check = readiness({ store, bus: new InProcessEventBus(), dbDir: dir, log: { warn: (_o, m) => warnings.push(m ?? ''), info() {} } });
  return { store, file, stopped, ready: async () => (await check()).checks.storage!, warnings };
}

/** `p`'s outcome, or 'still pending' once `ms` have passed: a hang shows as such, not as the test's timeout. */
function settledWithin(p: Promise<unknown>, ms: number): Promise<string> {
  return Promise.race([
    p.then(
      () => 'resolved',
      (err: Error) => `rejected: ${err.message}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('still pending'), ms).unref()),
  ]);
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok(), what).toBe(true);
}

describe('the SQLite commit thread dying', () => {
  it('rejects the commit it was running and every later one, and turns the storage check to "commit thread stopped"', async () => {
    const { store, file, stopped, ready, warnings } = await open({ commitThread: true });
    await store.commit([newTask()]);
    expect(await ready()).toBe('ok');
    expect(store.storageFailure()).toBeUndefined();
    expect(store.restartNeeded()).toBeUndefined();

    // Another connection holds the write lock: the thread's transaction waits inside SQLite for it,
    // so the commit is in flight, on the thread, when the thread is ended.
    const holder = new Sqlite(file);
    holder.prepare('BEGIN IMMEDIATE').run();
    const inFlight = store.commit([newTask()]);
    await new Promise((r) => setTimeout(r, 200));
    store.killThreadForTests('commit', 'terminate');
    // The thread ends once SQLite gives it back control: when the lock is let go.
    holder.prepare('ROLLBACK').run();
    holder.close();

    const outcome = await settledWithin(inFlight, 5_000);
    // Terminated, a thread's exit code is 1 inside JavaScript and 0 waiting for a message.
    expect(outcome).toMatch(/^rejected: the sqlite commit thread stopped \(exit code [01]\): no task can be stored until the server restarts$/);
    expect(stopped.map((e) => `rejected: ${e.message}`)).toEqual([outcome]);
    expect(store.storageFailure()).toBe('commit thread stopped');
    expect(await ready()).toBe('commit thread stopped');
    expect(store.restartNeeded()).toBe('commit thread stopped');
    expect(warnings).toEqual(['not ready (storage: commit thread stopped)']);

    // Later commits: refused with the same cause, and not written on the store's own connection instead.
    const before = tasksInFile(file);
    expect(await settledWithin(store.commit([newTask()]), 5_000)).toBe(outcome);
    expect(tasksInFile(file)).toBe(before);
    // Reads still work (the main connection is fine), and a close does not hang on the dead thread.
    expect(await settledWithin(store.close(), 5_000)).toBe('resolved');
    expect(stopped).toHaveLength(1);
  });

  it('names an uncaught exception in the thread as the cause', async () => {
    const { store, stopped, ready } = await open({ commitThread: true });
    await store.commit([newTask()]);
    store.killThreadForTests('commit', 'uncaught');
    await until('the store was told the thread stopped', () => stopped.length > 0);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]!.message).toMatch(/^the sqlite commit thread stopped \(an uncaught error: .+\): no task can be stored until the server restarts$/);
    expect(await ready()).toBe('commit thread stopped');
    expect(await settledWithin(store.commit([newTask()]), 5_000)).toBe(`rejected: ${stopped[0]!.message}`);
    expect(await settledWithin(store.close(), 5_000)).toBe('resolved');
    expect(stopped).toHaveLength(1);
  });

  it("is logged at error with its cause by the server's store (open-store.ts), and /readyz's check turns not ready", async () => {
    const dataDir = mkdtempSync(path.join(dir, 'server-'));
    const config = parseConfig({ server: { dataDir }, storage: { driver: 'sqlite', commitThread: true } }, { env: {}, cwd: dataDir });
    const errors: Array<{ obj: object; msg: string | undefined }> = [];
    const store = await openStore(config, { info() {}, warn() {}, error: (obj, msg) => errors.push({ obj, msg }) });
    expect(store).toBeInstanceOf(SqliteStore);
    const sqlite = store as SqliteStore;
    expect(sqlite.commitsOnThread).toBe(true);
    const check = readiness({ store, bus: new InProcessEventBus(), dbDir: dataDir, log: { warn() {}, info() {} } });
    expect((await check()).checks.storage).toBe('ok');
    // /healthz as the server wires it (start-listeners.ts): the store's restartNeeded.
    const app = Fastify();
    addHealthRoutes(
      app,
      async () => check(),
      () => store.restartNeeded?.(),
    );
    const healthz = async () => {
      const res = await app.inject({ method: 'GET', url: '/healthz' });
      return { status: res.statusCode, body: res.json() as object, cache: res.headers['cache-control'] };
    };
    expect(await healthz()).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });
    sqlite.killThreadForTests('commit', 'uncaught');
    await until('the store module logged the stop', () => errors.length > 0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toMatch(/^the sqlite commit thread stopped \(an uncaught error: .+\): no task can be stored until the server restarts$/);
    expect((errors[0]!.obj as { err?: Error }).err?.message).toBe(errors[0]!.msg);
    expect((await check()).checks.storage).toBe('commit thread stopped');
    // Only a restart mends it, so liveness fails too: an orchestrator restarts the process.
    expect(await healthz()).toEqual({ status: 503, body: { status: 'restart needed', reason: 'commit thread stopped' }, cache: 'no-store' });
    await app.close();
    await store.close();
  });

  it('is not a failure when the store closes it', async () => {
    const { store, stopped, ready } = await open({ commitThread: true });
    await store.commit([newTask()]);
    expect(await ready()).toBe('ok');
    await store.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toEqual([]);
    expect(store.storageFailure()).toBeUndefined();
    await expect(store.commit([newTask()])).rejects.toThrow('sqlite store is closed');
  });
});

/** A new task carrying `bytes` of text: its row, and so the log, take at least that much. */
function bigTask(bytes: number): TaskCommit {
  const c = newTask({ state: 'TASK_STATE_COMPLETED' });
  c.task.history![0]!.parts = [{ text: 'x'.repeat(bytes) }];
  return c;
}

describe('the SQLite checkpointer thread dying', () => {
  it.each([true, false])('leaves the store ready, and the log bounded by SQLite checkpoints again (commit thread %s)', async (commitThread) => {
    const { store, file, stopped, ready } = await open({ commitThread });
    await store.commit([newTask()]);
    store.killThreadForTests('checkpoint');
    await until('the store was told the checkpointer stopped', () => stopped.length > 0);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]!.message).toMatch(/^the sqlite checkpoint thread stopped \(exit code [01]\): SQLite's automatic checkpoints are back on$/);
    expect(await ready()).toBe('ok');
    expect(store.restartNeeded(), 'a dead checkpointer needs no restart').toBeUndefined();

    // 16 MiB of task text: four times the 1000 pages (4 MiB) after which SQLite checkpoints.
    const pageSize = new Sqlite(file, { readonly: true }).pragma('page_size', { simple: true }) as number;
    const written = 16 * 1024 * 1024;
    for (let i = 0; i < 64; i++) await store.commit(Array.from({ length: 64 }, () => bigTask(4096)));
    const wal = statSync(`${file}-wal`).size;
    // Without any checkpoint the log holds every byte written; with SQLite's it starts over at ~1000 pages.
    expect(wal, `log of ${wal} bytes after ${written} written`).toBeLessThan(2 * 1000 * pageSize);
    expect(tasksInFile(file)).toBe(1 + 64 * 64);
    expect(store.storageFailure()).toBeUndefined();
    await store.close();
  });
});
