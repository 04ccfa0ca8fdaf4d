import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/a2a/types.js';
import { GroupCommitter } from '../../src/store/group-commit.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ConcurrentUpdateError, type Store, type TaskCommit } from '../../src/store/store.js';

const nextTick = (): Promise<void> => new Promise((r) => setImmediate(r));

function newTask(id: string): TaskCommit {
  const task: Task = { id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-01-01T00:00:00.000Z' } };
  return { agentId: 'a', owner: 'o', task, expectedVersion: 0, seq: 1, events: [{ taskId: id, seq: 1, event: { task }, createdAt: 1 }], outbox: [], createdAt: 1 };
}

function update(prev: TaskCommit): TaskCommit {
  const seq = prev.seq + 1;
  const status = { state: 'TASK_STATE_WORKING' as const, timestamp: '2026-01-01T00:00:01.000Z' };
  const task = { ...prev.task, status };
  return {
    ...prev,
    task,
    expectedVersion: prev.expectedVersion + 1,
    seq,
    events: [{ taskId: task.id, seq, event: { statusUpdate: { taskId: task.id, contextId: task.contextId, status } }, createdAt: 2 }],
  };
}

/** A store that records each batch; `hold` makes commits wait until released. */
class RecordingStore {
  batches: string[][] = [];
  hold: Promise<void> | undefined;
  failIds = new Set<string>();

  asStore(): Store {
    return this as unknown as Store;
  }

  async commit(commits: TaskCommit[]): Promise<void> {
    this.batches.push(commits.map((c) => c.task.id));
    if (this.hold) await this.hold;
    const bad = commits.find((c) => this.failIds.has(c.task.id));
    if (bad) throw new ConcurrentUpdateError(bad.task.id);
  }
}

describe('GroupCommitter', () => {
  it('sends the commits enqueued in one tick to the store as one batch, in enqueue order', async () => {
    const store = new RecordingStore();
    const gc = new GroupCommitter(store.asStore());
    await Promise.all(['t1', 't2', 't3'].map((id) => gc.commit(newTask(id))));
    expect(store.batches).toEqual([['t1', 't2', 't3']]);
  });

  it('sends commits of different ticks as separate batches', async () => {
    const store = new RecordingStore();
    const gc = new GroupCommitter(store.asStore());
    const first = gc.commit(newTask('t1'));
    await nextTick();
    await first;
    await gc.commit(newTask('t2'));
    expect(store.batches).toEqual([['t1'], ['t2']]);
  });

  it('splits a large tick into batches of maxBatch, in order', async () => {
    const store = new RecordingStore();
    const gc = new GroupCommitter(store.asStore(), { maxBatch: 2 });
    await Promise.all(['t1', 't2', 't3', 't4', 't5'].map((id) => gc.commit(newTask(id))));
    expect(store.batches).toEqual([['t1', 't2'], ['t3', 't4'], ['t5']]);
  });

  it('groups the commits that arrive while a batch is in flight into the next batch', async () => {
    const store = new RecordingStore();
    let release!: () => void;
    store.hold = new Promise<void>((r) => (release = r));
    const gc = new GroupCommitter(store.asStore());
    const p1 = gc.commit(newTask('t1'));
    await nextTick();
    expect(store.batches).toEqual([['t1']]);
    const p2 = gc.commit(newTask('t2'));
    await nextTick();
    const p3 = gc.commit(newTask('t3'));
    await nextTick();
    expect(store.batches).toEqual([['t1']]);
    store.hold = undefined;
    release();
    await Promise.all([p1, p2, p3]);
    expect(store.batches).toEqual([['t1'], ['t2', 't3']]);
  });

  it('retries a failed batch commit by commit, so only the failing commit rejects', async () => {
    const store = new RecordingStore();
    store.failIds.add('bad');
    const gc = new GroupCommitter(store.asStore());
    const results = await Promise.allSettled(['t1', 'bad', 't3'].map((id) => gc.commit(newTask(id))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentUpdateError);
    expect(store.batches).toEqual([['t1', 'bad', 't3'], ['t1'], ['bad'], ['t3']]);
  });

  it('rejects a lone failing commit with the store error, without a retry', async () => {
    const store = new RecordingStore();
    store.failIds.add('bad');
    const gc = new GroupCommitter(store.asStore());
    await expect(gc.commit(newTask('bad'))).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(store.batches).toEqual([['bad']]);
  });

  it('commits what a settled commit’s callback enqueues, however many microtasks later', async () => {
    // The callback may land just as the drain loop ends: it must not be left in the queue.
    for (let hops = 0; hops < 12; hops++) {
      const store = new RecordingStore();
      const gc = new GroupCommitter(store.asStore());
      const chained = gc.commit(newTask('t1')).then(async () => {
        for (let i = 0; i < hops; i++) await Promise.resolve();
        await gc.commit(newTask('t2'));
      });
      const timeout = new Promise<string>((r) => setTimeout(() => r('stuck'), 200));
      expect(await Promise.race([chained.then(() => 'done'), timeout]), `after ${hops} hops`).toBe('done');
      expect(store.batches).toEqual([['t1'], ['t2']]);
    }
  });

  it('flush waits until every enqueued commit is settled', async () => {
    const store = new RecordingStore();
    store.failIds.add('bad');
    const gc = new GroupCommitter(store.asStore());
    const settled: string[] = [];
    for (const id of ['t1', 'bad']) {
      gc.commit(newTask(id)).then(
        () => settled.push(id),
        () => settled.push(`${id}!`),
      );
    }
    await gc.flush();
    await Promise.resolve();
    expect(settled.sort()).toEqual(['bad!', 't1']);
  });

  it('close drains the queue, then refuses new commits', async () => {
    const store = new RecordingStore();
    const gc = new GroupCommitter(store.asStore());
    const p = gc.commit(newTask('t1'));
    await gc.close();
    await p;
    expect(store.batches).toEqual([['t1']]);
    await expect(gc.commit(newTask('t2'))).rejects.toThrow(/closed/);
  });

  describe('pipelined (maxInFlight > 1)', () => {
    /** A store whose every commit waits until the test releases it, in any order. */
    class GatedStore extends RecordingStore {
      gates: (() => void)[] = [];
      override async commit(commits: TaskCommit[]): Promise<void> {
        this.batches.push(commits.map((c) => c.task.id));
        await new Promise<void>((r) => this.gates.push(r));
      }
    }

    it('sends the next batch while the first is still in flight', async () => {
      const store = new GatedStore();
      const gc = new GroupCommitter(store.asStore(), { maxInFlight: 2 });
      const p1 = gc.commit(newTask('t1'));
      await nextTick();
      const p2 = gc.commit(newTask('t2'));
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2']]);
      for (const open of store.gates) open();
      await Promise.all([p1, p2]);
    });

    it('holds a task’s next commit until its batch in flight settles, letting other tasks by', async () => {
      const store = new GatedStore();
      const gc = new GroupCommitter(store.asStore(), { maxInFlight: 3 });
      const first = newTask('t1');
      const p1 = gc.commit(first);
      await nextTick();
      const p2 = gc.commit(update(first));
      const p3 = gc.commit(newTask('t2'));
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2']]);
      store.gates[0]!();
      await p1;
      await nextTick();
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2'], ['t1']]);
      store.gates[1]!();
      store.gates[2]!();
      await Promise.all([p2, p3]);
    });

    it('keeps at most maxInFlight batches out, and flush waits for all of them', async () => {
      const store = new GatedStore();
      const gc = new GroupCommitter(store.asStore(), { maxInFlight: 2, maxBatch: 1 });
      const all = ['t1', 't2', 't3'].map((id) => gc.commit(newTask(id)));
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2']]);
      let flushed = false;
      const flushing = gc.flush().then(() => (flushed = true));
      store.gates[0]!();
      await all[0];
      await nextTick();
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2'], ['t3']]);
      expect(flushed).toBe(false);
      store.gates[1]!();
      store.gates[2]!();
      await flushing;
      await Promise.all(all);
    });

    it('takes its depth from the store’s commitConcurrency', async () => {
      const store = new GatedStore();
      Object.assign(store, { commitConcurrency: 2 });
      const gc = new GroupCommitter(store.asStore(), { maxBatch: 1 });
      const all = ['t1', 't2', 't3'].map((id) => gc.commit(newTask(id)));
      await nextTick();
      expect(store.batches).toEqual([['t1'], ['t2']]);
      store.gates[0]!();
      store.gates[1]!();
      await Promise.all(all.slice(0, 2));
      await nextTick();
      store.gates[2]!();
      await all[2];
    });
  });

  describe('over a real store', () => {
    let store: SqliteStore;
    beforeEach(async () => {
      store = await openSqliteStore({ file: ':memory:' });
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });

    it('applies successive commits of one task in enqueue order, across batch boundaries', async () => {
      const gc = new GroupCommitter(store, { maxBatch: 2 });
      const commits = [newTask('t1')];
      for (let i = 0; i < 4; i++) commits.push(update(commits[commits.length - 1]!));
      await Promise.all(commits.map((c) => gc.commit(c)));
      expect(await store.getTask('a', 't1')).toMatchObject({ version: 5, seq: 5 });
      expect((await store.readEvents('t1', 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('persists the good commits of a batch that held a stale one', async () => {
      const gc = new GroupCommitter(store);
      const existing = newTask('t0');
      await gc.commit(existing);
      const stale = { ...update(existing), expectedVersion: 9 };
      const results = await Promise.allSettled([gc.commit(newTask('t1')), gc.commit(stale), gc.commit(newTask('t2'))]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await store.getTask('a', 't1')).toBeDefined();
      expect(await store.getTask('a', 't2')).toBeDefined();
      expect(await store.getTask('a', 't0')).toMatchObject({ version: 1 });
    });
  });
});
