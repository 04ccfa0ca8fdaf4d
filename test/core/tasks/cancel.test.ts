/** A2A v1.0 §7 CancelTask: reaches the executor, nothing follows CANCELED, idempotent, TaskNotCancelable for other terminal states. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { probeState } from '../../fixtures/agents/probe-agent.js';
import { codeOf, describeEvent, resultOf, rpcStream, startProbeServer, waitFor } from './helpers.js';

describe('CancelTask', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  const startNonBlocking = async (text: string) => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage(text), configuration: { returnImmediately: true } });
    return r.body.result.task as { id: string; contextId: string; status: { state: string } };
  };

  it('aborts the executor (ctx.signal) and returns the task CANCELED', async () => {
    const t = await startNonBlocking('hold');
    const c = await rpc(probe, 'CancelTask', { id: t.id });
    expect(c.body.result.id).toBe(t.id);
    expect(c.body.result.status.state).toBe('TASK_STATE_CANCELED');
    await waitFor(() => probeState().aborted.get(t.id) === true, 'the executor to observe ctx.signal.aborted');
  });

  it('rejects a pending ctx.sleep() when canceled', async () => {
    const t = await startNonBlocking('sleep 10000');
    await rpc(probe, 'CancelTask', { id: t.id });
    await waitFor(() => probeState().aborted.get(t.id) === true, 'ctx.sleep to reject with the signal aborted');
  });

  it('drops every event the executor emits after CANCELED (task and log end at CANCELED)', async () => {
    const t = await startNonBlocking('hold');
    await rpc(probe, 'CancelTask', { id: t.id });
    // the probe emits an artifact and COMPLETED right after it sees the abort
    await waitFor(() => probeState().aborted.has(t.id), 'the executor to run after the abort');
    const g = await rpc(probe, 'GetTask', { id: t.id });
    expect(g.body.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(g.body.result).not.toHaveProperty('artifacts');
    const log = await rpcStream(probe, 'SubscribeToTask', { id: t.id }, { 'last-event-id': '0' });
    const events = (await log.untilEnd()).map(resultOf).map(describeEvent);
    expect(events.at(-1)).toBe('status:TASK_STATE_CANCELED');
    expect(events).not.toContain('status:TASK_STATE_COMPLETED');
    expect(events.filter((e) => e.startsWith('artifact:'))).toEqual([]);
  });

  it('ends an open stream with CANCELED', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('hold') });
    const t = resultOf(await st.next()).task;
    expect(describeEvent(resultOf(await st.next()))).toBe('status:TASK_STATE_WORKING');
    await rpc(probe, 'CancelTask', { id: t.id });
    const rest = (await st.untilEnd()).slice(2).map(resultOf).map(describeEvent);
    expect(rest).toEqual(['status:TASK_STATE_CANCELED']);
  });

  it('answers a blocking SendMessage waiting on the task with the CANCELED task', async () => {
    const contextId = `ctx-cancel-blocking-${Date.now()}`;
    let returned = false;
    const pending = rpc(probe, 'SendMessage', { message: userMessage('hold', { contextId }) }).finally(() => (returned = true));
    const task = await waitFor(async () => {
      const l = await rpc(probe, 'ListTasks', { contextId, status: 'TASK_STATE_WORKING' });
      return l.body.result.tasks[0];
    }, 'the blocking task to show up as WORKING');
    expect(returned).toBe(false);
    await rpc(probe, 'CancelTask', { id: task.id });
    const r = await pending;
    expect(r.body.result.task.id).toBe(task.id);
    expect(r.body.result.task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('is idempotent: canceling a CANCELED task returns it unchanged', async () => {
    const t = await startNonBlocking('hold');
    const first = await rpc(probe, 'CancelTask', { id: t.id });
    const second = await rpc(probe, 'CancelTask', { id: t.id });
    expect(second.body.error).toBeUndefined();
    expect(second.body.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(second.body.result.status.timestamp).toBe(first.body.result.status.timestamp);
    // no second CANCELED event in the log
    const log = await rpcStream(probe, 'SubscribeToTask', { id: t.id }, { 'last-event-id': '0' });
    const events = (await log.untilEnd()).map(resultOf).map(describeEvent);
    expect(events.filter((e) => e === 'status:TASK_STATE_CANCELED')).toHaveLength(1);
  });

  it('cancels an INPUT_REQUIRED task (no executor running)', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('input') });
    const c = await rpc(probe, 'CancelTask', { id: r.body.result.task.id });
    expect(c.body.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('cancels an AUTH_REQUIRED task whose executor waits in ctx.nextMessage()', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('auth-wait') });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const c = await rpc(probe, 'CancelTask', { id: r.body.result.task.id });
    expect(c.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const g = await rpc(probe, 'GetTask', { id: r.body.result.task.id });
    expect(g.body.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('refuses a COMPLETED task with TaskNotCancelable (-32002)', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('done') });
    const c = await rpc(probe, 'CancelTask', { id: r.body.result.task.id });
    expect(codeOf(c.body)).toBe(-32002);
    expect(c.body.error.data?.[0]?.reason).toBe('TASK_NOT_CANCELABLE');
    const g = await rpc(probe, 'GetTask', { id: r.body.result.task.id });
    expect(g.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses FAILED and REJECTED tasks with TaskNotCancelable (-32002)', async () => {
    const failed = await rpc(probe, 'SendMessage', { message: userMessage('throw oops') });
    expect(failed.body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(codeOf((await rpc(probe, 'CancelTask', { id: failed.body.result.task.id })).body)).toBe(-32002);
    const rejected = await rpc(`${s.http}/a2a/conformance`, 'SendMessage', { message: { ...userMessage('x'), messageId: `tck-reject-task-${Date.now()}` } });
    expect(rejected.body.result.task.status.state).toBe('TASK_STATE_REJECTED');
    expect(codeOf((await rpc(`${s.http}/a2a/conformance`, 'CancelTask', { id: rejected.body.result.task.id })).body)).toBe(-32002);
  });

  it('refuses an unknown task with TaskNotFound (-32001)', async () => {
    const c = await rpc(probe, 'CancelTask', { id: 'no-such-task' });
    expect(codeOf(c.body)).toBe(-32001);
  });

  it('over HTTP+JSON: 200 CANCELED, 400 TASK_NOT_CANCELABLE, 404 TASK_NOT_FOUND', async () => {
    const cancel = (id: string) => fetch(`${probe}/tasks/${id}:cancel`, { method: 'POST', headers: { 'a2a-version': '1.0' } });
    const t = await startNonBlocking('hold');
    const ok = await cancel(t.id);
    expect(ok.status).toBe(200);
    expect((await ok.json()).status.state).toBe('TASK_STATE_CANCELED');
    const again = await cancel(t.id);
    expect(again.status).toBe(200);
    const done = await rpc(probe, 'SendMessage', { message: userMessage('done') });
    const notCancelable = await cancel(done.body.result.task.id);
    expect(notCancelable.status).toBe(400);
    expect((await notCancelable.json()).error.details[0].reason).toBe('TASK_NOT_CANCELABLE');
    const missing = await cancel('no-such-task');
    expect(missing.status).toBe(404);
  });
});
