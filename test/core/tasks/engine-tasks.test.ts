/** The task engine in process (no HTTP): cancel, owner-scoped reads, subscribe with resume, shutdown. */
import { afterEach, describe as suite, expect, it } from 'vitest';
import type { StreamItem } from '../../../src/core/a2a-handler.js';
import type { Task } from '../../../src/protocol/a2a/types.js';
import { agent, collect, describe, startEngine, textOf, until, userMessage, type Engine } from './engine-harness.js';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

/** An agent that works until canceled, reporting whether its signal aborted. */
function holdingAgent(seen: { aborted: boolean }) {
  return agent(async (ctx) => {
    ctx.working('holding');
    ctx.signal.addEventListener('abort', () => (seen.aborted = true));
    await ctx.sleep(60_000);
    ctx.complete();
  });
}

async function startHeld(e: Engine, agentId: string, subject = 'alice'): Promise<Task> {
  const r = await e.service.sendMessage(e.ctx(agentId, subject), { message: userMessage('hold'), configuration: { returnImmediately: true } });
  if (!('task' in r)) throw new Error('expected a task');
  await until(async () => (await e.service.getTask(e.ctx(agentId, subject), { id: r.task.id })).status.state === 'TASK_STATE_WORKING', 'the task to be WORKING');
  return r.task;
}

suite('TaskService.cancelTask (in process)', () => {
  it('cancels a running task: CANCELED in the answer and the store, the executor aborted', async () => {
    const seen = { aborted: false };
    engine = await startEngine({ hold: holdingAgent(seen) });
    const t = await startHeld(engine, 'hold');
    const canceled = await engine.service.cancelTask(engine.ctx('hold'), { id: t.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(seen.aborted).toBe(true);
    expect((await engine.store.getTask('hold', t.id))?.task.status.state).toBe('TASK_STATE_CANCELED');
    // Idempotent: a second cancel answers the same.
    expect((await engine.service.cancelTask(engine.ctx('hold'), { id: t.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('refuses to cancel a COMPLETED task with TaskNotCancelable', async () => {
    engine = await startEngine({ done: agent((ctx) => ctx.complete('ok')) });
    const r = await engine.service.sendMessage(engine.ctx('done'), { message: userMessage('x') });
    if (!('task' in r)) throw new Error('expected a task');
    await expect(engine.service.cancelTask(engine.ctx('done'), { id: r.task.id })).rejects.toMatchObject({ kind: 'TaskNotCancelable' });
  });

  it('another principal cannot cancel the task (it does not exist for them)', async () => {
    const seen = { aborted: false };
    engine = await startEngine({ hold: holdingAgent(seen) });
    const t = await startHeld(engine, 'hold');
    await expect(engine.service.cancelTask(engine.ctx('hold', 'mallory'), { id: t.id })).rejects.toMatchObject({ kind: 'TaskNotFound' });
    expect(seen.aborted).toBe(false);
  });
});

suite('TaskService.getTask / listTasks (in process)', () => {
  it('scopes reads to the owner: another principal neither gets nor lists the task', async () => {
    engine = await startEngine({ done: agent((ctx) => ctx.complete('ok')) });
    const mine = await engine.service.sendMessage(engine.ctx('done', 'alice'), { message: userMessage('a') });
    const theirs = await engine.service.sendMessage(engine.ctx('done', 'bob'), { message: userMessage('b') });
    if (!('task' in mine) || !('task' in theirs)) throw new Error('expected tasks');

    expect((await engine.service.getTask(engine.ctx('done', 'alice'), { id: mine.task.id })).id).toBe(mine.task.id);
    await expect(engine.service.getTask(engine.ctx('done', 'bob'), { id: mine.task.id })).rejects.toMatchObject({ kind: 'TaskNotFound' });

    const aliceList = await engine.service.listTasks(engine.ctx('done', 'alice'), {});
    expect(aliceList.tasks.map((t) => t.id)).toEqual([mine.task.id]);
    expect(aliceList.totalSize).toBe(1);
    const bobList = await engine.service.listTasks(engine.ctx('done', 'bob'), {});
    expect(bobList.tasks.map((t) => t.id)).toEqual([theirs.task.id]);
  });

  it('scopes reads to the agent: the same owner does not see the task under another agent', async () => {
    engine = await startEngine({ one: agent((ctx) => ctx.complete('ok')), two: agent((ctx) => ctx.complete('ok')) });
    const r = await engine.service.sendMessage(engine.ctx('one'), { message: userMessage('a') });
    if (!('task' in r)) throw new Error('expected a task');
    await expect(engine.service.getTask(engine.ctx('two'), { id: r.task.id })).rejects.toMatchObject({ kind: 'TaskNotFound' });
    expect((await engine.service.listTasks(engine.ctx('two'), {})).tasks).toEqual([]);
  });

  it('refuses a page size out of range with InvalidParams', async () => {
    engine = await startEngine({ done: agent((ctx) => ctx.complete('ok')) });
    await expect(engine.service.listTasks(engine.ctx('done'), { pageSize: 0 })).rejects.toMatchObject({ kind: 'InvalidParams' });
  });
});

suite('TaskService.subscribeToTask (in process)', () => {
  it('with lastEventId replays only the events after it, then follows live events to the end', async () => {
    engine = await startEngine({
      steps: agent(async (ctx) => {
        ctx.working('one');
        ctx.artifact('a');
        ctx.artifact('b');
        await ctx.nextMessage();
        ctx.complete('finished');
      }),
    });
    const first = await engine.service.sendMessage(engine.ctx('steps'), { message: userMessage('go'), configuration: { returnImmediately: true } });
    if (!('task' in first)) throw new Error('expected a task');
    const taskId = first.task.id;
    // task (SUBMITTED), WORKING, artifact a, artifact b
    await until(async () => (await engine!.store.readEvents(taskId, 0, 100)).length === 4, 'four events in the log');

    const items: StreamItem[] = [];
    const iterator = engine.service.subscribeToTask(engine.ctx('steps'), { id: taskId }, 2)[Symbol.asyncIterator]();
    const reading = (async () => {
      for (let n = await iterator.next(); !n.done; n = await iterator.next()) items.push(n.value);
    })();
    await until(() => items.length >= 2, 'the replayed events');
    expect(items.map((i) => i.seq)).toEqual([3, 4]);
    expect(items.map((i) => describe(i.response))).toEqual(['artifact:a', 'artifact:b']);

    // The follow-up is logged (seq 5, not streamed) and the executor completes the task (seq 6).
    await engine.service.sendMessage(engine.ctx('steps'), { message: userMessage('more', { taskId }) });
    await Promise.race([reading, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end')), 5_000))]);
    expect(items.slice(2).map((i) => [i.seq, describe(i.response)])).toEqual([[6, 'status:TASK_STATE_COMPLETED']]);
  });

  it('without lastEventId opens with the task as it stands, then its live events', async () => {
    const seen = { aborted: false };
    engine = await startEngine({ hold: holdingAgent(seen) });
    const t = await startHeld(engine, 'hold');
    const stream = engine.service.subscribeToTask(engine.ctx('hold'), { id: t.id });
    const iterator = stream[Symbol.asyncIterator]();
    const opening = await iterator.next();
    expect(describe(opening.value.response)).toBe('task:TASK_STATE_WORKING');
    await engine.service.cancelTask(engine.ctx('hold'), { id: t.id });
    const next = await iterator.next();
    expect(describe(next.value.response)).toBe('status:TASK_STATE_CANCELED');
    expect((await iterator.next()).done).toBe(true);
  });

  it('refuses a lastEventId ahead of the log with InvalidParams', async () => {
    engine = await startEngine({ ask: agent((ctx) => ctx.askInput('?')) });
    const r = await engine.service.sendMessage(engine.ctx('ask'), { message: userMessage('go') });
    if (!('task' in r)) throw new Error('expected a task');
    await expect(collect(engine.service.subscribeToTask(engine.ctx('ask'), { id: r.task.id }, 99))).rejects.toMatchObject({ kind: 'InvalidParams' });
  });
});

suite('TaskService.close (in process)', () => {
  it('ends a running task FAILED with a reason, aborts its executor and ends its open stream', async () => {
    const seen = { aborted: false };
    engine = await startEngine({ hold: holdingAgent(seen) });
    const t = await startHeld(engine, 'hold');
    const iterator = engine.service.subscribeToTask(engine.ctx('hold'), { id: t.id })[Symbol.asyncIterator]();
    expect(describe((await iterator.next()).value.response)).toBe('task:TASK_STATE_WORKING');

    await engine.service.close();
    expect(seen.aborted).toBe(true);
    const stored = await engine.store.getTask('hold', t.id);
    expect(stored?.task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(stored?.task.status.message)).toBe('The server stopped while this task was running; send the request again.');
    const rest: string[] = [];
    for (let n = await iterator.next(); !n.done; n = await iterator.next()) rest.push(describe(n.value.response));
    expect(rest).toEqual(['status:TASK_STATE_FAILED']);
  });

  it('refuses new messages once closed with Unavailable', async () => {
    engine = await startEngine({ done: agent((ctx) => ctx.complete('ok')) });
    await engine.service.close();
    await expect(engine.service.sendMessage(engine.ctx('done'), { message: userMessage('late') })).rejects.toMatchObject({ kind: 'Unavailable' });
  });
});
