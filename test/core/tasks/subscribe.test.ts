/**
 * A2A v1.0 §7 SubscribeToTask: the current Task first, refused for terminal tasks; plus Agentport's
 * lossless resume: `Last-Event-ID: <seq>` replays the events after seq from the task's log, then goes live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { openGate } from '../../fixtures/agents/probe-agent.js';
import { codeOf, describeEvent, restStream, resultOf, rpcStream, startProbeServer } from './helpers.js';

describe('SubscribeToTask', () => {
  let s: TestServer;
  let probe: string;
  /** a COMPLETED task whose log is seq 1 task, 2 WORKING, 3–5 tick artifacts, 6 COMPLETED */
  let done: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
    const r = await rpc(probe, 'SendMessage', { message: userMessage('ticks 3 5') });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    done = r.body.result.task.id;
  });
  afterAll(async () => s?.stop());

  const startGated = async (gate: string, n: number) => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage(`gate ${gate} ${n}`), configuration: { returnImmediately: true } });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_WORKING');
    return r.body.result.task.id as string;
  };

  it('sends the current task snapshot first, then live events, and closes at the terminal state', async () => {
    const gate = `snap-${Date.now()}`;
    const id = await startGated(gate, 2);
    const sub = await rpcStream(probe, 'SubscribeToTask', { id });
    expect(sub.status).toBe(200);
    const first = await sub.next();
    const snap = resultOf(first);
    expect(snap.task.id).toBe(id);
    expect(snap.task.status.state).toBe('TASK_STATE_WORKING');
    expect(snap.task.history[0].role).toBe('ROLE_USER');
    // the snapshot carries the seq of the last event it includes
    expect(first!.id).toBe('2');
    openGate(gate);
    const events = await sub.untilEnd();
    expect(events.slice(1).map((e) => describeEvent(resultOf(e)))).toEqual(['artifact:after-gate-0', 'artifact:after-gate-1', 'status:TASK_STATE_COMPLETED']);
    expect(events.map((e) => e.id)).toEqual(['2', '3', '4', '5']);
  });

  it('refuses a terminal task with UnsupportedOperation (-32004), as an ordinary JSON-RPC error', async () => {
    const sub = await rpcStream(probe, 'SubscribeToTask', { id: done });
    expect(sub.isSse).toBe(false);
    expect(codeOf(await sub.json())).toBe(-32004);
  });

  it('refuses an unknown task with TaskNotFound (-32001)', async () => {
    const sub = await rpcStream(probe, 'SubscribeToTask', { id: 'no-such-task' });
    expect(codeOf(await sub.json())).toBe(-32001);
  });

  it('refuses a terminal task over HTTP+JSON with 400 UNSUPPORTED_OPERATION (GET and POST :subscribe)', async () => {
    for (const method of ['GET', 'POST']) {
      const sub = await restStream(`${probe}/tasks/${done}:subscribe`, { method });
      expect(sub.status).toBe(400);
      expect((await sub.json()).error.details[0].reason).toBe('UNSUPPORTED_OPERATION');
    }
  });

  it('subscribes over HTTP+JSON with a bare task snapshot first', async () => {
    const gate = `rest-${Date.now()}`;
    const id = await startGated(gate, 1);
    const sub = await restStream(`${probe}/tasks/${id}:subscribe`);
    expect(sub.status).toBe(200);
    expect(describeEvent((await sub.next())!.data)).toBe('task:TASK_STATE_WORKING');
    openGate(gate);
    const events = await sub.untilEnd();
    expect(events.map((e) => describeEvent(e.data))).toEqual(['task:TASK_STATE_WORKING', 'artifact:after-gate-0', 'status:TASK_STATE_COMPLETED']);
  });

  describe('Last-Event-ID (lossless resume)', () => {
    it('replays exactly the events after n from the log, then goes live (ids contiguous)', async () => {
      const gate = `resume-${Date.now()}`;
      const id = await startGated(gate, 2);
      // the log now holds 1 task, 2 WORKING; resume after 1
      const sub = await rpcStream(probe, 'SubscribeToTask', { id }, { 'last-event-id': '1' });
      expect(sub.status).toBe(200);
      const replayed = await sub.next();
      expect(replayed!.id).toBe('2');
      expect(describeEvent(resultOf(replayed))).toBe('status:TASK_STATE_WORKING');
      expect(await sub.staysOpenFor(100)).toBe(true);
      openGate(gate);
      const events = await sub.untilEnd();
      expect(events.map((e) => describeEvent(resultOf(e)))).toEqual(['status:TASK_STATE_WORKING', 'artifact:after-gate-0', 'artifact:after-gate-1', 'status:TASK_STATE_COMPLETED']);
      expect(events.map((e) => Number(e.id))).toEqual([2, 3, 4, 5]);
    });

    it('replays the missed events of a terminal task and then closes (Agentport extension)', async () => {
      const sub = await rpcStream(probe, 'SubscribeToTask', { id: done }, { 'last-event-id': '3' });
      expect(sub.status).toBe(200);
      const events = await sub.untilEnd();
      expect(events.map((e) => Number(e.id))).toEqual([4, 5, 6]);
      expect(events.map((e) => describeEvent(resultOf(e)))).toEqual(['artifact:tick-1', 'artifact:tick-2', 'status:TASK_STATE_COMPLETED']);
    });

    it('replays the whole log, Task event included, from Last-Event-ID: 0', async () => {
      const sub = await rpcStream(probe, 'SubscribeToTask', { id: done }, { 'last-event-id': '0' });
      const events = await sub.untilEnd();
      expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
      expect(events.map((e) => describeEvent(resultOf(e)))).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:tick-0', 'artifact:tick-1', 'artifact:tick-2', 'status:TASK_STATE_COMPLETED']);
    });

    it('refuses a terminal task whose last seq the client already has with UnsupportedOperation (-32004)', async () => {
      const sub = await rpcStream(probe, 'SubscribeToTask', { id: done }, { 'last-event-id': '6' });
      expect(sub.isSse).toBe(false);
      expect(codeOf(await sub.json())).toBe(-32004);
    });

    it('resumes a stream the client lost mid-way without gaps or duplicates', async () => {
      const gate = `lost-${Date.now()}`;
      const first = await rpcStream(probe, 'SendStreamingMessage', { message: userMessage(`gate ${gate} 4`) });
      const t = resultOf(await first.next());
      const working = await first.next();
      expect(describeEvent(resultOf(working))).toBe('status:TASK_STATE_WORKING');
      first.close();
      // events the client misses while disconnected
      openGate(gate);
      await waitForState(probe, t.task.id, 'TASK_STATE_COMPLETED');
      const again = await rpcStream(probe, 'SubscribeToTask', { id: t.task.id }, { 'last-event-id': working!.id! });
      const events = await again.untilEnd();
      expect(events.map((e) => describeEvent(resultOf(e)))).toEqual(['artifact:after-gate-0', 'artifact:after-gate-1', 'artifact:after-gate-2', 'artifact:after-gate-3', 'status:TASK_STATE_COMPLETED']);
      expect(events.map((e) => Number(e.id))).toEqual([3, 4, 5, 6, 7]);
    });

    it('establishes the stream at once when the client already has the latest event of a running task (headers before the next event)', async () => {
      const gate = `caught-up-${Date.now()}`;
      const id = await startGated(gate, 1);
      try {
        // the log holds seq 1 (task) and 2 (WORKING): the client has everything and waits for more
        const sub = await rpcStream(probe, 'SubscribeToTask', { id }, { 'last-event-id': '2' }, 1_000);
        expect(sub.status).toBe(200);
        expect(sub.isSse).toBe(true);
        openGate(gate);
        const events = await sub.untilEnd();
        // With nothing missed, the stream opens with the task snapshot as of the client's last id
        // (spec §3.1.6: a subscription starts with the task), then continues live.
        expect(events.map((e) => Number(e.id))).toEqual([2, 3, 4]);
        expect(events.map((e) => describeEvent(resultOf(e)))).toEqual(['task:TASK_STATE_WORKING', 'artifact:after-gate-0', 'status:TASK_STATE_COMPLETED']);
      } finally {
        openGate(gate);
      }
    });

    it('does not hang when Last-Event-ID is beyond the last seq of a running task: refused, or closed at the terminal state', async () => {
      const gate = `future-${Date.now()}`;
      const id = await startGated(gate, 1);
      try {
        const opening = rpcStream(probe, 'SubscribeToTask', { id }, { 'last-event-id': '50' }, 3_000);
        // the task finishes while the subscription is being set up
        setTimeout(() => openGate(gate), 100);
        const sub = await opening;
        if (sub.isSse) {
          await sub.untilEnd(3_000);
        } else {
          expect([-32602, -32004]).toContain(codeOf(await sub.json()));
        }
      } finally {
        openGate(gate);
      }
    });

    it('works over HTTP+JSON with the Last-Event-ID header', async () => {
      const sub = await restStream(`${probe}/tasks/${done}:subscribe`, { headers: { 'last-event-id': '5' } });
      expect(sub.status).toBe(200);
      const events = await sub.untilEnd();
      expect(events.map((e) => e.id)).toEqual(['6']);
      expect(describeEvent(events[0]!.data)).toBe('status:TASK_STATE_COMPLETED');
    });
  });
});

async function waitForState(url: string, id: string, state: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const g = await rpc(url, 'GetTask', { id });
    if (g.body.result?.status.state === state) return;
    if (Date.now() > deadline) throw new Error(`task ${id} did not reach ${state}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
