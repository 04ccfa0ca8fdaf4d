/** At most one executor per task: concurrent messages to one INPUT_REQUIRED task start a single run. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { probeState } from '../../fixtures/agents/probe-agent.js';
import { describeEvent, resultOf, rpcStream, startProbeServer } from './helpers.js';

describe('one executor per task', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  const inputRequiredTask = async () => {
    const first = await rpc(probe, 'SendMessage', { message: userMessage('count 20') });
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(probeState().runs.get(task.id)).toBe(1);
    return task as { id: string };
  };

  it('two concurrent messages to the same INPUT_REQUIRED task start only one executor run', async () => {
    const task = await inputRequiredTask();
    const m1 = userMessage('count 300', { taskId: task.id });
    const m2 = userMessage('count 300', { taskId: task.id });
    const [a, b] = await Promise.all([rpc(probe, 'SendMessage', { message: m1 }), rpc(probe, 'SendMessage', { message: m2 })]);
    const state = probeState();
    expect(state.maxConcurrent.get(task.id)).toBe(1);
    expect(state.runs.get(task.id)).toBe(2);
    // both callers are answered with the same task, back in INPUT_REQUIRED
    for (const r of [a, b]) {
      expect(r.body.result.task.id).toBe(task.id);
      expect(r.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    }
    // both user messages were recorded on the task
    const g = await rpc(probe, 'GetTask', { id: task.id });
    const ids = g.body.result.history.map((m: { messageId: string }) => m.messageId);
    expect(ids).toContain(m1.messageId);
    expect(ids).toContain(m2.messageId);
  });

  it('five concurrent messages (blocking and streaming mixed) still run one executor at a time', async () => {
    const task = await inputRequiredTask();
    const blocking = Array.from({ length: 3 }, () => rpc(probe, 'SendMessage', { message: userMessage('count 200', { taskId: task.id }) }));
    const streams = Array.from({ length: 2 }, async () => {
      const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('count 200', { taskId: task.id }) });
      return (await st.untilEnd()).map((e) => describeEvent(resultOf(e)));
    });
    const results = await Promise.all(blocking);
    const streamed = await Promise.all(streams);
    expect(probeState().maxConcurrent.get(task.id)).toBe(1);
    for (const r of results) expect(r.body.result.task.id).toBe(task.id);
    for (const events of streamed) expect(events.at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
  });

  it('a later message, once the run has ended, starts a fresh run of the same task', async () => {
    const task = await inputRequiredTask();
    const r = await rpc(probe, 'SendMessage', { message: userMessage('count 20', { taskId: task.id }) });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(probeState().runs.get(task.id)).toBe(2);
    expect(probeState().maxConcurrent.get(task.id)).toBe(1);
  });
});
