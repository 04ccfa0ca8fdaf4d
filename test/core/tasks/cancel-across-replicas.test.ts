/**
 * CancelTask in distributed mode, two replicas in one process (two task engines over ONE SQLite
 * file, each with its lease terms and its own view of one bus). Deterministic: the control signals
 * to the replica running the task are held back, as a loaded network or machine holds them, so that
 * replica still has its executor and a WORKING copy when the task was already canceled elsewhere.
 */
import { afterEach, describe as suite, expect, it } from 'vitest';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { agent, startEngine, until, userMessage, type Engine } from './engine-harness.js';
import { ReplicaBus } from './replica-bus.js';

let engines: Engine[] = [];
afterEach(async () => {
  // the second replica first: the first owns the database file and the bus
  for (const e of engines.reverse()) await e.dispose();
  engines = [];
});

const LEASE = { leaseTtlMs: 60_000, sweepIntervalMs: 60_000 };

/** An agent that works until canceled, counting the runs its signal aborted. */
function holdingAgent(seen: { aborted: number }) {
  return agent(async (ctx) => {
    ctx.working('holding');
    ctx.signal.addEventListener('abort', () => seen.aborted++);
    await ctx.sleep(60_000);
    ctx.complete();
  });
}

async function twoReplicas(def: ReturnType<typeof agent>): Promise<{ a: Engine; b: Engine; busA: ReplicaBus }> {
  let busA: ReplicaBus | undefined;
  const a = await startEngine({ hold: def }, {}, { sharedFile: true, cluster: { replicaId: 'A', ...LEASE }, busView: (shared) => (busA = new ReplicaBus(shared, 'A')) });
  engines.push(a);
  const b = await startEngine({ hold: def }, {}, { replicaOf: a, cluster: { replicaId: 'B', ...LEASE }, busView: (shared) => new ReplicaBus(shared, 'B') });
  engines.push(b);
  return { a, b, busA: busA! };
}

async function startOn(e: Engine): Promise<Task> {
  const r = await e.service.sendMessage(e.ctx('hold'), { message: userMessage('hold'), configuration: { returnImmediately: true } });
  if (!('task' in r)) throw new Error('expected a task');
  await until(async () => (await e.store.getTask('hold', r.task.id))?.task.status.state === 'TASK_STATE_WORKING', 'the task to be WORKING in the store');
  return r.task;
}

suite('CancelTask across replicas (in process, distributed mode)', () => {
  it('a second cancel on the replica still running the task, before the first cancel reached it, answers the task CANCELED', async () => {
    const seen = { aborted: 0 };
    const { a, b, busA } = await twoReplicas(holdingAgent(seen));
    const task = await startOn(a);
    expect((await a.store.getTask('hold', task.id))?.lease?.owner).toBe('A');

    busA.hold();
    const first = await b.service.cancelTask(b.ctx('hold'), { id: task.id });
    expect(first.status.state).toBe('TASK_STATE_CANCELED');
    // B took the task over; its cancel signal has not reached A, whose executor still runs
    expect((await a.store.getTask('hold', task.id))?.lease?.owner).toBe('B');
    expect(busA.heldCount).toBe(1);
    expect(seen.aborted).toBe(0);

    const second = await a.service.cancelTask(a.ctx('hold'), { id: task.id });
    expect(second.id).toBe(task.id);
    expect(second.status.state).toBe('TASK_STATE_CANCELED');
    // A's executor stopped; the store keeps B's one cancel (no second CANCELED event)
    expect(seen.aborted).toBe(1);
    const stored = await a.store.getTask('hold', task.id);
    expect(stored?.task.status.state).toBe('TASK_STATE_CANCELED');
    const events = await a.store.readEvents(task.id, 0, 100);
    expect(events.filter((r) => 'statusUpdate' in r.event && r.event.statusUpdate.status.state === 'TASK_STATE_CANCELED')).toHaveLength(1);

    busA.release();
    expect((await a.service.getTask(a.ctx('hold'), { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await b.service.cancelTask(b.ctx('hold'), { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });
});
