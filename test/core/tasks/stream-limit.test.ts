/**
 * One stream more than `limits.maxConcurrentStreamsPerTask` on a task is refused with its own
 * documented error (TOO_MANY_STREAMS: JSON-RPC -32000, HTTP 429, gRPC RESOURCE_EXHAUSTED), never
 * -32603 Internal error (issue 19).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';

const PROBE = new URL('../../fixtures/agents/probe-agent.ts', import.meta.url).pathname;

let s: TestServer;
let base: string;

beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'probe', module: PROBE, streaming: true }], limits: { maxConcurrentStreamsPerTask: 1 } });
  base = `${s.http}/a2a/probe`;
});
afterAll(async () => s?.stop());

describe('the stream limit per task', () => {
  it('refuses the stream past the limit with TOO_MANY_STREAMS on every binding', async () => {
    const sent = await rpc(base, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    const taskId = sent.body.result.task.id as string;
    const open = new AbortController();
    const first = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
      signal: open.signal,
    });
    expect(first.headers.get('content-type')).toMatch(/event-stream/);
    await first.body!.getReader().read();

    const rpcRefused = await rpc(base, 'SubscribeToTask', { id: taskId });
    expect(rpcRefused.body.error.code).toBe(-32000);
    expect(rpcRefused.body.error.data[0].reason).toBe('TOO_MANY_STREAMS');
    expect(rpcRefused.body.error.message).toMatch(/open streams/);

    const v03 = await rpc(base, 'tasks/resubscribe', { id: taskId }, { 'a2a-version': '0.3' });
    expect(v03.body.error.code).toBe(-32000);
    expect(v03.body.error.data.reason).toBe('TOO_MANY_STREAMS');

    const rest = await fetch(`${base}/tasks/${taskId}:subscribe`, { headers: { 'a2a-version': '1.0' } });
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as any).error.status).toBe('RESOURCE_EXHAUSTED');

    open.abort();
    await new Promise((r) => setTimeout(r, 100));
    await rpc(base, 'CancelTask', { id: taskId });
  });
});
