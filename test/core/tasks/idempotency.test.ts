/**
 * SendMessage is idempotent per (agent, owner, messageId) (issue 19 C1): a client that retries a
 * request whose answer it lost — a dropped connection, a 503 after the task was stored — gets the
 * task the first request created, and the work does not run a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { resultOf, rpcStream, startProbeServer } from './helpers.js';

/** A user message in a context of its own, so ListTasks on the context counts this test's tasks only. */
const inNewContext = (text: string) => {
  const contextId = `ctx-${Math.random().toString(36).slice(2)}`;
  return { ...userMessage(text, { contextId }), contextId };
};

describe('SendMessage idempotency per messageId', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  const tasksInContext = async (contextId: string) => {
    const r = await rpc(probe, 'ListTasks', { contextId });
    return (r.body.result.tasks as { id: string }[]).map((t) => t.id);
  };

  it('a blocking retry with the same messageId returns the first task, finished, and creates no second one', async () => {
    const message = inNewContext('sleep 100');
    const first = await rpc(probe, 'SendMessage', { message });
    expect(first.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await rpc(probe, 'SendMessage', { message });
    expect(again.status).toBe(200);
    expect(again.body.result.task.id).toBe(first.body.result.task.id);
    expect(again.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await tasksInContext(message.contextId)).toEqual([first.body.result.task.id]);
  });

  it('a retry while the first request still runs waits for the same task (blocking) or returns it at once (returnImmediately)', async () => {
    const message = inNewContext('sleep 400');
    const first = rpc(probe, 'SendMessage', { message });
    await new Promise((r) => setTimeout(r, 150));
    const immediate = await rpc(probe, 'SendMessage', { message, configuration: { returnImmediately: true } });
    const blocking = await rpc(probe, 'SendMessage', { message });
    const done = await first;
    expect(immediate.body.result.task.id).toBe(done.body.result.task.id);
    expect(immediate.body.result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(blocking.body.result.task).toMatchObject({ id: done.body.result.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(await tasksInContext(message.contextId)).toEqual([done.body.result.task.id]);
  });

  it('with limits.deduplicateMessageIds off, a repeated messageId creates a second task', async () => {
    const plain = await startProbeServer({ limits: { deduplicateMessageIds: false } });
    try {
      const url = `${plain.http}/a2a/probe`;
      const message = inNewContext('sleep 10');
      const first = await rpc(url, 'SendMessage', { message });
      const again = await rpc(url, 'SendMessage', { message });
      expect(first.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(again.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(again.body.result.task.id).not.toBe(first.body.result.task.id);
      const listed = await rpc(url, 'ListTasks', { contextId: message.contextId });
      expect((listed.body.result.tasks as { id: string }[]).map((t) => t.id).sort()).toEqual([first.body.result.task.id, again.body.result.task.id].sort());
    } finally {
      await plain.stop();
    }
  });

  it('two concurrent requests with one messageId end in one task, both answered with it', async () => {
    const message = inNewContext('sleep 200');
    const [a, b] = await Promise.all([rpc(probe, 'SendMessage', { message }), rpc(probe, 'SendMessage', { message })]);
    expect(a.body.result.task.id).toBeTypeOf('string');
    expect(b.body.result.task.id).toBe(a.body.result.task.id);
    expect(await tasksInContext(message.contextId)).toEqual([a.body.result.task.id]);
  });

  it('a streaming retry of a finished task streams the task as it stands and closes', async () => {
    const message = inNewContext('hello again');
    const first = await rpc(probe, 'SendMessage', { message });
    const stream = await rpcStream(probe, 'SendStreamingMessage', { message });
    const events = await stream.untilEnd();
    expect(events.map((e) => resultOf(e))).toEqual([{ task: expect.objectContaining({ id: first.body.result.task.id, status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }) }) }]);
    expect(await tasksInContext(message.contextId)).toEqual([first.body.result.task.id]);
  });

  it('another messageId is another task', async () => {
    const contextId = `ctx-${Math.random().toString(36).slice(2)}`;
    const a = await rpc(probe, 'SendMessage', { message: userMessage('one', { contextId }) });
    const b = await rpc(probe, 'SendMessage', { message: userMessage('one', { contextId }) });
    expect(b.body.result.task.id).not.toBe(a.body.result.task.id);
    expect((await tasksInContext(contextId)).sort()).toEqual([a.body.result.task.id, b.body.result.task.id].sort());
  });
});
