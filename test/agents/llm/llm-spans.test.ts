/**
 * An LLM agent's run in OpenTelemetry, as an OTLP receiver decodes what the server exports: one
 * GenAI `chat` span per model call and one `execute_tool` span per tool call, all in the task's
 * trace under the run's `invoke_agent` span, with the tool's sub-task run beneath its
 * `execute_tool` span, and the token counts (cached ones included) on each `chat` span.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../../support/cluster.js';
import { startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../observability/otlp-receiver.js';
import { ScriptedModel } from './scripted-models.js';

let otlp: OtlpReceiver;
let model: ScriptedModel;
let server: TestServer;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  model = new ScriptedModel('openai', (r) =>
    r.toolResults.length === 0
      ? { toolCalls: [{ name: 'echo__echo', arguments: { request: 'traced' } }], promptTokens: 120, completionTokens: 9, cachedTokens: 64 }
      : { text: 'The echo said traced.', promptTokens: 180, completionTokens: 7, cachedTokens: 128 },
  );
  const baseUrl = await model.listen();
  server = await startTestServer({
    agents: [
      { id: 'analyst', llm: { provider: 'openai', baseUrl, model: 'gpt-scripted', instructions: 'Use echo.', tools: ['echo'] } },
      { id: 'echo', builtin: 'echo' },
    ],
    tracing: { enabled: true, endpoint: otlp.endpoint, exportDelay: 50 },
  });
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await model?.close();
  await otlp?.close();
});

it("the model calls and the tool call are GenAI spans in the task's trace, under the run", async () => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const res = await fetch(`${server.http}/a2a/analyst`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent: `00-${traceId}-${callerSpan}-01` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('what does echo say?') } }),
  });
  const task = ((await res.json()) as { result: { task: { id: string; status: { state: string } } } }).result.task;
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');

  const spans = await waitFor(
    () => {
      const mine = otlp.spans.filter((s) => s.traceId === traceId);
      // The binding's span ends once the answer is written, after the run's: it may come in a later export.
      const ready =
        mine.filter((s) => s.name === 'chat gpt-scripted').length === 2 &&
        mine.some((s) => s.name === 'execute_tool echo__echo') &&
        mine.some((s) => s.name === 'invoke_agent echo') &&
        mine.some((s) => s.name === 'SendMessage');
      return ready ? mine : undefined;
    },
    { timeoutMs: 10_000, what: "the run's spans", detail: () => otlp.spans.map((s) => s.name).join(', ') },
  );
  const named = (name: string) => spans.filter((s) => s.name === name);
  const run = named('invoke_agent analyst');
  expect(run).toHaveLength(1);
  expect(run[0]!.attributes['agentport.task.id']).toBe(task.id);
  const ancestors = (spanId: string | undefined): string[] => {
    const span = spans.find((s) => s.spanId === spanId);
    return span ? [span.name, ...ancestors(span.parentSpanId)] : [];
  };
  // The run is the caller's request's: its chain ends at the binding's span, child of the caller's.
  const chain = ancestors(run[0]!.parentSpanId);
  expect(chain[chain.length - 1]).toBe('SendMessage');
  expect(spans.find((s) => s.name === 'SendMessage')!.parentSpanId).toBe(callerSpan);

  const chats = named('chat gpt-scripted');
  for (const chat of chats) {
    expect(chat.parentSpanId).toBe(run[0]!.spanId);
    expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-scripted', 'gen_ai.response.model': 'gpt-scripted' });
  }
  const usage = chats.map((c) => [
    c.attributes['gen_ai.usage.input_tokens'],
    c.attributes['gen_ai.usage.output_tokens'],
    c.attributes['gen_ai.usage.cache_read.input_tokens'],
    c.attributes['gen_ai.response.finish_reasons'],
  ]);
  expect(usage).toEqual(
    expect.arrayContaining([
      [120, 9, 64, ['tool_calls']],
      [180, 7, 128, ['stop']],
    ]),
  );

  const tool = named('execute_tool echo__echo');
  expect(tool).toHaveLength(1);
  expect(tool[0]!.parentSpanId).toBe(run[0]!.spanId);
  expect(tool[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo__echo' });
  // The sub-task the tool call made runs in the same trace, beneath the tool call.
  const subRun = named('invoke_agent echo');
  expect(subRun).toHaveLength(1);
  expect(ancestors(subRun[0]!.parentSpanId)).toContain('execute_tool echo__echo');
}, 30_000);
