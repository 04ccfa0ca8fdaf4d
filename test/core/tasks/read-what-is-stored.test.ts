/**
 * GetTask and SubscribeToTask on the replica holding a task answer what the store holds, not what
 * is appended and not yet committed. Another replica reads the store; a read here that ran ahead of
 * it let a client see FAILED on one replica and WORKING on the next (test/distributed/faults.test.ts,
 * the kill -9 recovery, once in a clean clone), and a state told before its commit can be taken back
 * when the commit fails.
 *
 * Nor does a read on it lag them: a commit that landed is read as landed, even before this replica
 * has read its acknowledgement.
 *
 * In process: one engine over a real SQLite file whose committer holds commits (or only their
 * acknowledgements) while the test says. ADR 0089.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../../src/store/index.js';
import { agent, describe as describeItem, startEngine, until, userMessage, type Engine } from './engine-harness.js';
import { AckHoldingCommitter, HoldingCommitter } from './holding-committer.js';

let engine: Engine | undefined;
let holding: { release(): void } | undefined;
afterEach(async () => {
  // a test that failed with a commit held would otherwise wait on it at close
  holding?.release();
  holding = undefined;
  await engine?.dispose();
  engine = undefined;
});

/** An agent that says WORKING, then completes with an artifact when the test lets it. */
function finishOnSignal() {
  let finish!: () => void;
  const finishing = new Promise<void>((r) => (finish = r));
  const definition = agent(async (ctx) => {
    ctx.working();
    await finishing;
    ctx.artifact('done');
    ctx.complete();
  });
  return { definition, finish };
}

/** A committer the test can hold: its commits, or only their acknowledgements. */
type Holding = HoldingCommitter | AckHoldingCommitter;

/** A task stored WORKING whose completion's commit (or its acknowledgement) the committer holds. */
async function startHeld<C extends Holding>(make: (store: SqliteStore) => C): Promise<{ e: Engine; committer: C; taskId: string }> {
  const a = finishOnSignal();
  let committer!: C;
  const e = await startEngine({ slow: a.definition }, {}, { committer: (store) => (committer = make(store)) });
  engine = e;
  holding = committer;
  const r = await e.service.sendMessage(e.ctx('slow'), { message: userMessage('go'), configuration: { returnImmediately: true } });
  if (!('task' in r)) throw new Error('expected a task');
  const taskId = r.task.id;
  await until(async () => (await e.store.getTask('slow', taskId))?.task.status.state === 'TASK_STATE_WORKING', 'WORKING to be stored');
  committer.held = true;
  a.finish();
  await until(() => committer.waiting === 1, 'the completion commit (or its acknowledgement) to be held');
  return { e, committer, taskId };
}

describe('reads on the replica holding a task answer what the store holds', () => {
  it('GetTask answers the stored WORKING while the completion commit is held, COMPLETED once it lands', async () => {
    const { e, committer, taskId } = await startHeld((store) => new HoldingCommitter(store));
    // The working copy here has COMPLETED appended (its commit waits); the store still has WORKING.
    expect(e.service['dir'].live.get(taskId)?.task.status.state, 'the completion is appended here').toBe('TASK_STATE_COMPLETED');
    const stored = await e.store.getTask('slow', taskId);
    expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
    const read = await e.service.getTask(e.ctx('slow'), { id: taskId });
    expect(read.status.state, 'GetTask answers what the store holds').toBe('TASK_STATE_WORKING');
    expect(read.artifacts ?? [], 'no artifact the store does not have').toEqual(stored?.task.artifacts ?? []);

    committer.release();
    await until(async () => (await e.service.getTask(e.ctx('slow'), { id: taskId })).status.state === 'TASK_STATE_COMPLETED', 'COMPLETED once committed');
    const done = await e.service.getTask(e.ctx('slow'), { id: taskId });
    expect(done.artifacts?.flatMap((x) => x.parts.map((p) => p.text))).toEqual(['done']);
    expect((await e.store.getTask('slow', taskId))?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('SubscribeToTask opens on the stored task and streams the held commit\u2019s events once they land', async () => {
    const { e, committer, taskId } = await startHeld((store) => new HoldingCommitter(store));
    const items: string[] = [];
    const reading = (async () => {
      for await (const item of e.service.subscribeToTask(e.ctx('slow'), { id: taskId })) items.push(describeItem(item.response));
    })();
    await until(() => items.length >= 1, 'the stream to open');
    expect(items, 'opens on the stored task, not on the appended completion').toEqual(['task:TASK_STATE_WORKING']);
    committer.release();
    await reading;
    expect(items).toEqual(['task:TASK_STATE_WORKING', 'artifact:done', 'status:TASK_STATE_COMPLETED']);
  });

  it('GetTask answers the stored COMPLETED once the completion commit landed, before this replica read its acknowledgement', async () => {
    const { e, committer, taskId } = await startHeld((store) => new AckHoldingCommitter(store));
    const live = e.service['dir'].live.get(taskId);
    expect(live?.durable?.status.state, 'this replica has not read the acknowledgement').toBe('TASK_STATE_WORKING');
    expect((await e.store.getTask('slow', taskId))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    const read = await e.service.getTask(e.ctx('slow'), { id: taskId });
    expect(read.status.state, 'GetTask answers what the store holds').toBe('TASK_STATE_COMPLETED');
    expect(read.artifacts?.flatMap((x) => x.parts.map((p) => p.text))).toEqual(['done']);
    committer.release();
  });
});
