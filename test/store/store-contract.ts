/**
 * The Store contract: every implementation (SQLite, PostgreSQL) runs this suite unchanged.
 *
 * `open` returns a fresh, empty store (migrated or not: the suite calls `migrate()`); the suite
 * closes it after each test. `options.openMigrated`, when given, opens each test's store instead:
 * a fresh copy of a database already migrated (test/support/store-templates.ts), since running
 * every migration per test was most of the suite's time, or a store of an earlier test emptied
 * (`options.release`). The groups for distributed mode live in
 * their own files: lease-contract.ts, schema-contract.ts, replicas-contract.ts and
 * signing-keys-contract.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrentUpdateError, type Store, type TaskCommit, type TaskSearchQuery } from '../../src/store/store.js';
import { newTask, pushConfig, T0, update, type NewTaskOptions } from './fixtures.js';
import { describeApiKeysContract } from './api-keys-contract.js';
import { describeLeaseContract } from './lease-contract.js';
import { describeMessageIdsContract } from './message-ids-contract.js';
import { describeReplicasContract } from './replicas-contract.js';
import { describeSchemaContract } from './schema-contract.js';
import { describeSigningKeysContract } from './signing-keys-contract.js';
import { describeUsageContract } from './usage-contract.js';

/** What a dialect's test file can do beyond opening a fresh store. */
export interface ContractOptions {
  /**
   * Returns a fresh, empty store that is already migrated, as `open` + `migrate()` would leave it;
   * `open` then serves only the tests that need a database never migrated.
   */
  openMigrated?: () => Promise<Store>;
  /**
   * Opens another store on the database of the store `open` returned last, as a second replica
   * would (PostgreSQL: same schema; SQLite: same file). Absent for an in-memory database.
   */
  openPeer?: () => Promise<Store>;
  /** Runs SQL on the database of the store `open` returned last, outside the store. */
  exec?: (sql: string) => Promise<void>;
  /**
   * Ends a test's store in place of `close()`: may keep it for `openMigrated` to return emptied to
   * the next test (test/support/sqlite-reuse.ts), if it can answer as a new store would.
   */
  release?: (store: Store) => Promise<void>;
}

/** Where the contract groups find the store of the running test. */
export interface ContractContext {
  store(): Store;
  open: () => Promise<Store>;
  options: ContractOptions;
}

async function expectConcurrentUpdate(p: Promise<unknown>, taskId: string): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConcurrentUpdateError);
  expect((err as ConcurrentUpdateError).taskId).toBe(taskId);
}

export function describeStoreContract(name: string, open: () => Promise<Store>, options: ContractOptions = {}): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    const context: ContractContext = { store: () => store, open, options };

    beforeEach(async () => {
      store = await (options.openMigrated ?? open)();
      await store.migrate();
    });
    afterEach(async () => {
      if (store) await (options.release ? options.release(store) : store.close());
    });

    describe('migrate', () => {
      it('is idempotent: running it again changes nothing', async () => {
        const c = newTask();
        await store.commit([c]);
        await store.migrate();
        expect((await store.getTask(c.agentId, c.task.id))?.task).toEqual(c.task);
      });
    });

    describe('commit and getTask', () => {
      it('stores the projection of a new task at version 1', async () => {
        const c = newTask({ time: T0 + 5 });
        await store.commit([c]);
        expect(await store.getTask('agent-a', c.task.id)).toEqual({
          agentId: 'agent-a',
          owner: 'alice',
          task: c.task,
          seq: 1,
          version: 1,
          createdAt: c.createdAt,
          statusTime: T0 + 5,
        });
      });

      it('returns undefined for an unknown task and for a task of another agent', async () => {
        const c = newTask();
        await store.commit([c]);
        expect(await store.getTask('agent-a', 'no-such-task')).toBeUndefined();
        expect(await store.getTask('agent-b', c.task.id)).toBeUndefined();
      });

      it('accepts an empty batch, which writes nothing', async () => {
        await expect(store.commit([])).resolves.toBeUndefined();
        expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 })).totalSize).toBe(0);
      });

      it('rejects creating a task that exists with ConcurrentUpdateError', async () => {
        const c = newTask();
        await store.commit([c]);
        await expectConcurrentUpdate(store.commit([newTask({ id: c.task.id })]), c.task.id);
        expect((await store.getTask('agent-a', c.task.id))?.task).toEqual(c.task);
      });

      it('applies an update made against the current version and increments the version', async () => {
        const c1 = newTask();
        const c2 = update(c1, { state: 'TASK_STATE_COMPLETED', time: T0 + 60_000 });
        await store.commit([c1]);
        await store.commit([c2]);
        const stored = await store.getTask('agent-a', c1.task.id);
        expect(stored).toMatchObject({ version: 2, seq: 2, statusTime: T0 + 60_000, createdAt: c1.createdAt });
        expect(stored?.task).toEqual(c2.task);
      });

      it('rejects an update made against a stale version and changes nothing', async () => {
        const c1 = newTask();
        const c2 = update(c1);
        await store.commit([c1]);
        await store.commit([c2]);
        const stale = update(c2, { expectedVersion: 1 });
        await expectConcurrentUpdate(store.commit([stale]), c1.task.id);
        const stored = await store.getTask('agent-a', c1.task.id);
        expect(stored).toMatchObject({ version: 2, seq: 2 });
        expect(stored?.task).toEqual(c2.task);
        expect((await store.readEvents(c1.task.id, 0)).map((e) => e.seq)).toEqual([1, 2]);
      });

      it('rejects an update of a task that does not exist with ConcurrentUpdateError', async () => {
        const ghost = update(newTask());
        await expectConcurrentUpdate(store.commit([ghost]), ghost.task.id);
        expect(await store.getTask('agent-a', ghost.task.id)).toBeUndefined();
      });

      it('applies successive commits of one task within one batch in order', async () => {
        const c1 = newTask();
        const c2 = update(c1);
        const c3 = update(c2, { state: 'TASK_STATE_COMPLETED' });
        await store.commit([c1, c2, c3]);
        expect(await store.getTask('agent-a', c1.task.id)).toMatchObject({ version: 3, seq: 3, task: c3.task });
        expect((await store.readEvents(c1.task.id, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
      });

      it('writes nothing of a batch in which one commit fails', async () => {
        const existing = newTask();
        await store.commit([existing]);
        const before = await store.countOutbox();

        const fresh = newTask({ outbox: [{ configId: 'cfg' }] });
        const good = update(existing, { outboxConfigIds: ['cfg'] });
        const stale = update(existing, { expectedVersion: 7 });
        await expectConcurrentUpdate(store.commit([fresh, good, stale]), existing.task.id);

        expect(await store.getTask('agent-a', fresh.task.id)).toBeUndefined();
        expect(await store.readEvents(fresh.task.id, 0)).toEqual([]);
        expect(await store.getTask('agent-a', existing.task.id)).toMatchObject({ version: 1, seq: 1, task: existing.task });
        expect((await store.readEvents(existing.task.id, 0)).map((e) => e.seq)).toEqual([1]);
        expect(await store.countOutbox()).toBe(before);
      });

      it('names the stale task when a batch updates several tasks', async () => {
        const [a, b, c] = [newTask(), newTask(), newTask()];
        const tasks = [a, b, c];
        await store.commit(tasks);
        await expectConcurrentUpdate(store.commit([update(a), update(b, { expectedVersion: 3 }), update(c)]), b.task.id);
        for (const t of tasks) expect((await store.getTask('agent-a', t.task.id))?.version).toBe(1);
        await store.commit([update(a), update(b), update(c)]);
        for (const t of tasks) expect((await store.getTask('agent-a', t.task.id))?.version).toBe(2);
      });

      it('rejects a task created twice in one batch, writing neither', async () => {
        const a = newTask();
        const again = newTask({ id: a.task.id });
        await expectConcurrentUpdate(store.commit([a, again]), a.task.id);
        expect(await store.getTask('agent-a', a.task.id)).toBeUndefined();
      });

      it('keeps long client-chosen ids and large epoch values intact, as numbers', async () => {
        const far = Date.UTC(2200, 0, 1, 0, 0, 0, 123);
        const c = newTask({ id: `t-${'x'.repeat(600)}`, contextId: `c-${'y'.repeat(2000)}`, time: far });
        await store.commit([c]);
        const stored = await store.getTask('agent-a', c.task.id);
        expect(stored?.task.contextId).toBe(c.task.contextId);
        expect(stored?.statusTime).toBe(far);
        expect(typeof stored?.statusTime).toBe('number');
        expect(typeof stored?.createdAt).toBe('number');
        const [event] = await store.readEvents(c.task.id, 0);
        expect(event?.createdAt).toBe(far);
        expect(typeof event?.createdAt).toBe('number');
      });

      it('uses the commit time as the status time of a task without a status timestamp', async () => {
        const c = { ...newTask({ time: null }), createdAt: T0 + 42 };
        await store.commit([c]);
        expect((await store.getTask('agent-a', c.task.id))?.statusTime).toBe(T0 + 42);
      });

      it('keeps full task documents: history, artifacts and metadata', async () => {
        const c = newTask();
        c.task.artifacts = [{ artifactId: 'a1', name: 'answer', parts: [{ text: 'é ✓ 🚀' }, { data: { n: 1, l: [true, null] } }] }];
        c.task.metadata = { trace: 'abc' };
        await store.commit([c]);
        expect((await store.getTask('agent-a', c.task.id))?.task).toEqual(c.task);
      });
    });

    describe('findTasksInStates', () => {
      it('returns the tasks of any agent and owner in the given states, oldest first, up to a limit', async () => {
        const working1 = newTask({ agentId: 'agent-a', owner: 'alice', state: 'TASK_STATE_WORKING', time: T0 + 1 });
        const submitted = newTask({ agentId: 'agent-b', owner: 'bob', state: 'TASK_STATE_SUBMITTED', time: T0 + 2 });
        const done = newTask({ state: 'TASK_STATE_COMPLETED', time: T0 + 3 });
        const working2 = newTask({ state: 'TASK_STATE_WORKING', time: T0 + 4 });
        await store.commit([working1, submitted, done, working2]);
        const found = await store.findTasksInStates(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'], 10);
        expect(found.map((t) => t.task.id)).toEqual([working1.task.id, submitted.task.id, working2.task.id]);
        expect((await store.findTasksInStates(['TASK_STATE_WORKING'], 1)).map((t) => t.task.id)).toEqual([working1.task.id]);
        expect(await store.findTasksInStates([], 10)).toEqual([]);
      });

      it('pages after a position: oldest first, then by id within one creation time', async () => {
        const tasks = ['b', 'a', 'c', 'd'].map((suffix, i) => newTask({ id: `page-${suffix}`, state: 'TASK_STATE_WORKING', time: T0 + (i < 3 ? 1 : 2) }));
        await store.commit(tasks);
        const states = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;
        const first = await store.findTasksInStates(states, 2);
        expect(first.map((t) => t.task.id)).toEqual(['page-a', 'page-b']);
        const last = first[1]!;
        const second = await store.findTasksInStates(states, 2, { createdAt: last.createdAt, id: last.task.id });
        expect(second.map((t) => t.task.id)).toEqual(['page-c', 'page-d']);
        expect(await store.findTasksInStates(states, 2, { createdAt: T0 + 2, id: 'page-d' })).toEqual([]);
      });

      it('forgets a task once it leaves the live states, whatever order the states are asked in', async () => {
        const working = newTask({ state: 'TASK_STATE_WORKING', time: T0 + 1 });
        const other = newTask({ state: 'TASK_STATE_SUBMITTED', time: T0 + 2 });
        await store.commit([working, other]);
        await store.commit([update(working, { state: 'TASK_STATE_COMPLETED' })]);
        expect((await store.findTasksInStates(['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED'], 10)).map((t) => t.task.id)).toEqual([other.task.id]);
        expect((await store.findTasksInStates(['TASK_STATE_COMPLETED'], 10)).map((t) => t.task.id)).toEqual([working.task.id]);
      });
    });

    describe('readEvents', () => {
      it('reads the log back gapless and in order, after a seq and up to a limit', async () => {
        const c1 = newTask();
        const c2 = update(c1, { events: 3 });
        const c3 = update(c2, { events: 2, state: 'TASK_STATE_COMPLETED' });
        await store.commit([c1]);
        await store.commit([c2]);
        await store.commit([c3]);
        const all = await store.readEvents(c1.task.id, 0);
        expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(all).toEqual([...c1.events, ...c2.events, ...c3.events]);
        expect((await store.readEvents(c1.task.id, 4)).map((e) => e.seq)).toEqual([5, 6]);
        expect((await store.readEvents(c1.task.id, 1, 2)).map((e) => e.seq)).toEqual([2, 3]);
        // starting inside one commit's events and crossing into the next
        expect((await store.readEvents(c1.task.id, 2)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
        expect((await store.readEvents(c1.task.id, 3, 2)).map((e) => e.seq)).toEqual([4, 5]);
        expect(await store.readEvents(c1.task.id, 6)).toEqual([]);
      });

      it.skipIf(!options.exec)('reads rows of both forms in one log: the full form stored before compact rows, and the compact form', async () => {
        const c1 = newTask();
        const c2 = update(c1, { events: 2, state: 'TASK_STATE_COMPLETED' });
        await store.commit([c1]);
        // a row as a server before compact rows wrote it: every event whole, its ids in it
        const old = JSON.stringify(c2.events.map((e) => [e.createdAt, e.event])).replaceAll("'", "''");
        await options.exec!(`insert into task_events (task_id, seq, first_seq, events, created_at) values ('${c1.task.id}', 3, 2, '${old}', ${c2.createdAt})`);
        expect(await store.readEvents(c1.task.id, 0)).toEqual([...c1.events, ...c2.events]);
        expect(await store.readEvents(c1.task.id, 1)).toEqual(c2.events);
      });

      it('never mixes the events of different tasks', async () => {
        const a = newTask();
        const b = newTask();
        await store.commit([a, b, update(a), update(b, { events: 2 })]);
        const ea = await store.readEvents(a.task.id, 0);
        const eb = await store.readEvents(b.task.id, 0);
        expect(ea.every((e) => e.taskId === a.task.id)).toBe(true);
        expect(eb.every((e) => e.taskId === b.task.id)).toBe(true);
        expect(ea.map((e) => e.seq)).toEqual([1, 2]);
        expect(eb.map((e) => e.seq)).toEqual([1, 2, 3]);
      });

      it('round-trips a user message appended to a task', async () => {
        const c1 = newTask();
        const msg = { messageId: 'm2', role: 'ROLE_USER' as const, parts: [{ text: 'more' }], taskId: c1.task.id };
        const c2: TaskCommit = {
          ...c1,
          task: { ...c1.task, history: [...(c1.task.history ?? []), msg] },
          expectedVersion: 1,
          seq: 2,
          events: [{ taskId: c1.task.id, seq: 2, event: { userMessage: msg }, createdAt: T0 + 1 }],
          outbox: [],
        };
        await store.commit([c1, c2]);
        expect(await store.readEvents(c1.task.id, 1)).toEqual(c2.events);
      });
    });

    describe('listTasks', () => {
      /** Commits tasks for alice on agent-a with the given status times, plus noise for others. */
      async function seed(times: number[], o: Partial<NewTaskOptions> = {}): Promise<TaskCommit[]> {
        const commits = times.map((time) => newTask({ ...o, time }));
        await store.commit([...commits, newTask({ owner: 'bob', time: T0 + 999_999 }), newTask({ agentId: 'agent-b', time: T0 + 999_999 })]);
        return commits;
      }

      it('lists newest status first, ties broken by task id descending', async () => {
        const same = T0 + 500;
        await store.commit([newTask({ id: 'k-b', time: same }), newTask({ id: 'k-a', time: same }), newTask({ id: 'k-c', time: same }), newTask({ id: 'k-old', time: T0 }), newTask({ id: 'k-new', time: T0 + 1000 })]);
        const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 });
        expect(page.tasks.map((t) => t.task.id)).toEqual(['k-new', 'k-c', 'k-b', 'k-a', 'k-old']);
        expect(page.totalSize).toBe(5);
        expect(page.next).toBeUndefined();
      });

      it("lists only the agent's tasks of the owner", async () => {
        const mine = await seed([T0, T0 + 1]);
        const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 });
        expect(page.tasks.map((t) => t.task.id).sort()).toEqual(mine.map((c) => c.task.id).sort());
        expect(page.tasks.every((t) => t.agentId === 'agent-a' && t.owner === 'alice')).toBe(true);
        expect(page.totalSize).toBe(2);
        const none = await store.listTasks({ agentId: 'agent-a', owner: 'carol', pageSize: 10 });
        expect(none).toEqual({ tasks: [], totalSize: 0 });
      });

      it('filters by contextId', async () => {
        await seed([T0, T0 + 1], { contextId: 'shared-ctx' });
        await seed([T0 + 2]);
        const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', contextId: 'shared-ctx', pageSize: 10 });
        expect(page.tasks).toHaveLength(2);
        expect(page.tasks.every((t) => t.task.contextId === 'shared-ctx')).toBe(true);
        expect(page.totalSize).toBe(2);
      });

      it('filters by status, following status changes', async () => {
        const [a, b] = (await seed([T0, T0 + 1])) as [TaskCommit, TaskCommit];
        await store.commit([update(a, { state: 'TASK_STATE_COMPLETED' })]);
        const done = await store.listTasks({ agentId: 'agent-a', owner: 'alice', status: 'TASK_STATE_COMPLETED', pageSize: 10 });
        expect(done.tasks.map((t) => t.task.id)).toEqual([a.task.id]);
        expect(done.totalSize).toBe(1);
        const submitted = await store.listTasks({ agentId: 'agent-a', owner: 'alice', status: 'TASK_STATE_SUBMITTED', pageSize: 10 });
        expect(submitted.tasks.map((t) => t.task.id)).toEqual([b.task.id]);
      });

      it('filters by statusTimeAfter, inclusive', async () => {
        const [, b, c] = (await seed([T0, T0 + 10, T0 + 20])) as [TaskCommit, TaskCommit, TaskCommit];
        const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', statusTimeAfter: T0 + 10, pageSize: 10 });
        expect(page.tasks.map((t) => t.task.id)).toEqual([c.task.id, b.task.id]);
        expect(page.totalSize).toBe(2);
      });

      it('combines filters', async () => {
        await seed([T0, T0 + 10, T0 + 20], { contextId: 'ctx-x' });
        await seed([T0 + 30], { contextId: 'ctx-y' });
        const page = await store.listTasks({
          agentId: 'agent-a',
          owner: 'alice',
          contextId: 'ctx-x',
          status: 'TASK_STATE_SUBMITTED',
          statusTimeAfter: T0 + 5,
          pageSize: 10,
        });
        expect(page.tasks.map((t) => t.statusTime)).toEqual([T0 + 20, T0 + 10]);
        expect(page.totalSize).toBe(2);
      });

      it('moves a task in the order when its status time changes', async () => {
        const [a, b] = (await seed([T0, T0 + 10])) as [TaskCommit, TaskCommit];
        await store.commit([update(a, { time: T0 + 100 })]);
        const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 10 });
        expect(page.tasks.map((t) => t.task.id)).toEqual([a.task.id, b.task.id]);
        expect(page.tasks[0]?.statusTime).toBe(T0 + 100);
      });

      it('pages through every task exactly once; totalSize ignores the cursor', async () => {
        // 7 tasks, with ties on the status time across page boundaries
        const times = [T0, T0 + 1, T0 + 1, T0 + 1, T0 + 2, T0 + 2, T0 + 3];
        const all = await seed(times);
        const seen: string[] = [];
        let after: { statusTime: number; taskId: string } | undefined;
        const sizes: number[] = [];
        for (let i = 0; i < 10; i++) {
          const page = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 3, ...(after ? { after } : {}) });
          expect(page.totalSize).toBe(7);
          sizes.push(page.tasks.length);
          seen.push(...page.tasks.map((t) => t.task.id));
          if (!page.next) break;
          const last = page.tasks[page.tasks.length - 1]!;
          expect(page.next).toEqual({ statusTime: last.statusTime, taskId: last.task.id });
          after = page.next;
        }
        expect(sizes).toEqual([3, 3, 1]);
        expect(seen).toHaveLength(7);
        expect(new Set(seen).size).toBe(7);
        const expected = [...all].sort((x, y) => Date.parse(y.task.status.timestamp!) - Date.parse(x.task.status.timestamp!) || (y.task.id < x.task.id ? -1 : 1)).map((c) => c.task.id);
        expect(seen).toEqual(expected);
      });

      it('answers a total an earlier page of the listing reported as is, without counting', async () => {
        await seed([T0, T0 + 1, T0 + 2]);
        const first = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 2 });
        expect(first.totalSize).toBe(3);
        const second = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 2, after: first.next, knownTotal: 42 });
        expect(second.tasks).toHaveLength(1);
        expect(second.totalSize).toBe(42);
      });

      it('keeps the unfiltered total exact as tasks are added, updated or refused after a first listing', async () => {
        const [a] = (await seed([T0, T0 + 1])) as [TaskCommit, TaskCommit];
        expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 1 })).totalSize).toBe(2);
        await store.commit([newTask({ time: T0 + 2 }), update(a, { state: 'TASK_STATE_COMPLETED' }), newTask({ owner: 'bob', time: T0 + 3 })]);
        // A batch that fails (a task id that exists already) writes nothing, so counts nothing.
        await expect(store.commit([newTask({ time: T0 + 4 }), newTask({ id: a.task.id, time: T0 + 5 })])).rejects.toThrow(ConcurrentUpdateError);
        expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 1 })).totalSize).toBe(3);
        expect((await store.listTasks({ agentId: 'agent-a', owner: 'bob', pageSize: 1 })).totalSize).toBe(2);
        expect((await store.listTasks({ agentId: 'agent-a', owner: 'alice', status: 'TASK_STATE_COMPLETED', pageSize: 1 })).totalSize).toBe(1);
      });

      it('gives no next cursor when the last page is exactly full', async () => {
        await seed([T0, T0 + 1, T0 + 2, T0 + 3]);
        const first = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 2 });
        expect(first.next).toBeDefined();
        const second = await store.listTasks({ agentId: 'agent-a', owner: 'alice', pageSize: 2, after: first.next });
        expect(second.tasks).toHaveLength(2);
        expect(second.next).toBeUndefined();
      });
    });

    describe('searchTasks (every agent and owner)', () => {
      it('lists every agent\u2019s and owner\u2019s tasks without filters, newest status first', async () => {
        await store.commit([newTask({ id: 's-1', time: T0 }), newTask({ id: 's-2', owner: 'bob', time: T0 + 2 }), newTask({ id: 's-3', agentId: 'agent-b', time: T0 + 1 })]);
        const page = await store.searchTasks({ pageSize: 10 });
        expect(page.tasks.map((t) => t.task.id)).toEqual(['s-2', 's-3', 's-1']);
        expect(page.totalSize).toBe(3);
      });

      it('filters by agent, owner, state and a status-time window (since inclusive, until exclusive)', async () => {
        const a = newTask({ id: 's-a', time: T0 });
        await store.commit([a, newTask({ id: 's-b', owner: 'bob', time: T0 + 10 }), newTask({ id: 's-c', agentId: 'agent-b', owner: 'bob', time: T0 + 20 })]);
        await store.commit([update(a, { state: 'TASK_STATE_COMPLETED', time: T0 + 5 })]);
        const ids = async (q: Omit<TaskSearchQuery, 'pageSize'>) => (await store.searchTasks({ ...q, pageSize: 10 })).tasks.map((t) => t.task.id);
        expect(await ids({ agentId: 'agent-a' })).toEqual(['s-b', 's-a']);
        expect(await ids({ owner: 'bob' })).toEqual(['s-c', 's-b']);
        expect(await ids({ owner: 'bob', agentId: 'agent-b' })).toEqual(['s-c']);
        expect(await ids({ status: 'TASK_STATE_COMPLETED' })).toEqual(['s-a']);
        expect(await ids({ statusTimeAfter: T0 + 5, statusTimeBefore: T0 + 20 })).toEqual(['s-b', 's-a']);
        expect(await ids({ statusTimeBefore: T0 + 5 })).toEqual([]);
        expect((await store.searchTasks({ owner: 'bob', pageSize: 1 })).totalSize).toBe(2);
      });

      it('pages across owners with the keyset cursor, each task once', async () => {
        await store.commit([newTask({ id: 'p-1', time: T0 }), newTask({ id: 'p-2', owner: 'bob', time: T0 }), newTask({ id: 'p-3', agentId: 'agent-b', time: T0 + 1 })]);
        const first = await store.searchTasks({ pageSize: 2 });
        expect(first.tasks.map((t) => t.task.id)).toEqual(['p-3', 'p-2']);
        const second = await store.searchTasks({ pageSize: 2, ...(first.next ? { after: first.next } : {}) });
        expect(second.tasks.map((t) => t.task.id)).toEqual(['p-1']);
        expect(second.next).toBeUndefined();
      });
    });

    describe('push configs', () => {
      it('puts, gets, lists and deletes a config', async () => {
        const c = pushConfig('task-1', 'cfg-1');
        await store.putPushConfig(c);
        expect(await store.getPushConfig('task-1', 'cfg-1')).toEqual(c);
        expect(await store.listPushConfigs('task-1')).toEqual([c]);
        await store.deletePushConfig('task-1', 'cfg-1');
        expect(await store.getPushConfig('task-1', 'cfg-1')).toBeUndefined();
        expect(await store.listPushConfigs('task-1')).toEqual([]);
      });

      it('replaces a config put again with the same id', async () => {
        await store.putPushConfig(pushConfig('task-1', 'cfg-1', 'https://old.example/'));
        const replaced = pushConfig('task-1', 'cfg-1', 'https://new.example/');
        await store.putPushConfig(replaced);
        expect((await store.getPushConfig('task-1', 'cfg-1'))?.config).toEqual(replaced.config);
        expect(await store.listPushConfigs('task-1')).toHaveLength(1);
      });

      it('lists a task’s configs in creation order, and only that task’s', async () => {
        const b = pushConfig('task-1', 'b', undefined, T0);
        const a = pushConfig('task-1', 'a', undefined, T0 + 1);
        await store.putPushConfig(a);
        await store.putPushConfig(b);
        await store.putPushConfig(pushConfig('task-2', 'a'));
        expect((await store.listPushConfigs('task-1')).map((c) => c.config.id)).toEqual(['b', 'a']);
        expect(await store.getPushConfig('task-2', 'b')).toBeUndefined();
        await store.deletePushConfig('task-2', 'a');
        expect(await store.listPushConfigs('task-1')).toHaveLength(2);
      });

      it('treats deleting a missing config as success', async () => {
        await expect(store.deletePushConfig('no-task', 'no-config')).resolves.toBeUndefined();
        await store.putPushConfig(pushConfig('task-1', 'cfg-1'));
        await store.deletePushConfig('task-1', 'cfg-1');
        expect(await store.getPushConfig('task-1', 'cfg-1')).toBeUndefined();
        await expect(store.deletePushConfig('task-1', 'cfg-1')).resolves.toBeUndefined();
        expect(await store.listPushConfigs('task-1')).toEqual([]);
      });
    });

    describe('push outbox', () => {
      const LEASE = 30_000;

      it('writes outbox entries with the commit, due at commit time', async () => {
        const c = newTask({ time: T0, outbox: [{ configId: 'cfg-1' }] });
        await store.commit([c]);
        expect(await store.countOutbox()).toBe(1);
        expect(await store.claimOutbox(T0 - 1, 10, LEASE)).toEqual([]);
        const [entry, ...rest] = await store.claimOutbox(T0, 10, LEASE);
        expect(rest).toEqual([]);
        expect(entry).toEqual({
          id: expect.any(Number),
          taskId: c.task.id,
          configId: 'cfg-1',
          seq: 1,
          payload: c.events[0]!.event,
          attempts: 0,
          nextAttemptAt: T0,
        });
      });

      it('reports the backlog: pending entries and when the oldest was queued; given-up entries leave it', async () => {
        const before = await store.outboxBacklog();
        const older = newTask({ time: T0 - 60_000, outbox: [{ configId: 'a' }] });
        const newer = newTask({ time: T0, outbox: [{ configId: 'b' }] });
        await store.commit([older, newer, update(newer, { outboxConfigIds: ['b'], time: T0 })]);
        const backlog = await store.outboxBacklog();
        expect(backlog.pending).toBe(before.pending + 3);
        expect(backlog.oldestCreatedAt).toBeLessThanOrEqual(T0 - 60_000);
        const claimed = await store.claimOutbox(T0 + 1, 100, LEASE);
        for (const e of claimed.filter((x) => x.taskId === older.task.id || x.taskId === newer.task.id)) await store.markFailed(e.id, 1, null, 'given up');
        const drained = await store.outboxBacklog();
        expect(drained.pending).toBe(before.pending + 1);
        if (before.pending === 0) expect(drained).toEqual({ pending: 1, oldestCreatedAt: T0 });
      });

      it("hands out only the oldest pending entry of each task's push config (issue 25 P1)", async () => {
        const a1 = newTask({ outbox: [{ configId: 'x' }] });
        const b1 = newTask({ outbox: [{ configId: 'x' }] });
        const a2 = update(a1, { outboxConfigIds: ['x', 'y'], time: T0 });
        const a3 = update(a2, { outboxConfigIds: ['x', 'y'], time: T0 });
        await store.commit([a1, b1, a2]);
        await store.commit([a3]);
        expect(await store.countOutbox()).toBe(6);

        // y's first entry is a1's second event: it does not wait behind x's first
        const first = await store.claimOutbox(T0, 10, LEASE);
        expect(first.map((e) => [e.taskId, e.seq, e.configId])).toEqual([
          [a1.task.id, 1, 'x'],
          [b1.task.id, 1, 'x'],
          [a1.task.id, 2, 'y'],
        ]);
        // the heads are leased: nothing more of either task is claimable meanwhile
        expect(await store.claimOutbox(T0 + 1, 10, LEASE)).toEqual([]);

        // y's next entry follows its delivered head, while x's head is still out
        await store.markDelivered(first[1]!.id);
        await store.markDelivered(first[2]!.id);
        const second = await store.claimOutbox(T0 + 2, 10, LEASE);
        expect(second.map((e) => [e.taskId, e.seq, e.configId])).toEqual([[a1.task.id, 3, 'y']]);
        // a failed head waiting for its retry still holds its own config's later entries back
        await store.markFailed(first[0]!.id, 1, T0 + 60_000, 'HTTP 503');
        expect(await store.claimOutbox(T0 + 3, 10, LEASE)).toEqual([]);
        await store.markDelivered(second[0]!.id);
        expect(await store.claimOutbox(T0 + 4, 10, LEASE)).toEqual([]);
        const retry = await store.claimOutbox(T0 + 60_000, 10, LEASE);
        expect(retry.map((e) => [e.taskId, e.seq, e.configId])).toEqual([[a1.task.id, 1, 'x']]);
        await store.markDelivered(retry[0]!.id);
        const next = await store.claimOutbox(T0 + 60_001, 10, LEASE);
        expect(next.map((e) => [e.taskId, e.seq, e.configId])).toEqual([[a1.task.id, 2, 'x']]);
      });

      it('makes an entry claimable again once its lease expires', async () => {
        await store.commit([newTask({ outbox: [{ configId: 'x' }] })]);
        const [entry] = await store.claimOutbox(T0, 10, 1000);
        expect(await store.claimOutbox(T0 + 999, 10, 1000)).toEqual([]);
        expect(await store.claimOutbox(T0 + 1000, 10, 1000)).toEqual([]);
        const again = await store.claimOutbox(T0 + 1001, 10, 1000);
        expect(again).toEqual([entry]);
        // the new lease counts from the new claim
        expect(await store.claimOutbox(T0 + 2000, 10, 1000)).toEqual([]);
      });

      it('reschedules a failed entry: not due before nextAttemptAt, then due with its attempts', async () => {
        await store.commit([newTask({ outbox: [{ configId: 'x' }] })]);
        const [entry] = await store.claimOutbox(T0, 10, LEASE);
        await store.markFailed(entry!.id, 1, T0 + 5000, 'HTTP 503');
        expect(await store.claimOutbox(T0 + 4999, 10, LEASE)).toEqual([]);
        const [retry] = await store.claimOutbox(T0 + 5000, 10, LEASE);
        expect(retry).toEqual({ ...entry, attempts: 1, nextAttemptAt: T0 + 5000 });
        expect(await store.countOutbox()).toBe(1);
      });

      it('keeps later entries of a task waiting while its head waits for a retry', async () => {
        const a1 = newTask({ outbox: [{ configId: 'x' }] });
        await store.commit([a1, update(a1, { outboxConfigIds: ['x'], time: T0 })]);
        const [head] = await store.claimOutbox(T0, 10, LEASE);
        await store.markFailed(head!.id, 1, T0 + 60_000, 'timeout');
        expect(await store.claimOutbox(T0 + 1, 10, LEASE)).toEqual([]);
      });

      it('gives up on an entry when markFailed has no next attempt, freeing the next of its task', async () => {
        const a1 = newTask({ outbox: [{ configId: 'x' }] });
        await store.commit([a1, update(a1, { outboxConfigIds: ['x'], time: T0 })]);
        const [head] = await store.claimOutbox(T0, 10, LEASE);
        await store.markFailed(head!.id, 5, null, 'gone');
        expect(await store.countOutbox()).toBe(1);
        const [next] = await store.claimOutbox(T0 + 1, 10, LEASE);
        expect(next?.seq).toBe(2);
        expect(next?.id).not.toBe(head!.id);
      });

      it('lists a task’s deliveries still owed, oldest first, with attempts and last error; a given-up one leaves the list', async () => {
        const a1 = newTask({ outbox: [{ configId: 'x' }] });
        await store.commit([a1, update(a1, { outboxConfigIds: ['x'], time: T0 })]);
        const [head] = await store.claimOutbox(T0, 10, LEASE);
        await store.markFailed(head!.id, 1, T0 + 5000, 'HTTP 503');
        const owed = await store.listPendingDeliveries(a1.task.id);
        expect(owed.map((d) => d.seq)).toEqual([1, 2]);
        expect(owed[0]).toMatchObject({ configId: 'x', seq: 1, attempts: 1, nextAttemptAt: T0 + 5000, lastError: 'HTTP 503' });
        expect(owed[1]!.attempts).toBe(0);
        expect(owed[1]!.lastError).toBeUndefined();
        expect(typeof owed[0]!.queuedAt).toBe('number');
        await store.markFailed(head!.id, 5, null, 'gone');
        expect((await store.listPendingDeliveries(a1.task.id)).map((d) => d.seq)).toEqual([2]);
        expect(await store.listPendingDeliveries('no-such-task')).toEqual([]);
      });

      it('claims at most `limit` entries, oldest first', async () => {
        const commits = Array.from({ length: 5 }, () => newTask({ outbox: [{ configId: 'x' }] }));
        await store.commit(commits);
        const first = await store.claimOutbox(T0, 3, LEASE);
        expect(first.map((e) => e.taskId)).toEqual(commits.slice(0, 3).map((c) => c.task.id));
        const ids = first.map((e) => e.id);
        expect([...ids].sort((x, y) => x - y)).toEqual(ids);
        const rest = await store.claimOutbox(T0, 3, LEASE);
        expect(rest.map((e) => e.taskId)).toEqual(commits.slice(3).map((c) => c.task.id));
      });

      it('never hands the same entry to concurrent claimers', async () => {
        const commits = Array.from({ length: 20 }, () => newTask({ outbox: [{ configId: 'x' }] }));
        await store.commit(commits);
        const claims = await Promise.all(Array.from({ length: 4 }, () => store.claimOutbox(T0, 8, LEASE)));
        const ids = claims.flat().map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBeLessThanOrEqual(20);
        const more = await store.claimOutbox(T0, 100, LEASE);
        expect(ids.length + more.length).toBe(20);
      });

      it('counts pending entries; delivered and given-up ones leave the outbox', async () => {
        await store.commit([newTask({ outbox: [{ configId: 'x' }, { configId: 'y' }] }), newTask({ outbox: [{ configId: 'x' }] })]);
        expect(await store.countOutbox()).toBe(3);
        const claimed = await store.claimOutbox(T0, 10, LEASE);
        await store.markDelivered(claimed[0]!.id);
        await store.markFailed(claimed[1]!.id, 3, null, 'gave up');
        expect(await store.countOutbox()).toBe(1);
      });

      it('ignores markDelivered and markFailed of unknown entries', async () => {
        await store.markDelivered(987_654);
        await store.markFailed(987_655, 1, T0, 'x');
        await store.markFailed(987_656, 1, null, 'x');
        expect(await store.countOutbox()).toBe(0);
      });
    });

    describeLeaseContract(context);
    describeSchemaContract(context);
    describeReplicasContract(context);
    describeSigningKeysContract(context);
    describeApiKeysContract(context);
    describeMessageIdsContract(context);
    describeUsageContract(context);
  });
}
