/**
 * The LLM path of `ask` against a real HTTP server on loopback that speaks OpenAI chat
 * completions (tool calling, streamed and not) with scripted replies: the model's SQL goes through
 * the guard, rejections and errors go back to it as tool results, repairs are bounded, and a
 * model that is down leaves the built-in planner to answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { expectRows, send, startTableExpert } from './helpers.js';
import { byValue, groupBy, lines, revenue, sample } from './retail-facts.js';

type Scripted = { sql: string } | { text: string } | { status: number };

/** An OpenAI-compatible endpoint that plays back scripted replies and records every request. */
class ScriptedModel {
  /** what every reply says it cost */
  static readonly USAGE = { prompt_tokens: 120, completion_tokens: 15, total_tokens: 135 };
  readonly requests: Array<{ body: any; headers: http.IncomingHttpHeaders; url: string }> = [];
  script: Scripted[] = [];
  summary = 'The model says: here is the answer.';
  private server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      this.requests.push({ body, headers: req.headers, url: req.url ?? '' });
      // the summarising call offers no tools
      const next: Scripted = body.tools ? (this.script.shift() ?? { text: 'I have nothing scripted.' }) : { text: this.summary };
      if ('status' in next) {
        res.writeHead(next.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure' } }));
        return;
      }
      const id = `call_${this.requests.length}`;
      const args = 'sql' in next ? JSON.stringify({ sql: next.sql }) : '';
      if (!body.stream) {
        const message = 'sql' in next ? { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'run_sql', arguments: args } }] } : { role: 'assistant', content: next.text };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', model: 'scripted-1', choices: [{ index: 0, message, finish_reason: 'sql' in next ? 'tool_calls' : 'stop' }], usage: ScriptedModel.USAGE }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finish: string | null = null) => res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant' });
      if ('sql' in next) {
        // arguments arrive in pieces, as real servers send them
        chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'run_sql', arguments: '' } }] });
        for (let i = 0; i < args.length; i += 7) chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 7) } }] });
        chunk({}, 'tool_calls');
      } else {
        for (const piece of next.text.match(/.{1,5}/gs) ?? []) chunk({ content: piece });
        chunk({}, 'stop');
      }
      // As OpenAI does when asked (stream_options.include_usage): a last chunk with no choices.
      if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'scripted-1', choices: [], usage: ScriptedModel.USAGE })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  reset(script: Scripted[]): void {
    this.requests.length = 0;
    this.script = [...script];
  }
  /** the tool results the agent sent back, in order */
  toolResults(): string[] {
    const last = this.requests.filter((r) => r.body.tools).at(-1);
    return (last?.body.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => m.content);
  }
}

const GOOD = 'SELECT p.category, sum(l.amount) AS revenue FROM order_lines l JOIN products p USING (product_id) GROUP BY 1 ORDER BY 2 DESC';
const expected = () => byValue(groupBy(lines, (l) => l.product.category, revenue)).map(([k, v]) => [k, v]);

describe('ask with an OpenAI-compatible model (streamed tool calls)', () => {
  const model = new ScriptedModel();
  let s: TestServer;
  beforeAll(async () => {
    const baseUrl = await model.listen();
    s = await startTableExpert({ llm: { baseUrl, model: 'sql-writer-1', apiKey: 'sk-test-123', maxRepairs: 2 } });
  });
  afterAll(async () => {
    await s?.stop();
    await model.close();
  });
  beforeEach(() => model.reset([]));

  it('runs the SQL the model writes, with the schema as context, and adds the model’s summary', async () => {
    model.reset([{ sql: GOOD }]);
    const r = await send(s, 'Which categories bring the most revenue?');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expect(r.data.source).toBe('llm');
    expect(r.sql).toBe(GOOD);
    expectRows(r.data.rows, expected(), 'model SQL');
    expect(r.text).toContain('The model says: here is the answer.');
    expect(r.chart.mark.type).toBe('bar');
    const first = model.requests[0]!;
    expect(first.url).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer sk-test-123');
    expect(first.body).toMatchObject({ model: 'sql-writer-1', stream: true, temperature: 0 });
    expect(first.body.tools[0].function.name).toBe('run_sql');
    const system = first.body.messages[0].content as string;
    expect(system).toContain('- orders (20000 rows');
    expect(system).toContain('customer_id INTEGER — references customers.customer_id');
    expect(system).toContain('status VARCHAR — values: completed, cancelled, returned, pending');
    expect(first.body.messages.at(-1)).toEqual({ role: 'user', content: 'Which categories bring the most revenue?' });
    // the summarising call sees the result as the tool's answer
    const summarising = model.requests[1]!;
    expect(summarising.body.tools).toBeUndefined();
    expect(JSON.parse(summarising.body.messages.find((m: any) => m.role === 'tool').content).rows[0][0]).toBe(expected()[0]![0]);
  });

  it('sends a forbidden statement back as a guard rejection, then runs the repaired one', async () => {
    model.reset([{ sql: "SELECT * FROM read_csv('/etc/passwd')" }, { sql: 'DROP TABLE orders' }, { sql: GOOD }]);
    const r = await send(s, 'Revenue per category please');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expectRows(r.data.rows, expected(), 'repaired');
    const feedback = model.toolResults();
    expect(feedback[0]).toMatch(/^ERROR: rejected by the guard: read_csv\("\/etc\/passwd"\) reads outside the declared datasets/);
    expect(feedback[1]).toMatch(/^ERROR: rejected by the guard: only a SELECT/);
    expect(r.data.attempts.map((a: any) => Boolean(a.error))).toEqual([true, true, false]);
    const count = await send(s, { skill: 'query', sql: 'SELECT count(*) FROM orders' });
    expect(count.data.rows).toEqual([[sample.orders.length]]);
  });

  it('sends a broken statement’s DuckDB error back, then runs the repaired one', async () => {
    model.reset([{ sql: 'SELECT category, sum(amount) FROM products GROUP BY 1' }, { sql: GOOD }]);
    const r = await send(s, 'Revenue by category');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expect(model.toolResults()[0]).toMatch(/^ERROR: DuckDB error: .*amount/);
    expect(r.data.attempts).toHaveLength(2);
  });

  it('gives up after maxRepairs repairs, says why, and asks the model no more', async () => {
    model.reset([{ sql: 'SELECT nope FROM orders' }, { sql: 'SELECT still_nope FROM orders' }, { sql: 'DELETE FROM orders' }, { sql: GOOD }]);
    const r = await send(s, 'Revenue by category');
    expect(r.state).toBe('TASK_STATE_REJECTED');
    expect(r.text).toContain('did not run after 3 attempts');
    expect(r.text).toContain('rejected by the guard');
    expect(model.requests).toHaveLength(3);
    expect(r.statusData.attempts).toHaveLength(3);
  });

  it('declines a model answer whose shape does not fit the question: many rows for one number, one bare figure for "by category"', async () => {
    model.reset([{ sql: "SELECT order_id FROM orders WHERE status = 'cancelled'" }]);
    const many = await send(s, 'How many orders were cancelled?');
    expect(many.state, many.text).toBe('TASK_STATE_REJECTED');
    expect(many.text).toMatch(/asks for one number, but the query I could write returns \d+ rows/);
    model.reset([{ sql: 'SELECT sum(amount) FROM order_lines' }]);
    const bare = await send(s, 'Revenue by category');
    expect(bare.state, bare.text).toBe('TASK_STATE_REJECTED');
    expect(bare.text).toContain('asks for figures by category, but the query I could write returns one figure');
    // the same shapes where they fit are answered
    model.reset([{ sql: "SELECT count(*) FROM orders WHERE status = 'cancelled'" }]);
    const one = await send(s, 'How many orders were cancelled?');
    expect(one.state, one.text).toBe('TASK_STATE_COMPLETED');
    expect(one.data.rows).toEqual([[sample.orders.filter((o) => o.status === 'cancelled').length]]);
  });

  it('takes a ```sql block from a model without tool calls', async () => {
    model.reset([{ text: `Here you go:\n\`\`\`sql\n${GOOD}\n\`\`\`` }]);
    const r = await send(s, 'Revenue by category');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expectRows(r.data.rows, expected(), 'fenced');
  });

  it('passes on the model’s refusal when it writes no SQL', async () => {
    model.reset([{ text: 'These tables have no weather data.' }]);
    const r = await send(s, 'Will it rain in Berlin?');
    expect(r.state).toBe('TASK_STATE_REJECTED');
    expect(r.text).toContain('These tables have no weather data.');
  });

  it('sends the previous question and its SQL when a follow-up comes in the same context', async () => {
    const contextId = `llm-${Date.now()}`;
    model.reset([{ sql: GOOD }, { sql: `${GOOD.replace(' GROUP BY', " WHERE p.category <> 'Books' GROUP BY")}` }]);
    await send(s, 'Revenue by category', { contextId });
    const r = await send(s, 'now without books', { contextId });
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    const msgs = model.requests.filter((q) => q.body.tools).at(-1)!.body.messages;
    expect(msgs[1]).toEqual({ role: 'user', content: 'Revenue by category' });
    expect(msgs[2].content).toContain(GOOD);
    expect(r.data.rows.map((x: any[]) => x[0])).not.toContain('Books');
  });

  it('answers with the built-in planner when the model endpoint fails', async () => {
    model.reset([{ status: 500 }]);
    const r = await send(s, 'Total revenue by category');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expect(r.data.source).toBe('planner');
    expectRows(r.data.rows, expected(), 'planner fallback');
    const forced = await send(s, { skill: 'ask', question: 'Total revenue by category', mode: 'planner' });
    expect(forced.data.source).toBe('planner');
    expect(model.requests).toHaveLength(1);
  });

  it('fails (no fallback) when the model is required and down', async () => {
    model.reset([{ status: 503 }]);
    const r = await send(s, { skill: 'ask', question: 'Revenue by category', mode: 'llm' });
    expect(r.state).toBe('TASK_STATE_FAILED');
    expect(r.statusData.error.code).toBe('model_unavailable');
    expect(r.text).toContain('HTTP 503');
    expect(r.text).not.toContain('sk-test-123');
  });
});

describe('ask with a non-streaming, Azure-style endpoint', () => {
  const model = new ScriptedModel();
  let s: TestServer;
  beforeAll(async () => {
    const baseUrl = await model.listen();
    s = await startTableExpert({ llm: { baseUrl: `${baseUrl}/deployments/gpt`, model: 'gpt', apiKey: 'azure-key', apiKeyHeader: 'api-key', apiVersion: '2024-06-01', stream: false } });
  });
  afterAll(async () => {
    await s?.stop();
    await model.close();
  });

  it('uses the api-key header, the api-version query and a JSON reply', async () => {
    model.reset([{ sql: 'SELECT count(*) AS n FROM orders' }]);
    const r = await send(s, 'How many orders?');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expect(r.data.rows).toEqual([[sample.orders.length]]);
    expect(model.requests[0]!.url).toBe('/v1/deployments/gpt/chat/completions?api-version=2024-06-01');
    expect(model.requests[0]!.headers['api-key']).toBe('azure-key');
    expect(model.requests[0]!.headers.authorization).toBeUndefined();
    expect(model.requests[0]!.body.stream).toBe(false);
  });
});
