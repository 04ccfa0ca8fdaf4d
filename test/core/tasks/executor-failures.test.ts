/**
 * Executors that misbehave: a throw ends the task FAILED with a safe message (the thrown text never
 * reaches the client), returning early ends it FAILED, producing nothing is InvalidAgentResponse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { codeOf, describeEvent, resultOf, rpcStream, startProbeServer } from './helpers.js';

const SECRET = 'SECRET-db-password-hunter2';

describe('executor failures', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  it('an executor that throws ends the task FAILED with a safe status message; the thrown text appears nowhere', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage(`throw ${SECRET}`) });
    const t = r.body.result.task;
    expect(t.status.state).toBe('TASK_STATE_FAILED');
    const text = t.status.message.parts[0].text as string;
    expect(text).toBeTruthy();
    expect(t.status.message.role).toBe('ROLE_AGENT');
    // the only place the secret may appear is the user's own message; strip it before searching
    const withoutUser = (task: any) => JSON.stringify({ ...task, history: task.history?.filter((m: any) => m.role !== 'ROLE_USER') });
    expect(withoutUser(t)).not.toContain(SECRET);
    expect(JSON.stringify(r.headers)).not.toContain(SECRET);

    const g = await rpc(probe, 'GetTask', { id: t.id });
    expect(g.body.result.status.state).toBe('TASK_STATE_FAILED');
    expect(g.body.result.status.message.parts[0].text).toBe(text);
    expect(withoutUser(g.body.result)).not.toContain(SECRET);

    const log = await rpcStream(probe, 'SubscribeToTask', { id: t.id }, { 'last-event-id': '1' });
    const events = await log.untilEnd();
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it('a streaming executor that throws ends the stream with FAILED and the safe message only', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage(`throw ${SECRET}`) });
    const events = await st.untilEnd();
    const results = events.map(resultOf);
    expect(results.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'status:TASK_STATE_FAILED']);
    expect(JSON.stringify(events.slice(1))).not.toContain(SECRET);
  });

  it('an executor that throws before emitting anything gets an Internal error (-32603) without the thrown text', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage(`throw-early ${SECRET}`) });
    expect(codeOf(r.body)).toBe(-32603);
    expect(JSON.stringify(r.body)).not.toContain(SECRET);
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage(`throw-early ${SECRET}`) });
    const body = st.isSse ? await st.untilEnd() : await st.json();
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(st.isSse).toBe(false);
    expect(codeOf(body)).toBe(-32603);
  });

  it('ctx.fail(reason) ends the task FAILED with the reason the agent chose', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('fail quota exceeded') });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(r.body.result.task.status.message.parts[0].text).toBe('quota exceeded');
  });

  it('an executor that returns without reaching a terminal or interrupted state ends the task FAILED', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('return') });
    const t = r.body.result.task;
    expect(t.status.state).toBe('TASK_STATE_FAILED');
    expect(t.status.message.parts[0].text).toBeTruthy();
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('return') });
    const events = (await st.untilEnd()).map(resultOf).map(describeEvent);
    expect(events).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'status:TASK_STATE_FAILED']);
  });

  it('an executor that emits nothing is InvalidAgentResponse (-32006) and leaves no task behind', async () => {
    const contextId = `ctx-nothing-${Date.now()}`;
    const r = await rpc(probe, 'SendMessage', { message: userMessage('nothing', { contextId }) });
    expect(codeOf(r.body)).toBe(-32006);
    expect(r.body.error.data?.[0]?.reason).toBe('INVALID_AGENT_RESPONSE');
    const l = await rpc(probe, 'ListTasks', { contextId });
    expect(l.body.result.tasks).toEqual([]);
  });

  it('a streaming executor that emits nothing gets InvalidAgentResponse (-32006) as an ordinary error', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('nothing') });
    expect(st.isSse).toBe(false);
    expect(codeOf(await st.json())).toBe(-32006);
  });

  it('over HTTP+JSON, an executor that emits nothing is a 500 INVALID_AGENT_RESPONSE', async () => {
    const res = await fetch(`${probe}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: userMessage('nothing') }),
    });
    expect(res.status).toBe(500);
    expect((await res.json()).error.details[0].reason).toBe('INVALID_AGENT_RESPONSE');
  });
});
