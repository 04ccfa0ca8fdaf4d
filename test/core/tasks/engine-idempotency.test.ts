/**
 * SendMessage idempotency in process (issue 19 C1, issue 25 C1a): the task engine over a real
 * SQLite store, no HTTP. A retried task-creating message — same agent, owner and messageId — gets
 * the task the first one created and runs nothing again: after the first run finished (the store
 * finds it by messageId), while it runs, and before it produced anything (the "starting" entry).
 * What is not keyed: another owner, another agent, a follow-up naming its task, dedup turned off.
 * test/core/tasks/idempotency.test.ts has the same behaviour over HTTP.
 */
import { afterEach, describe as suite, expect, it } from 'vitest';
import type { SendMessageResponse, Task } from '../../../src/protocol/a2a/types.js';
import { agent, collect, describe, startEngine, until, userMessage, type Engine } from './engine-harness.js';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

/** Measured on the async SendMessage (main 4834503) with the test below. */
const TURNS = 2;

const taskOf = (r: SendMessageResponse): Task => {
  if (!('task' in r)) throw new Error('expected a task');
  return r.task;
};

/**
 * Counts the calls of each of the store's methods from now on (the real store still answers):
 * what a request costs in store reads.
 */
function countCalls(store: object): Map<string, number> {
  const counts = new Map<string, number>();
  const methods = store as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
    const f = methods[name];
    if (name === 'constructor' || typeof f !== 'function') continue;
    // One read by messageId whether the store is asked for its promise or for the answer at hand.
    const counted = name === 'findTaskByMessageIdAtHand' ? 'findTaskByMessageId' : name;
    methods[name] = (...args: unknown[]) => {
      counts.set(counted, (counts.get(counted) ?? 0) + 1);
      return (f as (...a: unknown[]) => unknown).apply(store, args);
    };
  }
  return counts;
}

/** An agent that counts its runs and completes at once with the text it was sent. */
function counting(runs: { n: number }) {
  return agent((ctx) => {
    runs.n++;
    ctx.complete(`done ${ctx.text()}`);
  });
}

/** An agent that counts its runs and produces nothing until `open()` is called, then completes. */
function gated() {
  const state = { runs: 0, open: () => {} };
  const opened = new Promise<void>((resolve) => (state.open = resolve));
  const def = agent(async (ctx) => {
    state.runs++;
    await opened;
    ctx.complete('opened');
  });
  return { state, def };
}

suite('SendMessage idempotency (in process)', () => {
  it('a retry after the first run finished answers the same task, finished, and runs nothing again', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const message = userMessage('once');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    const again = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    const immediate = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message, configuration: { returnImmediately: true } }));
    expect(first.status.state).toBe('TASK_STATE_COMPLETED');
    expect(again).toEqual(first);
    expect(immediate).toEqual(first);
    expect(runs.n).toBe(1);
    const listed = await engine.service.listTasks(engine.ctx('count'), { contextId: first.contextId });
    expect(listed.tasks.map((t) => t.id)).toEqual([first.id]);
  });

  it("with the store's message-id filter built (ADR 0063), retries of tasks made before and after it still find their task", async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const before = userMessage('before the filter');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message: before }));
    const store = engine.store;
    await until(() => store.messageIdFilterStatus().build === 'complete', 'the filter built');
    const after = userMessage('after the filter');
    const second = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message: after }));
    expect(taskOf(await engine.service.sendMessage(engine.ctx('count'), { message: before }))).toEqual(first);
    expect(taskOf(await engine.service.sendMessage(engine.ctx('count'), { message: after }))).toEqual(second);
    // the same messageId from another owner is another key: it runs
    expect(taskOf(await engine.service.sendMessage(engine.ctx('count', 'bob'), { message: after })).id).not.toBe(second.id);
    expect(runs.n).toBe(3);
  });

  it('a streaming retry of a finished task streams the task as it stands, once, and closes', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const message = userMessage('stream once');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    const items = await collect(engine.service.sendStreamingMessage(engine.ctx('count'), { message }));
    expect(items.map((i) => i.response)).toEqual([{ task: first }]);
    expect(runs.n).toBe(1);
  });

  it('the key is agent, owner and messageId: another owner or another agent runs its own task', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs), other: counting(runs) });
    const message = userMessage('shared id');
    const alice = taskOf(await engine.service.sendMessage(engine.ctx('count', 'alice'), { message }));
    const bob = taskOf(await engine.service.sendMessage(engine.ctx('count', 'bob'), { message }));
    const other = taskOf(await engine.service.sendMessage(engine.ctx('other', 'alice'), { message }));
    expect(new Set([alice.id, bob.id, other.id]).size).toBe(3);
    expect(runs.n).toBe(3);
    expect((await engine.store.findTaskByMessageId('count', 'bob', message.messageId))?.task.id).toBe(bob.id);
  });

  it('with deduplicateMessageIds off, the same messageId runs again as a new task', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) }, { deduplicateMessageIds: false });
    const message = userMessage('twice');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    const second = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    expect(second.id).not.toBe(first.id);
    expect(runs.n).toBe(2);
    // nor is a message known as starting: two held runs of one messageId are two tasks
    const g = gated();
    engine.registry.add({ ...engine.registry.get('count')!, id: 'held', definition: g.def });
    const held = userMessage('held twice');
    const a = engine.service.sendMessage(engine.ctx('held'), { message: held });
    await until(() => g.state.runs === 1, 'the first held run');
    const b = engine.service.sendMessage(engine.ctx('held'), { message: held });
    await until(() => g.state.runs === 2, 'the second held run');
    g.state.open();
    expect(taskOf(await a).id).not.toBe(taskOf(await b).id);
  });

  it('a follow-up naming its task is delivered to it, even with the messageId that created the task', async () => {
    let turns = 0;
    engine = await startEngine({
      ask: agent(async (ctx) => {
        turns++;
        ctx.askInput('name?');
        const next = await ctx.nextMessage();
        turns++;
        ctx.complete(`hello ${next.parts.map((p) => p.text).join('')}`);
      }),
    });
    const message = userMessage('start');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('ask'), { message }));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const reply = taskOf(await engine.service.sendMessage(engine.ctx('ask'), { message: { ...message, parts: [{ text: 'ada' }], taskId: first.id, contextId: first.contextId } }));
    expect(reply.id).toBe(first.id);
    expect(reply.status.state).toBe('TASK_STATE_COMPLETED');
    expect(turns).toBe(2);
  });

  it('a retry while the first run works answers its task: at once with returnImmediately, when it completes otherwise', async () => {
    const g = { runs: 0, open: () => {} };
    const opened = new Promise<void>((resolve) => (g.open = resolve));
    engine = await startEngine({
      work: agent(async (ctx) => {
        g.runs++;
        ctx.working('busy');
        await opened;
        ctx.complete('finished');
      }),
    });
    const message = userMessage('slow');
    const first = engine.service.sendMessage(engine.ctx('work'), { message });
    await until(async () => (await engine!.store.findTaskByMessageId('work', 'alice', message.messageId))?.task.status.state === 'TASK_STATE_WORKING', 'the first task stored as WORKING');
    const immediate = taskOf(await engine.service.sendMessage(engine.ctx('work'), { message, configuration: { returnImmediately: true } }));
    expect(immediate.status.state).toBe('TASK_STATE_WORKING');
    const blocking = engine.service.sendMessage(engine.ctx('work'), { message });
    const streamed = collect(engine.service.sendStreamingMessage(engine.ctx('work'), { message }));
    await new Promise((r) => setTimeout(r, 20));
    g.open();
    const done = taskOf(await first);
    expect(immediate.id).toBe(done.id);
    expect(taskOf(await blocking)).toMatchObject({ id: done.id, status: { state: 'TASK_STATE_COMPLETED' } });
    const items = await streamed;
    expect(items.map((i) => describe(i.response)).at(-1)).toBe('status:TASK_STATE_COMPLETED');
    expect(g.runs).toBe(1);
  });

  it('a retry before the first run produced anything waits on that run instead of starting its own', async () => {
    const g = gated();
    engine = await startEngine({ held: g.def });
    const message = userMessage('quiet');
    const first = engine.service.sendMessage(engine.ctx('held'), { message });
    await until(() => g.state.runs === 1, 'the first run');
    expect(await engine.store.findTaskByMessageId('held', 'alice', message.messageId)).toBeUndefined();
    const retry = engine.service.sendMessage(engine.ctx('held'), { message });
    // another owner's message with the same id is not the same one: it starts its own run
    const bobs = engine.service.sendMessage(engine.ctx('held', 'bob'), { message });
    await until(() => g.state.runs === 2, "bob's run");
    await new Promise((r) => setTimeout(r, 20));
    expect(g.state.runs).toBe(2);
    g.state.open();
    const a = taskOf(await first);
    expect(taskOf(await retry)).toMatchObject({ id: a.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(taskOf(await bobs).id).not.toBe(a.id);
    // once the run has committed, the store answers: still the same task, still one run of alice's
    expect(taskOf(await engine.service.sendMessage(engine.ctx('held'), { message })).id).toBe(a.id);
    expect(g.state.runs).toBe(2);
  });

  it('an answer without a task reaches the caller, and keys nothing: the same messageId runs again', async () => {
    let runs = 0;
    engine = await startEngine({ direct: agent((ctx) => (runs++, ctx.reply(`reply ${runs}`))) });
    const message = userMessage('no task');
    const first = await engine.service.sendMessage(engine.ctx('direct'), { message });
    const again = await engine.service.sendMessage(engine.ctx('direct'), { message });
    expect('message' in first && first.message.parts).toEqual([{ text: 'reply 1' }]);
    expect('message' in again && again.message.parts).toEqual([{ text: 'reply 2' }]);
    expect(runs).toBe(2);
  });

  it('a run that fails before producing anything stores nothing and is no longer starting: a retry runs again', async () => {
    let runs = 0;
    engine = await startEngine({
      broken: agent(async () => {
        runs++;
        throw new Error('agent broke');
      }),
    });
    const message = userMessage('fails');
    await expect(engine.service.sendMessage(engine.ctx('broken'), { message })).rejects.toThrow('The agent failed');
    expect(await engine.store.findTaskByMessageId('broken', 'alice', message.messageId)).toBeUndefined();
    await expect(engine.service.sendMessage(engine.ctx('broken'), { message })).rejects.toThrow('The agent failed');
    expect(runs).toBe(2);
  });

  it('a first streaming send runs and keys its task; its streaming retry gets the task as it stands', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const message = userMessage('streamed');
    const items = await collect(engine.service.sendStreamingMessage(engine.ctx('count'), { message }));
    expect(items.map((i) => describe(i.response)).at(-1)).toBe('status:TASK_STATE_COMPLETED');
    const stored = await engine.store.findTaskByMessageId('count', 'alice', message.messageId);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await collect(engine.service.sendStreamingMessage(engine.ctx('count'), { message }));
    expect(again.map((i) => i.response)).toEqual([{ task: stored!.task }]);
    expect(runs.n).toBe(1);
  });

  it('a first send with returnImmediately is answered once its task is stored; a blocking retry waits for the end', async () => {
    const g = gated();
    engine = await startEngine({ held: g.def });
    const message = userMessage('immediate first');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('held'), { message, configuration: { returnImmediately: true } }));
    expect(first.status.state).toBe('TASK_STATE_SUBMITTED');
    expect((await engine.store.findTaskByMessageId('held', 'alice', message.messageId))?.task.id).toBe(first.id);
    const retry = engine.service.sendMessage(engine.ctx('held'), { message });
    await until(() => g.state.runs === 1, 'the run');
    g.state.open();
    expect(taskOf(await retry)).toMatchObject({ id: first.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(g.state.runs).toBe(1);
  });

  it('a retry whose client went away while it was queued starts nothing', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const gone = engine.ctx('count');
    gone.clientGone = () => true;
    await expect(engine.service.sendMessage(gone, { message: userMessage('gone') })).rejects.toMatchObject({ kind: 'Unavailable', message: 'The client closed the connection before the request started' });
    expect(runs.n).toBe(0);
    const stillHere = engine.ctx('count');
    stillHere.clientGone = async () => false;
    expect(taskOf(await engine.service.sendMessage(stillHere, { message: userMessage('here') })).status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs.n).toBe(1);
  });
  it("a starting run that ends leaves only its own entry: a later run's entry under the same key still answers a retry", async () => {
    // run 1 (blocking) fails before producing anything; run 2 (a streaming send, which does not
    // wait on a starting message) took the key meanwhile; a blocking retry must wait on run 2.
    const gates = [0, 1].map(() => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    });
    let runs = 0;
    engine = await startEngine({
      twice: agent(async (ctx) => {
        const n = ++runs;
        if (n > 2) return ctx.complete(`run ${n}`);
        await gates[n - 1]!.opened;
        if (n === 1) throw new Error('run 1 broke');
        ctx.complete('run 2');
      }),
    });
    const message = userMessage('two starts');
    const first = engine.service.sendMessage(engine.ctx('twice'), { message });
    await until(() => runs === 1, 'run 1');
    const streamed = collect(engine.service.sendStreamingMessage(engine.ctx('twice'), { message }));
    await until(() => runs === 2, 'run 2');
    gates[0]!.open();
    await expect(first).rejects.toThrow('The agent failed');
    const retry = engine.service.sendMessage(engine.ctx('twice'), { message });
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(2);
    gates[1]!.open();
    const items = await streamed;
    const last = items.at(-1)!.response;
    expect(describe(last)).toBe('status:TASK_STATE_COMPLETED');
    const run2Task = 'statusUpdate' in last ? last.statusUpdate.taskId : '';
    expect(taskOf(await retry)).toMatchObject({ id: run2Task, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(runs).toBe(2);
  });
  it('a retry of a settled task, or with returnImmediately, costs one store read: the lookup by messageId', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const message = userMessage('read once');
    const first = taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }));
    const calls = countCalls(engine.store);
    expect(taskOf(await engine.service.sendMessage(engine.ctx('count'), { message }))).toEqual(first);
    expect(Object.fromEntries(calls)).toEqual({ findTaskByMessageId: 1 });
    calls.clear();
    expect(taskOf(await engine.service.sendMessage(engine.ctx('count'), { message, configuration: { returnImmediately: true } }))).toEqual(first);
    expect(Object.fromEntries(calls)).toEqual({ findTaskByMessageId: 1 });
    expect(runs.n).toBe(1);
  });

  it('answers a settled retry in the microtask turns SendMessage always took, whatever the client check answers with', async () => {
    // The engine's event order rests on these turns (issue 26, frame31: SendMessage's blocking path
    // became a reaction instead of an async function); measured on the async one and pinned here.
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const message = userMessage('turns');
    await engine.service.sendMessage(engine.ctx('count'), { message });
    const checks: Array<(() => boolean | Promise<boolean>) | undefined> = [undefined, () => false, async () => false, () => new Promise<boolean>((r) => queueMicrotask(() => r(false)))];
    const seen: number[] = [];
    for (const check of checks) {
      const ctx = engine.ctx('count');
      ctx.clientGone = check;
      let turns = 0;
      let settledAt = -1;
      const tick = () => {
        turns++;
        if (turns < 12) queueMicrotask(tick);
      };
      queueMicrotask(tick);
      const answer = engine.service.sendMessage(ctx, { message }).then(() => (settledAt = turns));
      await answer;
      seen.push(settledAt);
    }
    expect(seen).toEqual([TURNS, TURNS, TURNS, TURNS + 1]);
    expect(runs.n).toBe(1);
  });

  it('a returnImmediately retry while the first run works costs one store read too, and answers the working task', async () => {
    const g = { open: () => {} };
    const opened = new Promise<void>((resolve) => (g.open = resolve));
    engine = await startEngine({
      work: agent(async (ctx) => {
        ctx.working('busy');
        await opened;
        ctx.complete('finished');
      }),
    });
    const message = userMessage('working retry');
    const first = engine.service.sendMessage(engine.ctx('work'), { message });
    await until(async () => (await engine!.store.findTaskByMessageId('work', 'alice', message.messageId))?.task.status.state === 'TASK_STATE_WORKING', 'the first task stored as WORKING');
    const calls = countCalls(engine.store);
    const immediate = taskOf(await engine.service.sendMessage(engine.ctx('work'), { message, configuration: { returnImmediately: true } }));
    expect(Object.fromEntries(calls)).toEqual({ findTaskByMessageId: 1 });
    expect(immediate.status.state).toBe('TASK_STATE_WORKING');
    g.open();
    expect(immediate.id).toBe(taskOf(await first).id);
  });

  it('a message whose messageId the face minted (an MCP tool call) is not looked up by messageId, streaming or blocking', async () => {
    const runs = { n: 0 };
    engine = await startEngine({ count: counting(runs) });
    const calls = countCalls(engine.store);
    const minted = () => {
      const c = engine!.ctx('count');
      c.messageIdMinted = true;
      return c;
    };
    const items = await collect(engine.service.sendStreamingMessage(minted(), { message: userMessage('streamed') }));
    expect(items.at(-1)?.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
    const blocking = taskOf(await engine.service.sendMessage(minted(), { message: userMessage('blocking') }));
    expect(blocking.status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs.n).toBe(2);
    expect(calls.get('findTaskByMessageId') ?? 0).toBe(0);
    // The same sends without the flag each ask the store once (the idempotency lookup).
    await collect(engine.service.sendStreamingMessage(engine.ctx('count'), { message: userMessage('streamed') }));
    await engine.service.sendMessage(engine.ctx('count'), { message: userMessage('blocking') });
    expect(calls.get('findTaskByMessageId')).toBe(2);
  });
});
