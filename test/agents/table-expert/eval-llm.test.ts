/**
 * The evaluation through the model path: a real loopback server speaking the OpenAI chat
 * protocol plays a model that writes each question's gold SQL (with a one-line reading), except
 * where the script says otherwise — a forbidden statement first (the guard refuses it and the
 * repair loop asks again), a broken one first (DuckDB's error goes back), a clarifying question
 * (ask_user → ASKED), and a wrong statement (which the judge must catch: WRONG). Every answer
 * carries the "Read as" line.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVAL_SET } from './eval/question-set.js';
import { openEvalSession, type EvalSession } from './eval/run-eval.js';
import type { EvalQuestion } from './eval/types.js';
import { send, startTableExpert } from './helpers.js';

const picked = [...EVAL_SET.filter((q) => q.dataset === 'retail' && !q.previous.length).slice(0, 14), ...EVAL_SET.filter((q) => q.dataset === 'support' && !q.previous.length).slice(0, 8)];
const [forbiddenFirst, brokenFirst, asks, wrong] = [picked[1]!, picked[4]!, picked[6]!, picked[15]!];

/** A model that knows the gold SQL: the test is about the path around it, not the model. */
function scriptedModel(set: readonly EvalQuestion[]) {
  const requests: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push(body);
      const reply = (message: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
      if (!body.tools) return reply({ role: 'assistant', content: 'Scripted summary.' });
      const users = body.messages.filter((m: any) => m.role === 'user');
      const question = String(users[0].content).split('\n(Clarified:')[0];
      const q = set.find((x) => x.question === question);
      const errors = body.messages.filter((m: any) => m.role === 'tool' && String(m.content).startsWith('ERROR')).length;
      const tool = (name: string, args: object) => reply({ role: 'assistant', content: null, tool_calls: [{ id: `call_${requests.length}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
      if (!q) return reply({ role: 'assistant', content: 'These tables cannot answer that.' });
      if (q === asks && !String(users[0].content).includes('Clarified'))
        return tool('ask_user', { question: 'Did you mean total revenue per month, or the largest single order?', choices: ['total revenue per month', 'the largest single order'] });
      if (q === forbiddenFirst && errors === 0) return tool('run_sql', { sql: 'DROP TABLE orders', reading: 'a mistake' });
      if (q === brokenFirst && errors === 0) return tool('run_sql', { sql: 'SELECT no_such_column FROM orders', reading: 'a typo' });
      const sql = q === wrong ? `SELECT * FROM (${q.gold}) AS g LIMIT 0` : q.gold;
      return tool('run_sql', { sql, reading: `scripted reading of "${q.question}"` });
    });
  });
  return {
    requests,
    listen: () => new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('the evaluation through the model path (scripted OpenAI-compatible server)', { timeout: 60_000 }, () => {
  const model = scriptedModel(EVAL_SET);
  const model2 = scriptedModel(EVAL_SET);
  let session: EvalSession;
  beforeAll(async () => {
    const baseUrl = await model.listen();
    session = await openEvalSession({ llm: { baseUrl, model: 'scripted-sql-1', stream: false, maxRepairs: 2 } });
  });
  afterAll(async () => {
    await session?.close();
    await model.close();
  });

  it('classifies each answer with the same judge; the guard and the repair loop run; every answer says how it was read', async () => {
    const results = await session.run(picked);
    const by = new Map(results.map((r) => [r.q, r]));
    expect(by.get(asks)!.verdict).toBe('ASKED');
    expect(by.get(asks)!.detail).toContain('total revenue per month');
    expect(by.get(wrong)!.verdict).toBe('WRONG');
    for (const r of results.filter((x) => x.q !== asks && x.q !== wrong)) {
      expect(r.verdict, `${r.q.id} ${r.q.question}: ${r.detail}`).toBe('CORRECT');
      expect(r.source).toBe('llm');
      expect(r.readAs).toBe(`Read as: scripted reading of "${r.q.question}".`);
    }
    expect(by.get(forbiddenFirst)!.attempts).toBe(2);
    expect(by.get(brokenFirst)!.attempts).toBe(2);
    const toolResults = model.requests.flatMap((b) => b.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content)));
    expect(toolResults.some((t) => t.startsWith('ERROR: rejected by the guard'))).toBe(true);
    expect(toolResults.some((t) => t.startsWith('ERROR: DuckDB error'))).toBe(true);
    expect(model.requests.find((b) => b.tools)!.tools.map((t: any) => t.function.name)).toEqual(['run_sql', 'ask_user']);
  });

  it('over A2A: the model asks (INPUT_REQUIRED with its choices), the reply resumes the task, and the answer says how it was read', async () => {
    const baseUrl = await model2.listen();
    const server = await startTableExpert({ llm: { baseUrl, model: 'scripted-sql-1', stream: false } });
    try {
      const first = await send(server, asks.question);
      expect(first.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(first.statusData.clarify.choices.map((c: any) => c.label)).toEqual(['total revenue per month', 'the largest single order']);
      const done = await send(server, '1', { taskId: first.task.id });
      expect(done.state, done.text).toBe('TASK_STATE_COMPLETED');
      expect(done.text.split('\n')[0]).toBe(`Read as: scripted reading of "${asks.question}".`);
      expect(done.data.interpretation).toBe(`scripted reading of "${asks.question}"`);
      const clarified = model2.requests
        .filter((b) => b.tools)
        .at(-1)!
        .messages.find((m: any) => m.role === 'user').content;
      expect(clarified).toContain('→ total revenue per month');
    } finally {
      await server.stop();
      await model2.close();
    }
  });
});
