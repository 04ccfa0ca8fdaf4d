/**
 * SendMessage idempotency across two replicas, in one process: two task engines (each its own
 * TaskService, directory and "starting" map) over ONE SQLite file and one bus, as two replicas of a
 * deployment share a database and a bus. Deterministic: each replica's agent is held by its own
 * gate, so the order of the two first commits is chosen by the test.
 */
import { afterEach, describe as suite, expect, it } from 'vitest';
import type { SendMessageResponse, Task } from '../../../src/protocol/a2a/types.js';
import { agent, collect, startEngine, until, userMessage, type Engine } from './engine-harness.js';

let engines: Engine[] = [];
afterEach(async () => {
  // the second replica first: the first owns the database file and the bus
  for (const e of engines.reverse()) await e.dispose();
  engines = [];
});

const taskOf = (r: SendMessageResponse): Task => {
  if (!('task' in r)) throw new Error('expected a task');
  return r.task;
};

/** An agent held until `open()`, then working (optionally) and completing; counts its runs. */
function held(opts: { workingFirst?: boolean } = {}) {
  const state = { runs: 0, open: () => {} };
  const opened = new Promise<void>((resolve) => (state.open = resolve));
  const def = agent(async (ctx) => {
    state.runs++;
    if (opts.workingFirst) ctx.working('busy');
    await opened;
    ctx.complete('done');
  });
  return { state, def };
}

async function replicas(a: ReturnType<typeof agent>, b: ReturnType<typeof agent>, limitsB = {}): Promise<[Engine, Engine]> {
  const first = await startEngine({ held: a }, {}, { sharedFile: true });
  engines.push(first);
  const second = await startEngine({ held: b }, limitsB, { replicaOf: first });
  engines.push(second);
  return [first, second];
}

suite('SendMessage idempotency across two replicas (in process)', () => {
  it('the same messageId sent to both at once: one task; the replica whose first commit is refused answers with the stored task', async () => {
    const ga = held();
    // B's run, once let go, reports working and then waits: its first event is the one refused
    const gb = { runs: 0, open: () => {} };
    const bOpened = new Promise<void>((resolve) => (gb.open = resolve));
    const never = new Promise<void>(() => {});
    const bDef = agent(async (ctx) => {
      gb.runs++;
      await bOpened;
      ctx.working('late');
      await never;
    });
    const [a, b] = await replicas(ga.def, bDef);
    const message = userMessage('raced');
    // both start before either has stored anything: neither store lookup nor "starting" entry can see the other
    const fromA = a.service.sendMessage(a.ctx('held'), { message });
    const fromB = b.service.sendMessage(b.ctx('held'), { message });
    await until(() => ga.state.runs === 1 && gb.runs === 1, 'both runs');
    expect(await a.store.findTaskByMessageId('held', 'alice', message.messageId)).toBeUndefined();
    ga.state.open();
    const answerA = taskOf(await fromA);
    expect(answerA.status.state).toBe('TASK_STATE_COMPLETED');
    gb.open();
    const answerB = taskOf(await fromB);
    expect(answerB).toEqual(answerA);
    const listed = await b.service.listTasks(b.ctx('held'), {});
    expect(listed.tasks.map((t) => t.id)).toEqual([answerA.id]);
    // a retry on either replica now gets that task too, and runs nothing
    expect(taskOf(await b.service.sendMessage(b.ctx('held'), { message }))).toEqual(answerA);
    expect(taskOf(await a.service.sendMessage(a.ctx('held'), { message }))).toEqual(answerA);
    expect([ga.state.runs, gb.runs]).toEqual([1, 1]);
  });

  it('the same messageId raced, the agent of the refused replica completing at once: its blocking caller gets the stored task, not its own unstored one', async () => {
    const ga = held();
    // B's run, once let go, completes with its first event: that one commit is the one refused
    const gb = held();
    const [a, b] = await replicas(ga.def, gb.def);
    const message = userMessage('raced, terminal first');
    const fromA = a.service.sendMessage(a.ctx('held'), { message });
    const fromB = b.service.sendMessage(b.ctx('held'), { message });
    await until(() => ga.state.runs === 1 && gb.state.runs === 1, 'both runs');
    ga.state.open();
    const answerA = taskOf(await fromA);
    expect(answerA.status.state).toBe('TASK_STATE_COMPLETED');
    gb.state.open();
    expect(taskOf(await fromB)).toEqual(answerA);
    expect((await b.service.listTasks(b.ctx('held'), {})).tasks.map((t) => t.id)).toEqual([answerA.id]);
  });

  it('the same race answered on a stream: the stream of the refused replica carries the stored task', async () => {
    const ga = held();
    const gb = held();
    const [a, b] = await replicas(ga.def, gb.def);
    const message = userMessage('raced on a stream');
    const fromA = a.service.sendMessage(a.ctx('held'), { message });
    const streamB = collect(b.service.sendStreamingMessage(b.ctx('held'), { message }));
    await until(() => ga.state.runs === 1 && gb.state.runs === 1, 'both runs');
    ga.state.open();
    const answerA = taskOf(await fromA);
    gb.state.open();
    expect((await streamB).map((item) => item.response)).toEqual([{ task: answerA }]);
  });

  it('a blocking retry on the other replica, while the task works on the first, is answered at its end (from the store)', async () => {
    const ga = held({ workingFirst: true });
    const gb = held();
    // a long blocking limit: the answer must come from the task's end, not from the time limit
    const [a, b] = await replicas(ga.def, gb.def, { blockingSendTimeoutMs: 60_000 });
    const message = userMessage('works on a');
    const first = a.service.sendMessage(a.ctx('held'), { message });
    await until(async () => (await b.store.findTaskByMessageId('held', 'alice', message.messageId))?.task.status.state === 'TASK_STATE_WORKING', 'the task stored as WORKING');
    const retry = b.service.sendMessage(b.ctx('held'), { message });
    await new Promise((r) => setTimeout(r, 20));
    ga.state.open();
    const done = taskOf(await first);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(taskOf(await retry)).toEqual(done);
    expect([ga.state.runs, gb.state.runs]).toEqual([1, 0]);
  });
  it('a retry on a replica whose working copy of the task is behind the store (the other replica moved it) answers the stored task', async () => {
    const ask = agent(async (ctx) => {
      ctx.askInput('name?');
      const next = await ctx.nextMessage();
      ctx.complete(`hello ${next.parts.map((p) => p.text).join('')}`);
    });
    const [a, b] = await replicas(ask, ask);
    const message = userMessage('start');
    const asked = taskOf(await a.service.sendMessage(a.ctx('held'), { message }));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // B loads its own working copy of the task (a follow-up it refuses: the wrong contextId) ...
    const wrongContext = userMessage('ada', { taskId: asked.id, contextId: 'not-its-context' });
    await expect(b.service.sendMessage(b.ctx('held'), { message: wrongContext })).rejects.toMatchObject({ kind: 'InvalidParams' });
    // ... then A takes the task on to its end
    const done = taskOf(await a.service.sendMessage(a.ctx('held'), { message: userMessage('ada', { taskId: asked.id, contextId: asked.contextId }) }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(taskOf(await b.service.sendMessage(b.ctx('held'), { message }))).toEqual(done);
  });
});
