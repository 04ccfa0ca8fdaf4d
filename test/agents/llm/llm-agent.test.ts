/**
 * An LLM agent from configuration, end to end: Agentport on loopback with the Table Expert, Echo
 * and two `agents[].llm` agents whose models are scripted servers speaking the OpenAI and
 * Anthropic streaming wire formats. A question needing two tool calls is answered with streamed
 * text over A2A JSON-RPC, HTTP+JSON, gRPC and MCP; the sub-tasks are the caller's; a caller
 * without a tool's scope gets the refusal inside the run; the model's question round-trips;
 * cancel reaches the sub-tasks.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as codec from '../../../src/protocol/a2a/grpc-codec.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { collect, connect } from '../../bindings/a2a-grpc/client.js';
import { modernClient } from '../../bindings/mcp/clients.js';
import { readSse, rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { sample } from '../table-expert/retail-facts.js';
import { ScriptedModel, type SeenRequest } from './scripted-models.js';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef';
const QUESTION = 'How many orders are there?';
const ORDERS = String(sample.orders.length);

/** The scripted analyst: the Table Expert first, then Echo, then the answer built from what the Table Expert said. */
function analystScript(r: SeenRequest) {
  if (r.lastUserText.startsWith('ask me')) {
    return r.toolResults.length === 0 ? { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which year?' } }] } : { text: `You said: ${JSON.parse(r.toolResults[0]!.content).data}` };
  }
  if (r.lastUserText.startsWith('regional'))
    return r.toolResults.length === 0 ? { toolCalls: [{ name: 'asker__ask', arguments: { request: 'revenue' } }] } : { text: `Got: ${JSON.parse(r.toolResults[0]!.content).data}` };
  if (r.lastUserText.startsWith('slow')) return r.toolResults.length === 0 ? { toolCalls: [{ name: 'slow__wait', arguments: { request: 'wait' } }] } : { text: 'done' };
  if (r.toolResults.length === 0) return { toolCalls: [{ name: 'table-expert__ask', arguments: { request: QUESTION } }], promptTokens: 100, completionTokens: 10 };
  if (r.toolResults.length === 1) return { toolCalls: [{ name: 'echo__echo', arguments: { request: 'checked' } }], promptTokens: 200, completionTokens: 11 };
  const figure = /\d[\d,]{2,}/.exec(JSON.parse(r.toolResults[0]!.content).data)?.[0]?.replaceAll(',', '') ?? 'unknown';
  return { text: `There are ${figure} orders in the sample.`, promptTokens: 300, completionTokens: 12 };
}

const SLOW_AGENT = `export default {
  card: { name: 'Slow', description: 'Waits until canceled.', skills: [{ id: 'wait', name: 'Wait', description: 'Waits.', tags: [] }] },
  async execute(ctx) {
    ctx.working('waiting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
  },
};
`;

const ASKER_AGENT = `export default {
  card: { name: 'Asker', description: 'Asks which region first.', skills: [{ id: 'ask', name: 'Ask', description: 'Asks.', tags: [] }] },
  execute(ctx) {
    if (!ctx.task) return ctx.askInput('Which region?');
    ctx.artifact('region ' + ctx.text());
    ctx.complete();
  },
};
`;

describe('agents[].llm over every binding', () => {
  let openai: ScriptedModel;
  let anthropic: ScriptedModel;
  let s: TestServer;
  const started = Date.now();

  beforeAll(async () => {
    openai = new ScriptedModel('openai', analystScript);
    anthropic = new ScriptedModel('anthropic', analystScript);
    const [openaiUrl, anthropicUrl] = [await openai.listen(), await anthropic.listen()];
    const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp(path.join(process.env.TMPDIR ?? '/tmp', 'llm-agent-')));
    await writeFile(path.join(dir, 'slow.mjs'), SLOW_AGENT);
    await writeFile(path.join(dir, 'asker.mjs'), ASKER_AGENT);
    const llm = { instructions: 'You help analysts. Use table-expert for numbers; never invent figures.', tools: ['table-expert', 'echo', 'slow', 'asker'], price: { perPromptToken: 0.001, perCompletionToken: 0.002 } };
    s = await startTestServer(
      {
        auth: {
          mode: 'required',
          apiKeys: [
            { key: ALICE, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools', 'echo:use'] },
            { key: BOB, subject: 'bob', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] },
          ],
        },
        usage: { flushIntervalMs: 10 },
        agents: [
          { id: 'analyst', llm: { provider: 'openai', baseUrl: openaiUrl, model: 'gpt-scripted', apiKey: 'sk-openai-secret', ...llm } },
          { id: 'analyst-claude', llm: { provider: 'anthropic', baseUrl: anthropicUrl, model: 'claude-scripted', apiKey: 'sk-ant-secret', ...llm } },
          { id: 'table-expert', builtin: 'table-expert' },
          { id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['echo:use'] } } },
          { id: 'slow', module: path.join(dir, 'slow.mjs') },
          { id: 'asker', module: path.join(dir, 'asker.mjs') },
        ],
      },
      { keepData: true },
    );
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    await openai?.close();
    await anthropic?.close();
  });

  const auth = (key = ALICE) => ({ 'x-api-key': key });

  async function streamJsonRpc(agent: string, text: string, key = ALICE) {
    const res = await fetch(`${s.http}/a2a/${agent}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth(key) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage(text) } }),
    });
    expect(res.status).toBe(200);
    return (await readSse(res)).map((e) => e.data.result);
  }

  const answerOf = (events: any[]) =>
    events
      .filter((e) => e.artifactUpdate)
      .map((e) => e.artifactUpdate.artifact.parts.map((p: any) => p.text).join(''))
      .join('');
  const records = (events: any[]) => events.flatMap((e) => e.statusUpdate?.status.message?.parts.filter((p: any) => p.mediaType === 'application/vnd.agentport.llm-step+json').map((p: any) => p.data) ?? []);

  it.each([
    ['OpenAI Chat Completions', 'analyst', () => openai],
    ['Anthropic Messages', 'analyst-claude', () => anthropic],
  ])(
    'answers a question needing two tool calls with streamed text (%s, A2A JSON-RPC)',
    async (_name, agent, model) => {
      const before = model().requests.length;
      const events = await streamJsonRpc(agent, QUESTION);
      const last = events[events.length - 1];
      expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      // The text came in several chunks of one artifact, the last one flagged.
      const chunks = events.filter((e) => e.artifactUpdate && e.artifactUpdate.artifact.artifactId === 'response-3');
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks[0].artifactUpdate.append).toBeFalsy();
      expect(chunks.slice(1).every((c: any) => c.artifactUpdate.append === true)).toBe(true);
      expect(chunks[chunks.length - 1].artifactUpdate.lastChunk).toBe(true);
      expect(answerOf(chunks)).toBe(`There are ${ORDERS} orders in the sample.`);
      // Each tool call and result was a status update, the calls linked to their sub-tasks.
      const steps = records(events);
      const calls = steps.filter((r) => r.kind === 'tool_call');
      expect(calls.map((c) => `${c.agentId}/${c.skillId}`)).toEqual(['table-expert/ask', 'echo/echo']);
      expect(calls.every((c) => typeof c.taskId === 'string')).toBe(true);
      expect(steps.filter((r) => r.kind === 'tool_result').map((r) => r.status)).toEqual(['completed', 'completed']);
      // The model saw the tools, and got the results wrapped as data.
      const seen = model().requests.slice(before);
      expect(seen).toHaveLength(3);
      const toolNames = agent === 'analyst' ? seen[0]!.body.tools.map((t: any) => t.function.name) : seen[0]!.body.tools.map((t: any) => t.name);
      expect(toolNames).toEqual(expect.arrayContaining(['table-expert__ask', 'table-expert__query', 'echo__echo', 'slow__wait', 'ask_user']));
      const first = JSON.parse(seen[2]!.toolResults[0]!.content);
      expect(first).toMatchObject({ source: 'table-expert/ask', status: 'completed', taskId: calls[0].taskId });
      expect(JSON.parse(seen[2]!.toolResults[1]!.content).data).toContain('checked');
      if (agent === 'analyst') {
        expect(seen[0]!.headers.authorization).toBe('Bearer sk-openai-secret');
        expect(seen[0]!.body.stream_options).toEqual({ include_usage: true });
      } else {
        expect(seen[0]!.headers['x-api-key']).toBe('sk-ant-secret');
        expect(seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
      }
      // The sub-tasks are alice's: she reads them, linked to the parent task.
      const parentId = last.statusUpdate.taskId;
      for (const c of calls) {
        const sub = await rpc(`${s.http}/a2a/${c.agentId}`, 'GetTask', { id: c.taskId }, auth());
        expect(sub.body.result?.status.state, JSON.stringify(sub.body)).toBe('TASK_STATE_COMPLETED');
        expect(sub.body.result.status.state).toBe('TASK_STATE_COMPLETED');
        expect(sub.body.result.history[0].metadata['agentport/parentTaskId']).toBe(parentId);
        const other = await rpc(`${s.http}/a2a/${c.agentId}`, 'GetTask', { id: c.taskId }, auth(BOB));
        expect(other.body.error.code).toBe(-32001);
      }
    },
    60_000,
  );

  it('answers over HTTP+JSON, gRPC and MCP too', async () => {
    const rest = await fetch(`${s.http}/a2a/analyst/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth() },
      body: JSON.stringify({ message: userMessage(QUESTION) }),
    });
    const restEvents = (await readSse(rest)).map((e) => e.data);
    expect(restEvents[restEvents.length - 1].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(restEvents)).toContain(`There are ${ORDERS} orders`);

    const client = connect(Number(s.grpc.split(':').pop()));
    try {
      const { items, error } = await collect<codec.WireStreamResponse>(client.stream('SendStreamingMessage', { tenant: 'analyst', message: codec.encodeMessage(userMessage(QUESTION) as any) }, auth()));
      expect(error).toBeUndefined();
      const decoded = items.map((i) => codec.decodeStreamResponse(i)) as any[];
      expect(decoded[decoded.length - 1].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answerOf(decoded)).toContain(`There are ${ORDERS} orders`);
    } finally {
      client.close();
    }

    const mcp = await modernClient(`${s.http}/mcp`, { headers: auth() });
    try {
      const progress: unknown[] = [];
      const r = await mcp.callTool({ name: 'analyst_chat', arguments: { message: QUESTION } }, { onprogress: (p) => progress.push(p) });
      expect(r.isError).toBeFalsy();
      expect(r.content.map((c: any) => c.text).join('')).toContain(`There are ${ORDERS} orders`);
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it("a caller without a tool's scope gets the refusal inside the run", async () => {
    const before = openai.requests.length;
    const events = await streamJsonRpc('analyst', QUESTION, BOB);
    expect(events[events.length - 1].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const results = records(events).filter((r) => r.kind === 'tool_result');
    expect(results.map((r) => r.status)).toEqual(['completed', 'refused']);
    expect(results[1].taskId).toBeUndefined();
    const refusal = JSON.parse(openai.requests[before + 2]!.toolResults[1]!.content);
    expect(refusal.status).toBe('refused');
    expect(refusal.data).toMatch(/PERMISSION_DENIED|INSUFFICIENT_SCOPE/);
  }, 60_000);

  it("the model's question pauses the task in INPUT_REQUIRED and the answer continues it", async () => {
    const first = await rpc(`${s.http}/a2a/analyst`, 'SendMessage', { message: userMessage('ask me something') }, auth());
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.parts[0].text).toBe('Which year?');
    const second = await rpc(`${s.http}/a2a/analyst`, 'SendMessage', { message: userMessage('2024', { taskId: task.id }) }, auth());
    const done = second.body.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts.map((a: any) => a.parts.map((p: any) => p.text).join('')).join('')).toBe('You said: 2024');
  }, 30_000);

  it("a sub-agent's question surfaces to the caller, and the answer goes to the sub-task", async () => {
    const first = await rpc(`${s.http}/a2a/analyst`, 'SendMessage', { message: userMessage('regional revenue please') }, auth());
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.parts[0].text).toBe('Which region?');
    const waiting = task.status.message.parts[1].data;
    expect(waiting).toMatchObject({ kind: 'sub_input', agentId: 'asker' });
    const second = await rpc(`${s.http}/a2a/analyst`, 'SendMessage', { message: userMessage('EMEA', { taskId: task.id }) }, auth());
    const done = second.body.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts.map((a: any) => a.parts.map((p: any) => p.text).join('')).join('')).toBe('Got: region EMEA');
    const sub = await rpc(`${s.http}/a2a/asker`, 'GetTask', { id: waiting.taskId }, auth());
    expect(sub.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  }, 30_000);

  it('cancel stops the run and cancels the running sub-task', async () => {
    const res = await fetch(`${s.http}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth() },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('slow please') } }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let parentId: string | undefined;
    let subId: string | undefined;
    while (!subId) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
      parentId ??= /"taskId":"([^"]+)"/.exec(text)?.[1];
      subId = /"kind":"tool_call".*?"taskId":"([^"]+)"/.exec(text)?.[1];
    }
    const canceled = await rpc(`${s.http}/a2a/analyst`, 'CancelTask', { id: parentId }, auth());
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    await reader.cancel();
    for (let i = 0; ; i++) {
      const sub = await rpc(`${s.http}/a2a/slow`, 'GetTask', { id: subId }, auth());
      if (sub.body.result.status.state === 'TASK_STATE_CANCELED') break;
      if (i > 100) throw new Error(`sub-task still ${sub.body.result.status.state}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 30_000);

  it("usage records the parent's tokens and cost and the sub-tasks under the caller", async () => {
    await s.stop();
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    try {
      const groups = await store.usage.query({ groupBy: ['agent', 'subject', 'kind'], filters: { kind: ['task'] }, from: started - 1000, to: Date.now() + 60_000 });
      const row = (agent: string, subject: string) => groups.find((g) => g.key.agent === agent && g.key.subject === subject);
      // alice asked the OpenAI analyst the two-tool question over JSON-RPC, HTTP+JSON, gRPC and MCP (each
      // 100+200+300 prompt and 10+11+12 completion tokens), then the ask-me task (two calls of 100 + 20 each),
      // the sub-agent question (two calls) and the slow one (one call of 100 + 20, canceled during its tool call).
      const analyst = row('analyst', 'alice')!;
      expect(analyst.promptTokens).toBe(4 * 600 + 5 * 100);
      expect(analyst.completionTokens).toBe(4 * 33 + 5 * 20);
      expect(analyst.cost).toBeCloseTo(2900 * 0.001 + 232 * 0.002, 6);
      const claude = row('analyst-claude', 'alice')!;
      expect(claude.promptTokens).toBe(600);
      expect(claude.completionTokens).toBe(33);
      expect(claude.cost).toBeCloseTo(600 * 0.001 + 33 * 0.002, 6);
      expect(row('table-expert', 'alice')!.calls).toBeGreaterThanOrEqual(5);
      expect(row('echo', 'alice')!.calls).toBeGreaterThanOrEqual(5);
      expect(row('table-expert', 'bob')!.calls).toBe(1);
      expect(row('echo', 'bob')).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 30_000);
});
