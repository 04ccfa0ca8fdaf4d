/** A2A v1.0 §7 IDs and continuation rules, end to end over JSON-RPC (and HTTP+JSON for the basics). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { codeOf, startProbeServer } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const tckId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2)}`;

describe('task ids and contexts', () => {
  let s: TestServer;
  let probe: string;
  let conf: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
    conf = `${s.http}/a2a/conformance`;
  });
  afterAll(async () => s?.stop());

  it('generates the task id on the server (a fresh UUID per task)', async () => {
    const a = await rpc(probe, 'SendMessage', { message: userMessage('one') });
    const b = await rpc(probe, 'SendMessage', { message: userMessage('two') });
    expect(a.body.result.task.id).toMatch(UUID);
    expect(b.body.result.task.id).toMatch(UUID);
    expect(a.body.result.task.id).not.toBe(b.body.result.task.id);
    // the stored user message carries the server's taskId
    expect(a.body.result.task.history[0].taskId).toBe(a.body.result.task.id);
  });

  it('rejects a client-chosen taskId that does not exist with TaskNotFound (-32001) and creates nothing', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('hello', { taskId: 'my-own-task-id' }) });
    expect(codeOf(r.body)).toBe(-32001);
    expect(r.body.error.data?.[0]?.reason).toBe('TASK_NOT_FOUND');
    const g = await rpc(probe, 'GetTask', { id: 'my-own-task-id' });
    expect(codeOf(g.body)).toBe(-32001);
  });

  it('keeps a client-chosen contextId', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('hello', { contextId: 'ctx-client-chosen' }) });
    expect(r.body.result.task.contextId).toBe('ctx-client-chosen');
    expect(r.body.result.task.history[0].contextId).toBe('ctx-client-chosen');
  });

  it('generates a contextId when the message has none and returns it', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('hello') });
    const t = r.body.result.task;
    expect(t.contextId).toMatch(UUID);
    expect(t.history[0].contextId).toBe(t.contextId);
    expect(t.contextId).not.toBe(t.id);
  });

  it('generates the contextId also for a direct Message reply', async () => {
    const r = await rpc(conf, 'SendMessage', { message: { ...userMessage('hi'), messageId: tckId('tck-message-response') } });
    expect(r.body.result.message.role).toBe('ROLE_AGENT');
    expect(r.body.result.message.contextId).toMatch(UUID);
    expect(r.body.result.task).toBeUndefined();
  });

  it('rejects a taskId/contextId mismatch with InvalidParams (-32602)', async () => {
    const first = await rpc(conf, 'SendMessage', { message: { ...userMessage('q'), messageId: tckId('tck-input-required') } });
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const r = await rpc(conf, 'SendMessage', {
      message: { ...userMessage('a'), messageId: tckId('tck-complete-task'), taskId: task.id, contextId: 'some-other-context' },
    });
    expect(codeOf(r.body)).toBe(-32602);
    // the task did not move
    const g = await rpc(conf, 'GetTask', { id: task.id });
    expect(g.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('infers the contextId from the task when only taskId is sent', async () => {
    const first = await rpc(conf, 'SendMessage', { message: { ...userMessage('q'), messageId: tckId('tck-input-required') } });
    const task = first.body.result.task;
    const r = await rpc(conf, 'SendMessage', { message: { ...userMessage('a'), messageId: tckId('tck-complete-task'), taskId: task.id } });
    expect(r.body.result.task.id).toBe(task.id);
    expect(r.body.result.task.contextId).toBe(task.contextId);
    expect(r.body.result.task.history.at(-2).contextId).toBe(task.contextId);
  });

  it('refuses a message to a terminal task with UnsupportedOperation (-32004)', async () => {
    const done = await rpc(probe, 'SendMessage', { message: userMessage('finish') });
    expect(done.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const r = await rpc(probe, 'SendMessage', { message: userMessage('again', { taskId: done.body.result.task.id }) });
    expect(codeOf(r.body)).toBe(-32004);
    expect(r.body.error.data?.[0]?.reason).toBe('UNSUPPORTED_OPERATION');
    // nothing was appended to the terminal task
    const g = await rpc(probe, 'GetTask', { id: done.body.result.task.id });
    expect(g.body.result.history).toHaveLength(1);
  });

  it('refuses a message to a REJECTED / CANCELED task with UnsupportedOperation too', async () => {
    const rej = await rpc(conf, 'SendMessage', { message: { ...userMessage('x'), messageId: tckId('tck-reject-task') } });
    expect(rej.body.result.task.status.state).toBe('TASK_STATE_REJECTED');
    const r1 = await rpc(conf, 'SendMessage', { message: { ...userMessage('again'), messageId: tckId('tck-complete-task'), taskId: rej.body.result.task.id } });
    expect(codeOf(r1.body)).toBe(-32004);

    const held = await rpc(probe, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    const c = await rpc(probe, 'CancelTask', { id: held.body.result.task.id });
    expect(c.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const r2 = await rpc(probe, 'SendMessage', { message: userMessage('again', { taskId: held.body.result.task.id }) });
    expect(codeOf(r2.body)).toBe(-32004);
  });

  it('continues the same task after INPUT_REQUIRED, with both user messages in history in order', async () => {
    const firstId = tckId('tck-input-required');
    const first = await rpc(conf, 'SendMessage', { message: { ...userMessage('first question'), messageId: firstId } });
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const secondId = tckId('tck-complete-task');
    const second = await rpc(conf, 'SendMessage', { message: { ...userMessage('the answer'), messageId: secondId, taskId: task.id } });
    const t2 = second.body.result.task;
    expect(t2.id).toBe(task.id);
    expect(t2.contextId).toBe(task.contextId);
    expect(t2.status.state).toBe('TASK_STATE_COMPLETED');

    const g = await rpc(conf, 'GetTask', { id: task.id });
    const history = g.body.result.history as Array<{ messageId: string; role: string }>;
    const users = history.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId);
    expect(users).toEqual([firstId, secondId]);
    // the agent's question sits between the two user messages
    const iFirst = history.findIndex((m) => m.messageId === firstId);
    const iSecond = history.findIndex((m) => m.messageId === secondId);
    expect(history.slice(iFirst + 1, iSecond).some((m) => m.role === 'ROLE_AGENT')).toBe(true);
  });

  it('applies the same id rules over HTTP+JSON (404 TASK_NOT_FOUND for an unknown taskId, 400 for a terminal task)', async () => {
    const send = (body: unknown) => fetch(`${probe}/message:send`, { method: 'POST', headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' }, body: JSON.stringify(body) });
    const unknown = await send({ message: userMessage('x', { taskId: 'nope' }) });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.details[0].reason).toBe('TASK_NOT_FOUND');

    const ok = await send({ message: userMessage('x', { contextId: 'rest-ctx' }) });
    expect(ok.status).toBe(200);
    const t = (await ok.json()).task;
    expect(t.contextId).toBe('rest-ctx');
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');

    const terminal = await send({ message: userMessage('y', { taskId: t.id }) });
    expect(terminal.status).toBe(400);
    expect((await terminal.json()).error.details[0].reason).toBe('UNSUPPORTED_OPERATION');
  });
});
