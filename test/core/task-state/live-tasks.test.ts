/**
 * The one owner of the in-memory working copies (core/task-state/live-tasks.ts) over a real SQLite
 * store: get, load (once for concurrent callers), adopt, evict (only what nothing uses) and drop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../../src/bus/in-process-bus.js';
import type { AgentRun } from '../../../src/core/execution/agent-run.js';
import { LiveTask } from '../../../src/core/task-state/live-task.js';
import { LiveTasks } from '../../../src/core/task-state/live-tasks.js';
import { TaskLog } from '../../../src/core/task-state/task-log.js';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { GroupCommitter, openSqliteStore, type SqliteStore } from '../../../src/store/index.js';

let dir: string;
let store: SqliteStore;
let tasks: LiveTasks;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentport-live-tasks-'));
  store = await openSqliteStore({ file: join(dir, 'agentport.db') });
  await store.migrate();
  tasks = new LiveTasks(store);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function submitted(id: string): Task {
  return { id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(0).toISOString() }, history: [] };
}

function fresh(id: string): LiveTask {
  return new LiveTask({ task: submitted(id), agentId: 'a', owner: 'alice', seq: 0, version: 0, createdAt: 1 });
}

/** Stores task `id` (one event) with one push config, as a commit and a config write would. */
async function stored(id: string): Promise<void> {
  const task = submitted(id);
  await store.commit([{ agentId: 'a', owner: 'alice', task, expectedVersion: 0, seq: 1, events: [{ taskId: id, seq: 1, event: { task }, createdAt: 1 }], outbox: [], createdAt: 1 }]);
  await store.putPushConfig({ agentId: 'a', owner: 'alice', taskId: id, config: { id: 'p1', taskId: id, url: 'https://hooks.example/p1' }, createdAt: 1 });
}

const aRun = {} as AgentRun;

describe('LiveTasks', () => {
  it('get finds only what was adopted; adopt makes a created copy the task’s', () => {
    const l = fresh('t1');
    expect(tasks.get('t1')).toBeUndefined();
    tasks.adopt(l);
    expect(tasks.get('t1')).toBe(l);
    expect(tasks.has('t1')).toBe(true);
    expect([...tasks.values()]).toEqual([l]);
  });

  it('load reads a stored task once for concurrent callers, with its push configs, and keeps the copy', async () => {
    await stored('t1');
    let reads = 0;
    const getTask = store.getTask.bind(store);
    store.getTask = (agentId, taskId) => (reads++, getTask(agentId, taskId));
    const [one, two] = await Promise.all([tasks.load('a', 't1'), tasks.load('a', 't1')]);
    expect(one).toBeDefined();
    expect(two).toBe(one);
    expect(reads).toBe(1);
    expect(one!.seq).toBe(1);
    expect(one!.committed).toBe(true);
    expect([...one!.pushTargets.keys()]).toEqual(['p1']);
    expect(tasks.get('t1')).toBe(one);
    // Held now: a later load does not read again.
    expect(await tasks.load('a', 't1')).toBe(one);
    expect(reads).toBe(1);
  });

  it('load of a task the store does not have is undefined and keeps nothing', async () => {
    expect(await tasks.load('a', 'nope')).toBeUndefined();
    expect(tasks.has('nope')).toBe(false);
  });

  it('a copy a run adopted while a load read the store wins over the stale read', async () => {
    await stored('t1');
    const getTask = store.getTask.bind(store);
    const created = fresh('t1');
    store.getTask = async (agentId, taskId) => {
      const s = await getTask(agentId, taskId);
      tasks.adopt(created);
      return s;
    };
    expect(await tasks.load('a', 't1')).toBe(created);
    expect(tasks.get('t1')).toBe(created);
  });

  it('adoptStored replaces any copy (the caller just took the task over) and marks it before anyone finds it', async () => {
    await stored('t1');
    const stale = fresh('t1');
    tasks.adopt(stale);
    const s = (await store.getTask('a', 't1'))!;
    let seenHeld: boolean | undefined;
    const taken = await tasks.adoptStored(s, (l) => {
      l.held = true;
      seenHeld = tasks.get('t1') === l;
    });
    expect(seenHeld).toBe(false);
    expect(taken).not.toBe(stale);
    expect(taken.held).toBe(true);
    expect(tasks.get('t1')).toBe(taken);
    expect([...taken.pushTargets.keys()]).toEqual(['p1']);
  });

  it('evict forgets only a copy nothing uses: not one with a run, not one with a commit in flight', () => {
    const l = fresh('t1');
    tasks.adopt(l);
    l.run = aRun;
    tasks.evict(l);
    expect(tasks.get('t1')).toBe(l);
    l.run = undefined;
    l.pending = 1;
    tasks.evict(l);
    expect(tasks.get('t1')).toBe(l);
    l.pending = 0;
    tasks.evict(l);
    expect(tasks.has('t1')).toBe(false);
  });

  it('evict and drop of a copy that is no longer the task’s leave the newer one', () => {
    const old = fresh('t1');
    const newer = fresh('t1');
    tasks.adopt(old);
    tasks.adopt(newer);
    tasks.evict(old);
    tasks.drop(old);
    expect(tasks.get('t1')).toBe(newer);
  });

  it('drop forgets a copy whatever it is doing (a lost lease, a failed commit)', () => {
    const l = fresh('t1');
    l.run = aRun;
    l.pending = 2;
    tasks.adopt(l);
    tasks.drop(l);
    expect(tasks.has('t1')).toBe(false);
  });

  it('the task log evicts through the owner: a copy with no run is gone once its commit lands, one with a run stays', async () => {
    const bus = new InProcessEventBus();
    const log = new TaskLog({ live: tasks, committer: new GroupCommitter(store), bus });
    const idle = fresh('t1');
    const running = fresh('t2');
    running.run = aRun;
    tasks.adopt(idle);
    tasks.adopt(running);
    await Promise.all([log.append(idle, [{ task: idle.task }]), log.append(running, [{ task: running.task }])]);
    expect(tasks.has('t1')).toBe(false);
    expect(tasks.get('t2')).toBe(running);
    expect((await store.getTask('a', 't1'))?.seq).toBe(1);
    await bus.close();
  });
});
