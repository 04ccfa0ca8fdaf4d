/**
 * SubscribeToTask with a Last-Event-ID: the seam between the replay from the log and the live
 * events. Each test puts a commit exactly in a window of that seam (a committer that holds a
 * commit, a store whose replay read lets one through) and checks that every event after the
 * client's last id is streamed once, in order: the flake seen once in
 * test/client/resilience.test.ts ("lost tick-2 after the resume").
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamItem } from '../../../src/core/a2a-handler.js';
import { agent, describe as describeItem, startEngine, until, userMessage, type Engine } from './engine-harness.js';
import { HoldingCommitter } from './holding-committer.js';

/** An agent that streams `tick-<n>` artifacts, each when the test opens the next step, then completes. */
function stepper(steps: number) {
  const waits: Array<() => void> = [];
  const opened: Promise<void>[] = [];
  for (let i = 0; i < steps; i++) opened.push(new Promise<void>((r) => waits.push(r)));
  const definition = agent(async (ctx) => {
    ctx.working();
    for (let i = 0; i < steps; i++) {
      await opened[i];
      ctx.artifact(`tick-${i}`);
    }
    ctx.complete();
  });
  return { definition, step: (i: number) => waits[i]!() };
}

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

async function lastSeq(e: Engine, taskId: string): Promise<number> {
  return (await e.store.readEvents(taskId, 0, 100)).at(-1)?.seq ?? 0;
}

/** Reads a stream to its end, or what it streamed within `ms` (a broken seam leaves it open). */
async function collectWithin(stream: AsyncIterable<StreamItem>, ms = 3_000): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  const it = stream[Symbol.asyncIterator]();
  const deadline = new Promise<'late'>((r) => setTimeout(() => r('late'), ms).unref());
  for (;;) {
    const next = await Promise.race([it.next(), deadline]);
    if (next === 'late') {
      void it.return?.();
      return out;
    }
    if (next.done) return out;
    out.push(next.value);
  }
}

function seqsAndKinds(items: StreamItem[]): string[] {
  return items.map((i) => `${i.seq ?? '-'} ${describeItem(i.response)}`);
}

describe('SubscribeToTask resume: the seam between the log and the live events', () => {
  it('an event appended but not yet committed when the resume starts is streamed as itself, not folded into an opening snapshot', async () => {
    let committer!: HoldingCommitter;
    const agentSteps = stepper(2);
    engine = await startEngine({ steps: agentSteps.definition }, {}, { committer: (store) => (committer = new HoldingCommitter(store)) });
    const ctx = engine.ctx('steps');
    const sent = await engine.service.sendMessage(ctx, { message: userMessage('go'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const id = sent.task.id;
    agentSteps.step(0);
    // seq 1 task, 2 WORKING, 3 tick-0: all durable; the client has seen up to 3.
    await until(async () => (await lastSeq(engine!, id)) === 3, 'tick-0 committed');

    // tick-1 (seq 4) is applied to the working copy; its commit waits.
    committer.held = true;
    agentSteps.step(1);
    await until(() => committer.waiting === 1, 'the commit of tick-1 held');

    const e = engine;
    const read = e.store.readEvents.bind(e.store);
    let replayRead = false;
    e.store.readEvents = async (taskId, afterSeq, limit) => {
      const batch = await read(taskId, afterSeq, limit);
      if (taskId === id) replayRead = true;
      return batch;
    };
    const resumed = collectWithin(e.service.subscribeToTask(ctx, { id }, 3));
    // The resume reads the log (tick-1 is not there yet); then the commit goes through.
    await until(() => replayRead, 'the replay read the log');
    committer.release();

    // The resume reads the task as the store holds it (seq 3, what the client has seen): nothing
    // was missed, so the stream opens on that snapshot, and tick-1 follows as itself once committed.
    const items = await resumed;
    expect(seqsAndKinds(items)).toEqual(['3 task:TASK_STATE_WORKING', '4 artifact:tick-1', '5 status:TASK_STATE_COMPLETED']);
    const opening = items[0]!.response;
    const openingTexts = 'task' in opening ? (opening.task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text)) : [];
    expect(openingTexts, 'the opening snapshot holds tick-0 only, not the uncommitted tick-1').toEqual(['tick-0']);
  });

  it('an event committed and published while the replay reads the log is streamed once, after the replayed ones', async () => {
    const agentSteps = stepper(3);
    engine = await startEngine({ steps: agentSteps.definition });
    const e = engine;
    const ctx = e.ctx('steps');
    const sent = await e.service.sendMessage(ctx, { message: userMessage('go'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const id = sent.task.id;
    agentSteps.step(0);
    agentSteps.step(1);
    // seq 1 task, 2 WORKING, 3 tick-0, 4 tick-1: the client has seen up to 3.
    await until(async () => (await lastSeq(e, id)) === 4, 'tick-1 committed');

    // The replay's read returns what the log holds; before the resume goes on, tick-2 (seq 5) is
    // committed and published, and then the task completes (seq 6).
    const read = e.store.readEvents.bind(e.store);
    let windows = 0;
    e.store.readEvents = async (taskId, afterSeq, limit) => {
      const batch = await read(taskId, afterSeq, limit);
      if (taskId === id && windows++ === 0) {
        agentSteps.step(2);
        await until(async () => (await lastSeq(e, id)) === 6, 'tick-2 and the completion committed');
      }
      return batch;
    };

    const resumed = await collectWithin(e.service.subscribeToTask(ctx, { id }, 3));
    expect(windows).toBeGreaterThan(0);
    expect(seqsAndKinds(resumed)).toEqual(['4 artifact:tick-1', '5 artifact:tick-2', '6 status:TASK_STATE_COMPLETED']);
  });
});
