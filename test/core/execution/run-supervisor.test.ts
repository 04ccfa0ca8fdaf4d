/** The run supervisor with the task log over a real SQLite store and the in-process bus (no TaskService). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineAgent, type AgentContext } from '../../../src/agents/sdk/agent.js';
import { InProcessEventBus } from '../../../src/bus/in-process-bus.js';
import { RunSupervisor } from '../../../src/core/execution/run-supervisor.js';
import type { RunObserver } from '../../../src/core/execution/run-observer.js';
import { LiveTasks } from '../../../src/core/task-state/live-tasks.js';
import { TaskLog } from '../../../src/core/task-state/task-log.js';
import type { Message, Task } from '../../../src/protocol/a2a/types.js';
import { GroupCommitter, openSqliteStore, type SqliteStore, type TaskEventRecord } from '../../../src/store/index.js';

const silent = { info() {}, warn() {}, error() {} };

let dir: string;
let store: SqliteStore;
let bus: InProcessEventBus;
let live: LiveTasks;
let runs: RunSupervisor;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentport-supervisor-'));
  store = await openSqliteStore({ file: join(dir, 'agentport.db') });
  await store.migrate();
  bus = new InProcessEventBus();
  live = new LiveTasks(store);
  const taskLog = new TaskLog({ live, committer: new GroupCommitter(store), bus });
  runs = new RunSupervisor({ live, store, log: silent, taskLog, deduplicates: true });
});

afterEach(async () => {
  await bus.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const userMessage: Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'c1' };

/** Starts a run creating task t1 and resolves with what its observer is told at the end. */
function run(execute: (ctx: AgentContext) => Promise<void> | void, taskId = 't1'): Promise<{ err?: Error; task?: Task; message?: Message }> {
  return new Promise((resolve) => {
    const r = runs.newRun({ definition: defineAgent({ card: { name: 't', description: 't', skills: [] }, execute }), agentId: 'a', taskId, contextId: 'c1', message: userMessage, owner: 'alice' });
    const obs: RunObserver = { onMessage: (message) => resolve({ message }), onCommitted: () => {}, onEnd: (err, task) => resolve({ err, task }) };
    runs.observe(r, obs, { owner: 'alice', userMessage, pushBodyVersion: '1.0' });
    runs.start(r);
  });
}

describe('RunSupervisor', () => {
  it('creates the task on the first task event, logs each event once in order, and ends with the durable task', async () => {
    const published: TaskEventRecord[] = [];
    bus.subscribe('t1', (rec) => void published.push(rec));
    const end = await run((ctx) => {
      ctx.working();
      ctx.complete('done');
    });
    expect(end.err).toBeUndefined();
    expect(end.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const log = await store.readEvents('t1', 0, 10);
    expect(log.map((r) => Object.keys(r.event)[0])).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    expect(published.map((r) => r.seq)).toEqual([1, 2, 3]);
    const stored = await store.getTask('a', 't1');
    expect(stored?.owner).toBe('alice');
    expect(stored?.task.history?.[0]?.messageId).toBe('m1');
    // The run is over: its working copy is gone, the store has it all.
    expect(live.has('t1')).toBe(false);
  });

  it('logs every event of one tick in one commit, in order, however many (one, two, then pushed)', async () => {
    const end = await run((ctx) => {
      ctx.working();
      ctx.artifact('one', { artifactId: 'a1' });
      ctx.artifact('two', { artifactId: 'a2' });
      ctx.artifact(' more', { artifactId: 'a1', append: true });
      ctx.complete('done');
    });
    expect(end.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const log = await store.readEvents('t1', 0, 10);
    expect(log.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(log.map((r) => Object.keys(r.event)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
    const stored = await store.getTask('a', 't1');
    expect(stored?.task.artifacts?.map((a) => [a.artifactId, a.parts])).toEqual([
      ['a1', [{ text: 'one' }, { text: ' more' }]],
      ['a2', [{ text: 'two' }]],
    ]);
  });

  it('a direct reply creates no task and reaches the observer as an agent message', async () => {
    const end = await run((ctx) => ctx.reply('hello'));
    expect(end.message?.role).toBe('ROLE_AGENT');
    expect(end.message?.contextId).toBe('c1');
    expect(await store.getTask('a', 't1')).toBeUndefined();
  });

  it('an executor that produces nothing is InvalidAgentResponse', async () => {
    const end = await run(() => {});
    expect(end.err).toMatchObject({ kind: 'InvalidAgentResponse' });
  });

  it('ends the run of an executor that returned nothing in the microtask turn of one whose promise was already settled', async () => {
    // The run waits on the executor's answer through a promise either way (an executor that returned
    // nothing shares one settled promise: issue 26, tail36); the engine's event order rests on the turn.
    const seen: number[] = [];
    for (const execute of [() => {}, async () => {}, () => {}]) {
      let turns = 0;
      const tick = () => {
        turns++;
        if (turns < 20) queueMicrotask(tick);
      };
      queueMicrotask(tick);
      const end = await run(execute, `turns-${seen.length}`).then((e) => ({ e, at: turns }));
      expect(end.e.err).toMatchObject({ kind: 'InvalidAgentResponse' });
      seen.push(end.at);
      await new Promise((r) => setImmediate(r));
    }
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen).toEqual([seen[0], seen[0], seen[0]]);
  });

  it('dropTask stops the executor and forgets the working copy', async () => {
    let started!: () => void;
    const working = new Promise<void>((r) => (started = r));
    const ending = run(async (ctx) => {
      ctx.working();
      started();
      await ctx.sleep(60_000);
    });
    await working;
    await until(() => live.get('t1')?.committed === true);
    const [current] = runs.current();
    expect(await runs.stillOwner(current!)).toBe(true);
    runs.dropTask('t1', 'test');
    expect(current!.isCanceled).toBe(true);
    expect(live.has('t1')).toBe(false);
    expect(await runs.stillOwner(current!)).toBe(false);
    // Canceled runs leave the answer to the cancel path; the observer is not told here.
    const outcome = await Promise.race([ending.then(() => 'ended'), new Promise((r) => setTimeout(() => r('pending'), 100))]);
    expect(outcome).toBe('pending');
    expect(runs.current()).toEqual([]);
  });
  it('a first commit the store refuses: the caller is told the task could not be stored, and no working copy of it stays', async () => {
    // Another task already holds the id (a real conflict in the store, not a failing double).
    const other: Task = { id: 't1', contextId: 'c0', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' } };
    await store.commit([{ agentId: 'a', owner: 'bob', task: other, expectedVersion: 0, seq: 0, events: [], outbox: [], createdAt: 1 }]);
    const published: TaskEventRecord[] = [];
    bus.subscribe('t1', (rec) => void published.push(rec));
    const end = await run((ctx) => {
      ctx.complete('done');
    });
    expect(end.task).toBeUndefined();
    expect(end.err?.message).toBe('The task could not be stored');
    await until(() => runs.current().length === 0);
    // The copy that did not match the store is dropped (TaskLog), so the next read finds the stored task.
    expect(live.get('t1')).toBeUndefined();
    expect((await store.getTask('a', 't1'))?.task).toEqual(other);
    expect(published).toEqual([]);
    // The task log goes on: another task commits and is published after the refusal.
    const next = await run((ctx) => {
      ctx.complete('again');
    }, 't2');
    expect(next.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
