/**
 * Tracing passes its context explicitly (docs/decisions/0018-tracing.md): turning it on registers
 * no context manager, so nothing tracks a context across awaits and Node's promise hooks stay off,
 * while a call's spans still form one tree under the caller's span.
 */
import { randomBytes } from 'node:crypto';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/cluster.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

let otlp: OtlpReceiver;
let server: TestServer;

describe('tracing with explicit context', () => {
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    server = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], tracing: { enabled: true, endpoint: otlp.endpoint, exportDelay: 50 } });
  });

  afterAll(async () => {
    await server?.stop();
    await otlp?.close();
  });

  it('registers no context manager: a context entered before an await is not the active one after it, nor inside', async () => {
    const key = createContextKey('probe');
    const entered = ROOT_CONTEXT.setValue(key, 1);
    const inside = context.with(entered, () => context.active());
    const afterAwait = await context.with(entered, async () => {
      await Promise.resolve();
      return context.active();
    });
    expect(inside).toBe(ROOT_CONTEXT);
    expect(afterAwait).toBe(ROOT_CONTEXT);
  });

  it("a blocking SendMessage's spans are one tree under the caller's span: request, authentication, core operation, the agent's run, its commits", async () => {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    const res = await fetch(`${server.http}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent: `00-${traceId}-${spanId}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-explicit', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, configuration: { blocking: true } } }),
    });
    expect(((await res.json()) as { result?: { task?: { status?: { state?: string } } } }).result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const names = ['SendMessage', 'authenticate', 'core SendMessage', 'invoke_agent echo', 'store.commit'];
    const spans = await waitFor(
      () => {
        const mine = otlp.spans.filter((s) => s.traceId === traceId);
        return names.every((n) => mine.some((s) => s.name === n)) ? mine : undefined;
      },
      { timeoutMs: 10_000, what: 'the call’s spans', detail: () => otlp.spans.map((s) => s.name).join(', ') },
    );
    const one = (name: string) => spans.find((s) => s.name === name)!;
    expect(one('SendMessage').parentSpanId).toBe(spanId);
    expect(one('authenticate').parentSpanId).toBe(one('SendMessage').spanId);
    expect(one('core SendMessage').parentSpanId).toBe(one('SendMessage').spanId);
    expect(one('invoke_agent echo').parentSpanId).toBe(one('core SendMessage').spanId);
    for (const commit of spans.filter((s) => s.name === 'store.commit')) expect(commit.parentSpanId).toBe(one('invoke_agent echo').spanId);
  });

  it("a caller's unsampled traceparent is followed: none of the call's spans is exported, and the next sampled call's are", async () => {
    const send = (traceId: string, flags: string) =>
      fetch(`${server.http}/a2a/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomBytes(8).toString('hex'), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      }).then((r) => r.text());
    const unsampled = randomBytes(16).toString('hex');
    const sampled = randomBytes(16).toString('hex');
    await send(unsampled, '00');
    await send(sampled, '01');
    await waitFor(() => otlp.spans.some((s) => s.traceId === sampled && s.name === 'invoke_agent echo'), { timeoutMs: 10_000, what: 'the sampled call’s spans' });
    expect(otlp.spans.filter((s) => s.traceId === unsampled)).toEqual([]);
  });
});
