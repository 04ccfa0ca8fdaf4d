/** Server shutdown with work in flight: running executors are aborted and open streams end, so close() completes. */
import { describe, expect, it } from 'vitest';
import { rpc, userMessage } from '../../support/server.js';
import { probeState } from '../../fixtures/agents/probe-agent.js';
import { describeEvent, resultOf, rpcStream, startProbeServer } from './helpers.js';

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => 'done' as const), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);

describe('shutdown', () => {
  it('completes close() while a client holds a stream open on a running task (the executor is aborted, the stream ends)', async () => {
    const s = await startProbeServer();
    const probe = `${s.http}/a2a/probe`;
    const started = await rpc(probe, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    const id = started.body.result.task.id;
    const sub = await rpcStream(probe, 'SubscribeToTask', { id });
    expect(describeEvent(resultOf(await sub.next()))).toBe('task:TASK_STATE_WORKING');
    const stopping = s.stop();
    try {
      expect(await within(stopping, 3_000)).toBe('done');
      expect(sub.ended).toBe(true);
      expect(probeState().aborted.get(id)).toBe(true);
    } finally {
      // let the server finish closing either way
      sub.close();
      await stopping;
    }
  });

  it('completes close() with no stream open while an executor is still running (and aborts it)', async () => {
    const s = await startProbeServer();
    const probe = `${s.http}/a2a/probe`;
    const started = await rpc(probe, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    const id = started.body.result.task.id;
    expect(await within(s.stop(), 3_000)).toBe('done');
    expect(probeState().aborted.get(id)).toBe(true);
  });
});
