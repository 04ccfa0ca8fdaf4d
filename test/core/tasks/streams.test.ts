/**
 * A2A v1.0 §7 streams (SendStreamingMessage): Task first then events in order, close at terminal and
 * at INPUT_REQUIRED, stay open through AUTH_REQUIRED, broadcast to every stream, survive disconnects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { openGate } from '../../fixtures/agents/probe-agent.js';
import { describeEvent, restStream, resultOf, rpcStream, startProbeServer, waitFor, type SseStream } from './helpers.js';

describe('SendStreamingMessage', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  it('sends the Task first, then every event in order, then closes at the terminal state', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('ticks 3 10') });
    expect(st.status).toBe(200);
    expect(st.isSse).toBe(true);
    const events = await st.untilEnd();
    const results = events.map(resultOf);
    expect(results.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:tick-0', 'artifact:tick-1', 'artifact:tick-2', 'status:TASK_STATE_COMPLETED']);
    const taskId = results[0].task.id;
    for (const r of results.slice(1)) {
      const ev = r.statusUpdate ?? r.artifactUpdate;
      expect(ev.taskId).toBe(taskId);
      expect(ev.contextId).toBe(results[0].task.contextId);
    }
    // every data line is a full JSON-RPC response; `id:` is the task event seq, contiguous from 1
    for (const e of events) expect(e.data.jsonrpc).toBe('2.0');
    expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('sends exactly one Message and closes when the agent replies with a Message', async () => {
    const st = await rpcStream(`${s.http}/a2a/conformance`, 'SendStreamingMessage', {
      message: { ...userMessage('hi'), messageId: `tck-message-response-${Date.now()}` },
    });
    const events = (await st.untilEnd()).map(resultOf);
    expect(events.map(describeEvent)).toEqual(['message']);
    expect(events[0].message.role).toBe('ROLE_AGENT');
  });

  it('ends the stream at INPUT_REQUIRED', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('input') });
    const events = (await st.untilEnd()).map(resultOf);
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_INPUT_REQUIRED']);
  });

  it('opens a continuation stream with the task as it stands, then the new events', async () => {
    const first = await rpc(probe, 'SendMessage', { message: userMessage('input') });
    const task = first.body.result.task;
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('ticks 1 5', { taskId: task.id }) });
    const events = (await st.untilEnd()).map(resultOf);
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_INPUT_REQUIRED', 'status:TASK_STATE_WORKING', 'artifact:tick-0', 'status:TASK_STATE_COMPLETED']);
    expect(events[0].task.id).toBe(task.id);
    // the snapshot carries the seq it reflects; later ids are log seqs, strictly increasing (the
    // user message's own log entry is not a stream event, so its seq is skipped)
    const ids = st.events.map((e) => Number(e.id));
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    // resuming after the snapshot replays exactly the rest
    const resumed = await rpcStream(probe, 'SubscribeToTask', { id: task.id }, { 'last-event-id': String(ids[0]) });
    const replay = await resumed.untilEnd();
    expect(replay.map((e) => Number(e.id))).toEqual(ids.slice(1));
  });

  it('keeps the stream open through AUTH_REQUIRED; a follow-up resumes the same executor and the open stream sees COMPLETED', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('auth-wait') });
    const first = resultOf(await st.next());
    expect(describeEvent(first)).toBe('task:TASK_STATE_SUBMITTED');
    const auth = resultOf(await st.next());
    expect(describeEvent(auth)).toBe('status:TASK_STATE_AUTH_REQUIRED');
    expect(await st.staysOpenFor(300)).toBe(true);

    const taskId = first.task.id;
    const f = await rpc(probe, 'SendMessage', { message: userMessage('credential-done', { taskId }) });
    expect(f.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const rest = (await st.untilEnd()).slice(2).map(resultOf);
    expect(rest.map(describeEvent)).toEqual(['artifact:artifact-1', 'status:TASK_STATE_COMPLETED']);
    // the same executor got the follow-up through ctx.nextMessage()
    expect(rest[0].artifactUpdate.artifact.parts[0].text).toBe('got: credential-done');
    expect(rest[1].statusUpdate.taskId).toBe(taskId);
  });

  it('delivers every event, in the same order, to 10 concurrent subscribers of one running task', async () => {
    const gateName = `fanout-${Date.now()}`;
    const started = await rpc(probe, 'SendMessage', { message: userMessage(`gate ${gateName} 20`), configuration: { returnImmediately: true } });
    const taskId = started.body.result.task.id;
    const subs: SseStream[] = await Promise.all(Array.from({ length: 10 }, () => rpcStream(probe, 'SubscribeToTask', { id: taskId })));
    for (const sub of subs) {
      const snap = resultOf(await sub.next());
      expect(snap.task.id).toBe(taskId);
      expect(snap.task.status.state).toBe('TASK_STATE_WORKING');
    }
    openGate(gateName);
    const seen = await Promise.all(subs.map((sub) => sub.untilEnd()));
    const expected = [...Array.from({ length: 20 }, (_, i) => `artifact:after-gate-${i}`), 'status:TASK_STATE_COMPLETED'];
    const reference = seen[0]!.slice(1);
    for (const events of seen) {
      const live = events.slice(1);
      expect(live.map((e) => describeEvent(resultOf(e)))).toEqual(expected);
      expect(live.map((e) => e.id)).toEqual(reference.map((e) => e.id));
    }
  });

  it('keeps delivering to the other subscribers when one of them disconnects', async () => {
    const gateName = `one-leaves-${Date.now()}`;
    const started = await rpc(probe, 'SendMessage', { message: userMessage(`gate ${gateName} 3`), configuration: { returnImmediately: true } });
    const taskId = started.body.result.task.id;
    const [a, b, c] = (await Promise.all([0, 1, 2].map(() => rpcStream(probe, 'SubscribeToTask', { id: taskId })))) as [SseStream, SseStream, SseStream];
    for (const sub of [a, b, c]) expect(describeEvent(resultOf(await sub.next()))).toBe('task:TASK_STATE_WORKING');
    b.close();
    await waitFor(() => b.ended, 'the leaving subscriber to close');
    openGate(gateName);
    for (const sub of [a, c]) {
      const live = (await sub.untilEnd()).slice(1).map((e) => describeEvent(resultOf(e)));
      expect(live).toEqual(['artifact:after-gate-0', 'artifact:after-gate-1', 'artifact:after-gate-2', 'status:TASK_STATE_COMPLETED']);
    }
  });

  it('keeps the task running when a client disconnects mid-stream; subscribing again works and the task completes', async () => {
    const gateName = `disconnect-${Date.now()}`;
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage(`gate ${gateName} 2`) });
    const first = resultOf(await st.next());
    const taskId = first.task.id;
    expect(describeEvent(resultOf(await st.next()))).toBe('status:TASK_STATE_WORKING');
    st.close();
    await waitFor(() => st.ended, 'the client stream to close');

    const g = await rpc(probe, 'GetTask', { id: taskId });
    expect(g.body.result.status.state).toBe('TASK_STATE_WORKING');

    const again = await rpcStream(probe, 'SubscribeToTask', { id: taskId });
    expect(describeEvent(resultOf(await again.next()))).toBe('task:TASK_STATE_WORKING');
    openGate(gateName);
    const rest = (await again.untilEnd()).slice(1).map(resultOf);
    expect(rest.map(describeEvent)).toEqual(['artifact:after-gate-0', 'artifact:after-gate-1', 'status:TASK_STATE_COMPLETED']);
    const done = await rpc(probe, 'GetTask', { id: taskId });
    expect(done.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.body.result.artifacts).toHaveLength(2);
  });

  it('completes the task even when its only stream disconnected and nobody resubscribes', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('ticks 4 50') });
    const taskId = resultOf(await st.next()).task.id;
    st.close();
    const done = await waitFor(
      async () => {
        const g = await rpc(probe, 'GetTask', { id: taskId });
        return g.body.result.status.state === 'TASK_STATE_COMPLETED' ? g.body.result : undefined;
      },
      'the task to complete',
      5_000,
    );
    expect(done.artifacts.map((a: { artifactId: string }) => a.artifactId)).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3']);
  });

  it('closes a continuation stream when the executor returns without a new event (the task stays INPUT_REQUIRED)', async () => {
    const first = await rpc(probe, 'SendMessage', { message: userMessage('input') });
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('nothing', { taskId: first.body.result.task.id }) });
    try {
      const events = (await st.untilEnd(2_000)).map(resultOf).map(describeEvent);
      expect(events[0]).toBe('task:TASK_STATE_INPUT_REQUIRED');
    } finally {
      st.close();
    }
  });

  it('streams over HTTP+JSON with bare StreamResponse objects (Task first, closing at terminal)', async () => {
    const st = await restStream(`${probe}/message:stream`, { method: 'POST', body: { message: userMessage('ticks 2 5') } });
    expect(st.status).toBe(200);
    const events = await st.untilEnd();
    expect(events.map((e) => describeEvent(e.data))).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:tick-0', 'artifact:tick-1', 'status:TASK_STATE_COMPLETED']);
    expect(events[0]!.data.jsonrpc).toBeUndefined();
  });

  it('returns an ordinary JSON-RPC error (not a stream) when the stream cannot start', async () => {
    const st = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage('x', { taskId: 'unknown-task' }) });
    expect(st.isSse).toBe(false);
    expect((await st.json()).error.code).toBe(-32001);
  });
});
