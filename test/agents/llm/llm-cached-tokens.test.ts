/**
 * Prompt caching in usage: the tokens a provider served from its prompt cache (OpenAI
 * `prompt_tokens_details.cached_tokens`; Anthropic `cache_read_input_tokens`) are a part of the
 * prompt tokens, recorded on the task's usage record and summed by the usage API, and priced at
 * `perCachedPromptToken`; Anthropic's cache writes (`cache_creation_input_tokens`) at
 * `perCacheWriteToken`; a price table without those prices charges them as prompt tokens.
 */
import Database from 'better-sqlite3';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { ScriptedModel } from './scripted-models.js';

const PRICE = { perPromptToken: 0.01, perCompletionToken: 0.03, perCachedPromptToken: 0.001, perCacheWriteToken: 0.0125 };
const STEP = 'application/vnd.agentport.llm-step+json';

let openai: ScriptedModel;
let anthropic: ScriptedModel;
let s: TestServer;
const tasks: Record<string, any> = {};
let rows: Array<{ agent: string; prompt_tokens: number; completion_tokens: number; cached_tokens: number; cost: number }> = [];
let api: { groups: Array<{ key: { agent: string }; promptTokens: number; completionTokens: number; cachedTokens: number; cost: number }> };

beforeAll(async () => {
  // Two model calls each: a tool call, then the answer; the second call finds more of its prompt cached.
  const script = (r: { toolResults: unknown[] }) =>
    r.toolResults.length === 0
      ? { toolCalls: [{ name: 'echo__echo', arguments: { request: 'x' } }], promptTokens: 1000, completionTokens: 40, cachedTokens: 600, cacheWriteTokens: 300 }
      : { text: 'done', promptTokens: 1200, completionTokens: 10, cachedTokens: 900 };
  openai = new ScriptedModel('openai', script);
  anthropic = new ScriptedModel('anthropic', script);
  const [openaiUrl, anthropicUrl] = [await openai.listen(), await anthropic.listen()];
  const llm = { instructions: 'Use echo once.', tools: ['echo'] };
  s = await startTestServer(
    {
      agents: [
        { id: 'gpt', llm: { provider: 'openai', baseUrl: openaiUrl, model: 'gpt-scripted', price: PRICE, ...llm } },
        { id: 'claude', llm: { provider: 'anthropic', baseUrl: anthropicUrl, model: 'claude-scripted', price: PRICE, ...llm } },
        { id: 'claude-plain-price', llm: { provider: 'anthropic', baseUrl: anthropicUrl, model: 'claude-scripted', price: { perPromptToken: 0.01, perCompletionToken: 0.03 }, ...llm } },
        { id: 'echo', builtin: 'echo' },
      ],
    },
    { keepData: true },
  );
  for (const agent of ['gpt', 'claude', 'claude-plain-price']) {
    tasks[agent] = (await rpc(`${s.http}/a2a/${agent}`, 'SendMessage', { message: userMessage('go') })).body.result.task;
  }
  api = (await (await fetch(`${s.http}/api/v1/usage?by=agent&kind=task`)).json()) as typeof api;
  await s.stop();
  const db = new Database(path.join(s.dataDir, 'agentport.db'), { readonly: true });
  try {
    rows = db.prepare("select agent, prompt_tokens, completion_tokens, cached_tokens, cost from usage_records_all where kind = 'task' and agent != 'echo'").all() as typeof rows;
  } finally {
    db.close();
  }
}, 60_000);

afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
  if (s) await rm(s.dataDir, { recursive: true, force: true });
});

const rowOf = (agent: string) => {
  const found = rows.filter((r) => r.agent === agent);
  expect(found).toHaveLength(1);
  return found[0]!;
};

it('each model call step shows its cached prompt tokens', () => {
  for (const agent of ['gpt', 'claude']) {
    expect(tasks[agent].status.state).toBe('TASK_STATE_COMPLETED');
    const usages = tasks[agent].history.flatMap((m: any) => m.parts.filter((p: any) => p.mediaType === STEP && p.data.kind === 'model').map((p: any) => p.data.usage));
    expect(usages.map((u: any) => [u.promptTokens, u.cachedTokens])).toEqual([
      [1000, 600],
      [1200, 900],
    ]);
  }
});

it("OpenAI: cached tokens on the task's record, priced at perCachedPromptToken", () => {
  const row = rowOf('gpt');
  expect([row.prompt_tokens, row.completion_tokens, row.cached_tokens]).toEqual([2200, 50, 1500]);
  // OpenAI reports no cache writes: the uncached rest of the prompt is at the prompt price.
  expect(row.cost).toBeCloseTo((2200 - 1500) * 0.01 + 1500 * 0.001 + 50 * 0.03, 9);
});

it("Anthropic: cache reads and writes, each at its price; the record's prompt tokens hold both", () => {
  const row = rowOf('claude');
  expect([row.prompt_tokens, row.completion_tokens, row.cached_tokens]).toEqual([2200, 50, 1500]);
  const uncached = 2200 - 1500 - 300;
  expect(row.cost).toBeCloseTo(uncached * 0.01 + 1500 * 0.001 + 300 * 0.0125 + 50 * 0.03, 9);
});

it('without cache prices, cached tokens cost what prompt tokens cost', () => {
  const row = rowOf('claude-plain-price');
  expect(row.cached_tokens).toBe(1500);
  expect(row.cost).toBeCloseTo(2200 * 0.01 + 50 * 0.03, 9);
});

it('the usage API sums cached tokens per agent', () => {
  const byAgent = Object.fromEntries(api.groups.map((g) => [g.key.agent, g]));
  expect(byAgent.gpt).toMatchObject({ promptTokens: 2200, completionTokens: 50, cachedTokens: 1500 });
  expect(byAgent.claude).toMatchObject({ promptTokens: 2200, cachedTokens: 1500 });
  expect(byAgent.echo).toMatchObject({ cachedTokens: 0 });
});
