/**
 * LLM usage an agent reports (ctx.reportUsage) lands on its task's one record, added up across
 * model calls and turns (an INPUT_REQUIRED pause and its follow-up), and is priced by the skill's
 * configured cost per call and per token; the analytics API sums it.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, rpc, type TestServer } from '../../support/server.js';
import { ROOT } from '../../support/cluster.js';

const AGENT = path.join(ROOT, 'test/fixtures/agents/usage-reporter.mjs');
const message = (text: string, extra: Record<string, unknown> = {}) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

let s: TestServer;
type Row = { id: string; kind: string; agent: string; operation: string; outcome: string; model: string | null; prompt_tokens: number; completion_tokens: number; cost: number; final: number };
let rows: Row[] = [];
let replyRows: Row[] = [];
/** every record of any kind, tasks and calls */
let allRows: Array<Row & { task_id: string | null }> = [];
let usageAnswer: { groups: Array<{ key: { outcome: string }; calls: number; promptTokens: number; completionTokens: number; cost: number }> };
const ids: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'llm', module: AGENT, skills: { answer: { cost: { perCall: 1, perPromptToken: 0.01, perCompletionToken: 0.1 } } } }] }, { keepData: true });
  const url = `${s.http}/a2a/llm`;
  ids.plain = (await rpc(url, 'SendMessage', { message: message('go') })).body.result.task.id;
  const asked = (await rpc(url, 'SendMessage', { message: message('ask') })).body.result.task;
  expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  ids.asked = asked.id;
  const answered = (await rpc(url, 'SendMessage', { message: message('the second', { taskId: asked.id, contextId: asked.contextId }) })).body.result.task;
  expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
  ids.failed = (await rpc(url, 'SendMessage', { message: message('fail') })).body.result.task.id;
  const replied = (await rpc(url, 'SendMessage', { message: message('reply') })).body.result;
  expect(replied.message?.parts).toEqual([{ text: 'a plain answer' }]);
  // Task records are committed with the tasks: the API sees them at once, no queue to wait for.
  const res = await fetch(`${s.http}/api/v1/usage?by=outcome&kind=task`);
  usageAnswer = (await res.json()) as typeof usageAnswer;
  await s.stop();
  const db = new Database(path.join(s.dataDir, 'agentport.db'), { readonly: true });
  try {
    rows = db.prepare("select * from usage_records_all where kind = 'task'").all() as Row[];
    // Written through the call queue, which the server's stop flushed (the follow-up to the asked task is a call too, with its task id).
    replyRows = db.prepare("select * from usage_records_all where kind = 'call' and operation = 'SendMessage' and task_id is null").all() as Row[];
    allRows = db.prepare('select * from usage_records_all').all() as typeof allRows;
  } finally {
    db.close();
  }
}, 60_000);

afterAll(async () => {
  if (s) await rm(s.dataDir, { recursive: true, force: true });
});

const row = (id: string) => {
  const found = rows.filter((r) => r.id === id);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('reported LLM usage', () => {
  it('adds up the model calls of one run and prices them', () => {
    expect(row(ids.plain!)).toMatchObject({ outcome: 'TASK_STATE_COMPLETED', model: 'm-1', prompt_tokens: 40, completion_tokens: 4, final: 1 });
    expect(row(ids.plain!).cost).toBeCloseTo(1 + 40 * 0.01 + 4 * 0.1, 9);
  });

  it('adds up across turns: the pause and the follow-up land on the same record, charged per call once', () => {
    const r = row(ids.asked!);
    expect(r).toMatchObject({ outcome: 'TASK_STATE_COMPLETED', model: 'm-2', prompt_tokens: 150, completion_tokens: 15, final: 1 });
    expect(r.cost).toBeCloseTo(1 + 150 * 0.01 + 15 * 0.1, 9);
  });

  // Pins: a follow-up call (the message that answers INPUT_REQUIRED) is billed on its task's row
  // only; its own call record costs nothing. Charging the call again moves the asked task's total
  // from 4.0 to 5.0 while its task row stays right, which the test above cannot see.
  it('bills a follow-up call once: the cost of every row of a task, calls included, sums to its price', () => {
    const billed = (taskId: string) => allRows.filter((r) => r.task_id === taskId).reduce((sum, r) => sum + r.cost, 0);
    // Prices from the configuration: 1 per call, 0.01 per prompt token, 0.1 per completion token.
    expect(billed(ids.plain!)).toBeCloseTo(1 + 40 * 0.01 + 4 * 0.1, 9); // 1.8
    expect(billed(ids.asked!)).toBeCloseTo(1 + 150 * 0.01 + 15 * 0.1, 9); // 4.0, over its task row and the follow-up's call row
    // The follow-up has a call record of its own (the first call's record is the task row).
    expect(allRows.filter((r) => r.task_id === ids.asked && r.kind === 'call')).toHaveLength(1);
    expect(billed(ids.plain!) + billed(ids.asked!)).toBeCloseTo(5.8, 9);
    // Over the whole table: the four runs (plain, asked, failed, the message reply), each charged one call.
    const total = allRows.reduce((sum, r) => sum + r.cost, 0);
    expect(total).toBeCloseTo(1.8 + 4.0 + (1 + 7 * 0.01) + (1 + 31 * 0.01 + 4 * 0.1), 9);
  });

  it('a failed task keeps what it spent', () => {
    expect(row(ids.failed!)).toMatchObject({ outcome: 'TASK_STATE_FAILED', prompt_tokens: 7, completion_tokens: 0 });
  });

  it('a run that answers with a message and no task is billed on the call record, reports after the answer included', () => {
    expect(replyRows).toHaveLength(1);
    expect(replyRows[0]).toMatchObject({ agent: 'llm', outcome: 'OK', model: 'm-1', prompt_tokens: 31, completion_tokens: 4 });
    expect(replyRows[0]!.cost).toBeCloseTo(1 + 31 * 0.01 + 4 * 0.1, 9);
  });

  it('the analytics API sums tokens and cost per outcome', () => {
    const completed = usageAnswer.groups.find((g) => g.key.outcome === 'TASK_STATE_COMPLETED');
    expect(completed).toMatchObject({ calls: 2, promptTokens: 190, completionTokens: 19 });
    expect(completed!.cost).toBeCloseTo(2 + 190 * 0.01 + 19 * 0.1, 6);
  });
});
