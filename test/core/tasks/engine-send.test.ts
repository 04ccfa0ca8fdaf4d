/** The task engine in process (no HTTP): SendMessage blocking and streaming, continuation, failures. */
import { afterEach, describe as suite, expect, it } from 'vitest';
import { SERVER_FAILURE_MESSAGES } from '../../../src/core/tasks/task-service.js';
import { echoAgent } from '../../../src/agents/echo/index.js';
import { agent, collect, describe, startEngine, textOf, userMessage, type Engine } from './engine-harness.js';
import Database from 'better-sqlite3';
import { resultJson } from '../../../src/protocol/a2a/written-json.js';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

suite('TaskService.sendMessage (in process)', () => {
  it("blocks until the task is COMPLETED and answers with the agent's reply", async () => {
    engine = await startEngine({ echo: echoAgent });
    const r = await engine.service.sendMessage(engine.ctx('echo'), { message: userMessage('hello engine') });
    expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.artifacts?.map((a) => textOf(a))).toEqual(['hello engine']);
    // The answer is what the store holds.
    const stored = await engine.store.getTask('echo', r.task.id);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored?.owner).toBe('alice');
  });

  it("answers a blocking send with the task row's own text: the committed copy the store wrote, not a second serialisation", async () => {
    engine = await startEngine({ echo: echoAgent });
    const r = await engine.service.sendMessage(engine.ctx('echo'), { message: userMessage('hello row') });
    if (!('task' in r)) throw new Error('expected a task');
    const db = new Database(engine.file, { readonly: true });
    try {
      const row = db.prepare('select task from tasks where id = ?').get(r.task.id) as { task: string };
      expect(resultJson(r)).toBe(`{"task":${row.task}}`);
      // The text is the row's because the answer is the very copy the store wrote: change the copy
      // (which nothing may do) and the answer still reads as written.
      r.task.status = { state: 'TASK_STATE_FAILED' };
      expect(resultJson(r)).toBe(`{"task":${row.task}}`);
    } finally {
      db.close();
    }
  });

  it("answers with the agent's direct message when no task is created", async () => {
    engine = await startEngine({ direct: agent((ctx) => ctx.reply(`you said ${ctx.text()}`)) });
    const r = await engine.service.sendMessage(engine.ctx('direct'), { message: userMessage('hi') });
    if (!('message' in r)) throw new Error('expected a message');
    expect(r.message.role).toBe('ROLE_AGENT');
    expect(textOf(r.message)).toBe('you said hi');
  });

  it('streams SUBMITTED task, WORKING, artifact, COMPLETED in that order, with rising seqs', async () => {
    engine = await startEngine({
      steps: agent(async (ctx) => {
        ctx.working('thinking');
        await ctx.sleep(5);
        ctx.artifact('one');
        await ctx.sleep(5);
        ctx.complete('done');
      }),
    });
    const items = await collect(engine.service.sendStreamingMessage(engine.ctx('steps'), { message: userMessage('go') }));
    expect(items.map((i) => describe(i.response))).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:one', 'status:TASK_STATE_COMPLETED']);
    const seqs = items.map((i) => i.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('INPUT_REQUIRED ends the blocking wait; the follow-up on the same task reaches the same executor', async () => {
    engine = await startEngine({
      ask: agent(async (ctx) => {
        ctx.askInput('what is your name?');
        const next = await ctx.nextMessage();
        ctx.complete(`hello ${next.parts.map((p) => p.text).join('')}`);
      }),
    });
    const first = await engine.service.sendMessage(engine.ctx('ask'), { message: userMessage('start') });
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(first.task.status.message)).toBe('what is your name?');

    const second = await engine.service.sendMessage(engine.ctx('ask'), { message: userMessage('Ada', { taskId: first.task.id, contextId: first.task.contextId }) });
    if (!('task' in second)) throw new Error('expected a task');
    expect(second.task.id).toBe(first.task.id);
    expect(second.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(second.task.status.message)).toBe('hello Ada');
    expect(second.task.history?.filter((m) => m.role === 'ROLE_USER').map((m) => textOf(m))).toEqual(['start', 'Ada']);
  });

  it('a follow-up from another principal does not find the task', async () => {
    engine = await startEngine({ ask: agent((ctx) => ctx.askInput('more?')) });
    const first = await engine.service.sendMessage(engine.ctx('ask'), { message: userMessage('start') });
    if (!('task' in first)) throw new Error('expected a task');
    await expect(engine.service.sendMessage(engine.ctx('ask', 'mallory'), { message: userMessage('x', { taskId: first.task.id }) })).rejects.toMatchObject({
      kind: 'TaskNotFound',
    });
  });

  it('an agent that fails ends the task FAILED with its own message', async () => {
    engine = await startEngine({ failing: agent((ctx) => ctx.fail('the widget is broken')) });
    const r = await engine.service.sendMessage(engine.ctx('failing'), { message: userMessage('try') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(r.task.status.message)).toBe('the widget is broken');
  });

  it('an executor that throws after starting ends the task FAILED with the safe message (no internals)', async () => {
    engine = await startEngine({
      throwing: agent((ctx) => {
        ctx.working();
        throw new Error('secret stack detail');
      }),
    });
    const r = await engine.service.sendMessage(engine.ctx('throwing'), { message: userMessage('try') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    const text = textOf(r.task.status.message);
    expect(text).not.toContain('secret');
    expect(SERVER_FAILURE_MESSAGES.has(text)).toBe(true);
  });

  it('an executor that returns without finishing ends the task FAILED (it does not stay WORKING)', async () => {
    engine = await startEngine({ quitter: agent((ctx) => ctx.working()) });
    const r = await engine.service.sendMessage(engine.ctx('quitter'), { message: userMessage('try') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(r.task.status.message)).toBe('The agent stopped without finishing this task.');
  });

  it('an executor that throws before creating a task is an Internal error, not a task', async () => {
    engine = await startEngine({
      early: agent(() => {
        throw new Error('boom');
      }),
    });
    await expect(engine.service.sendMessage(engine.ctx('early'), { message: userMessage('try') })).rejects.toMatchObject({ kind: 'Internal' });
    expect((await engine.service.listTasks(engine.ctx('early'), {})).tasks).toEqual([]);
  });
});
