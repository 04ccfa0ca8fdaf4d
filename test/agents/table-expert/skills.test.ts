/**
 * describe, search, fetch and query over A2A (real HTTP), the message shapes that select them,
 * and the sample: generated on first use only, deterministic, profiles matching the generated rows.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRetailSample } from '../../../src/agents/table-expert/sample/retail.js';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { expectRows, send, startTableExpert } from './helpers.js';
import { count, customerById, groupBy, lines, orderRow, revenue, sample } from './retail-facts.js';

describe('Table Expert skills over A2A (retail sample)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTableExpert();
  });
  afterAll(async () => s?.stop());

  it('writes the sample on the first message, not at server start', async () => {
    const dir = `${s.dataDir}/table-expert/sample`;
    expect(existsSync(dir)).toBe(false);
    const card = await (await fetch(`${s.http}/a2a/table-expert/.well-known/agent-card.json`)).json();
    expect(card.skills.map((k: any) => k.id)).toEqual(['ask', 'describe', 'search', 'fetch', 'query']);
    expect(existsSync(dir)).toBe(false);
    await send(s, { skill: 'describe' });
    expect(existsSync(`${dir}/orders.parquet`)).toBe(true);
  });

  it('describe: row counts, keys, relations and column profiles that match the generated rows', async () => {
    const r = await send(s, { skill: 'describe' });
    expect(r.state).toBe('TASK_STATE_COMPLETED');
    const tables = Object.fromEntries(r.data.tables.map((t: any) => [t.name, t]));
    expect(tables.orders.rowCount).toBe(sample.orders.length);
    expect(tables.order_lines.rowCount).toBe(sample.order_lines.length);
    expect(tables.customers.key).toEqual(['customer_id']);
    expect(tables.order_lines.key).toBeUndefined();
    const status = tables.orders.columns.find((c: any) => c.name === 'status');
    expect(status).toMatchObject({ type: 'VARCHAR', nullCount: 0, distinctCount: 4, min: 'cancelled', max: 'returned' });
    const expectedTop = groupBy(
      sample.orders,
      (o) => o.status,
      (x) => x.length,
    ).sort((a, b) => b[1] - a[1]);
    expect(status.topValues).toEqual(expectedTop.map(([value, n]) => ({ value, count: n })));
    const date = tables.orders.columns.find((c: any) => c.name === 'order_date');
    expect([date.min, date.max]).toEqual(['2023-01-01', '2024-12-31']);
    expect(tables.orders.columns.find((c: any) => c.name === 'customer_id').distinctCount).toBe(new Set(sample.orders.map((o) => o.customer_id)).size);
    expect(r.data.relations).toContainEqual({ from: { table: 'orders', column: 'customer_id' }, to: { table: 'customers', column: 'customer_id' } });
    expect(r.text).toContain('### orders');
    const one = await send(s, '/describe products');
    expect(one.data.tables.map((t: any) => t.name)).toEqual(['products']);
    const missing = await send(s, { skill: 'describe', table: 'nope' });
    expect(missing.state).toBe('TASK_STATE_FAILED');
    expect(missing.statusData.error.code).toBe('not_found');
  });

  it('search: rows, columns and tables, ranked, with the same ids every time', async () => {
    const a = await send(s, { skill: 'search', query: 'Berlin', limit: 50 });
    const berlin = sample.customers.filter((c) => c.city === 'Berlin');
    const rowHits = a.data.results.filter((h: any) => h.kind === 'row');
    expect(rowHits.length).toBe(Math.min(berlin.length, 20));
    for (const h of rowHits) expect(customerById.get(Number(h.id.split('=')[1]))!.city).toBe('Berlin');
    const b = await send(s, '/search Berlin');
    expect(b.data.results.map((h: any) => h.id)).toEqual(a.data.results.slice(0, 10).map((h: any) => h.id));
    const column = await send(s, { skill: 'search', query: 'status' });
    expect(column.data.results[0]).toMatchObject({ id: 'column:orders.status', kind: 'column' });
    const table = await send(s, { skill: 'search', query: 'orders' });
    expect(table.data.results[0]).toMatchObject({ id: 'table:orders', kind: 'table' });
    const none = await send(s, { skill: 'search', query: 'zzqqxx' });
    expect(none.data.results).toEqual([]);
  });

  it('fetch: a table preview, a column profile, a row by key, a row by hash, a saved result', async () => {
    const t = await send(s, { skill: 'fetch', id: 'table:orders' });
    expect(t.data.kind).toBe('table');
    expect(t.data.preview.rows).toHaveLength(10);
    expect(t.data.table.rowCount).toBe(sample.orders.length);
    const c = await send(s, '/fetch column:orders.channel');
    expect(c.data.column.distinctCount).toBe(3);
    const row = await send(s, { skill: 'fetch', id: 'row:orders:order_id=42' });
    expect(Object.values(row.data.row)).toEqual(orderRow(sample.orders[41]!));
    // order_lines has no key: its rows are found and fetched by content hash
    const product = sample.products[0]!;
    const hits = await send(s, { skill: 'search', query: product.name, limit: 100 });
    const productHit = hits.data.results.find((h: any) => h.id.startsWith('row:products:'));
    expect(productHit.id).toBe(`row:products:product_id=${product.product_id}`);
    const hashed = await send(s, { skill: 'query', sql: 'SELECT md5(CAST(to_json(x) AS VARCHAR)) AS h FROM order_lines AS x LIMIT 1' });
    const byHash = await send(s, { skill: 'fetch', id: `row:order_lines:h${hashed.data.rows[0][0]}` });
    expect(byHash.data.row.order_id).toBe(sample.order_lines[0]!.order_id);
    const asked = await send(s, 'Total revenue by channel');
    const saved = await send(s, { skill: 'fetch', id: asked.data.resultId });
    expect(saved.data.kind).toBe('result');
    expect(saved.data.rows).toEqual(asked.data.rows);
    const found = await send(s, { skill: 'search', query: 'revenue channel' });
    expect(found.data.results.map((h: any) => h.id)).toContain(asked.data.resultId);
    for (const id of ['table:nope', 'row:orders:order_id=999999', 'result:0000000000000000', 'garbage']) {
      const missing = await send(s, { skill: 'fetch', id });
      expect(missing.state, id).toBe('TASK_STATE_FAILED');
      expect(missing.statusData.error.code, id).toBe('not_found');
    }
  });

  it('query: rows, types, the row limit, and a saved result id', async () => {
    const r = await send(s, { skill: 'query', sql: 'SELECT channel, sum(amount) AS revenue FROM order_lines JOIN orders USING (order_id) GROUP BY 1 ORDER BY 1' });
    expect(r.data.columns).toEqual([
      { name: 'channel', type: 'VARCHAR' },
      { name: 'revenue', type: 'DECIMAL(38,2)' },
    ]);
    expectRows(
      r.data.rows,
      groupBy(lines, (l) => l.order.channel, revenue).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      'revenue by channel',
    );
    expect(r.data.resultId).toMatch(/^result:/);
    const limited = await send(s, { skill: 'query', sql: 'SELECT * FROM order_lines', maxRows: 7 });
    expect(limited.data.rowCount).toBe(7);
    expect(limited.data.truncated).toBe(true);
    expect(limited.text).toContain('row limit');
    const failed = await send(s, { skill: 'query', sql: 'SELECT no_such_column FROM orders' });
    expect(failed.state).toBe('TASK_STATE_FAILED');
    expect(failed.statusData.error.code).toBe('query_sql_error');
    expect(failed.text).toContain('no_such_column');
    const count2024 = await send(s, '/sql SELECT count(*) FROM orders WHERE year(order_date) = 2024');
    expect(count2024.data.rows).toEqual([[count(sample.orders, (o) => o.order_date.startsWith('2024'))]]);
  });

  it('rejects messages that name no skill or a malformed one, saying what is expected', async () => {
    const unknown = await send(s, { skill: 'drop' });
    expect(unknown.state).toBe('TASK_STATE_REJECTED');
    expect(unknown.text).toContain('describe, search, fetch, query, ask');
    const missing = await send(s, { skill: 'query' });
    expect(missing.text).toMatch(/^data\.sql/);
    const empty = await rpc(`${s.http}/a2a/table-expert`, 'SendMessage', { message: { ...userMessage(''), parts: [{ text: '   ' }] } });
    expect(empty.body.result.task.status.state).toBe('TASK_STATE_REJECTED');
    const slash = await send(s, '/fetch');
    expect(slash.state).toBe('TASK_STATE_REJECTED');
  });

  it('streams the answer: WORKING, then the artifact, then COMPLETED', async () => {
    const res = await fetch(`${s.http}/a2a/table-expert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('Orders by year') } }),
    });
    const text = await res.text();
    const events = text
      .split('\n\n')
      .map((b) => b.split('\n').find((l) => l.startsWith('data: ')))
      .filter(Boolean)
      .map((l) => JSON.parse(l!.slice(6)).result);
    const kinds = events.map((e) => Object.keys(e)[0]);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.some((e) => e.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
  });
});

describe('cancelling a task', () => {
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'te-cancel-'));
  beforeAll(async () => {
    writeFileSync(path.join(dir, 'tiny.csv'), 'a\n1\n');
    // one statement at a time and a long time limit: only the interrupt can free the slot quickly
    s = await startTableExpert({ datasets: [{ name: 'tiny', path: path.join(dir, 'tiny.csv') }], limits: { timeoutMs: '60s', maxConcurrentQueries: 1 } });
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('interrupts its running statement', async () => {
    const url = `${s.http}/a2a/table-expert`;
    const started = await rpc(url, 'SendMessage', {
      message: { ...userMessage(''), parts: [{ data: { skill: 'query', sql: 'SELECT count(*) FROM range(1000000) a, range(1000000) b' } }] },
      configuration: { returnImmediately: true },
    });
    const id = started.body.result.task.id;
    await new Promise((r) => setTimeout(r, 200));
    const canceled = await rpc(url, 'CancelTask', { id });
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const t0 = Date.now();
    const next = await send(s, { skill: 'query', sql: 'SELECT count(*) AS n FROM tiny' });
    expect(next.data.rows).toEqual([[1]]);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe('the retail sample', () => {
  it('is the same for the same seed and differs for another', () => {
    const a = generateRetailSample();
    const b = generateRetailSample();
    expect(b).toEqual(a);
    expect(generateRetailSample(7).orders.slice(0, 50)).not.toEqual(a.orders.slice(0, 50));
  });

  it('has tens of thousands of rows over two years', () => {
    expect(sample.customers.length).toBe(2000);
    expect(sample.products.length).toBe(120);
    expect(sample.orders.length).toBe(20000);
    expect(sample.order_lines.length).toBeGreaterThan(40000);
    expect(sample.orders[0]!.order_date).toBe('2023-01-01');
    expect(sample.orders.at(-1)!.order_date).toBe('2024-12-31');
  });
});
