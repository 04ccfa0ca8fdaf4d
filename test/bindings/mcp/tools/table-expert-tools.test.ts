import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { byValue, customerById, groupBy, lines, orderById, revenue, sample } from '../../../agents/table-expert/retail-facts.js';
import { legacyClient, modernClient } from '../clients.js';

type Client = Awaited<ReturnType<typeof modernClient>>;
const json = (r: any) => JSON.parse(r.content[0].text);

describe('Table Expert over MCP: search, fetch, query_table_expert on the sample', () => {
  let s: TestServer;
  let c: Client;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'table-expert', builtin: 'table-expert' },
      ],
    });
    c = await modernClient(`${s.http}/mcp`);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await s?.stop();
  });

  it('lists search, fetch and query_table_expert as read-only tools next to the agent tools', async () => {
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['search', 'fetch', 'query_table_expert', 'echo_echo', 'table-expert_ask']) expect(names).toContain(n);
    for (const n of ['search', 'fetch', 'query_table_expert']) {
      const t = tools.find((x) => x.name === n)!;
      expect(t.annotations?.readOnlyHint, n).toBe(true);
      expect(t.inputSchema.additionalProperties, n).toBe(false);
    }
  });

  it('search accepts limit (1-100): at most that many results; out of range is an invalid-params answer', async () => {
    const all = json(await c.callTool({ name: 'search', arguments: { query: 'Berlin' } }));
    expect(all.results.length).toBeGreaterThan(2);
    const two: any = await c.callTool({ name: 'search', arguments: { query: 'Berlin', limit: 2 } });
    expect(two.isError).toBeFalsy();
    expect(json(two).results).toEqual(all.results.slice(0, 2));
    const bad = await c.callTool({ name: 'search', arguments: { query: 'Berlin', limit: 0 } }).then(
      (r: any) => ({ isError: r.isError as boolean | undefined }),
      (e: { code?: number }) => ({ code: e.code }),
    );
    expect(bad).not.toEqual({ isError: false });
    expect(bad).not.toEqual({ isError: undefined });
  });

  it('search returns {results: [{id, title, url}]} as one JSON text item, urls opening the item', async () => {
    const r: any = await c.callTool({ name: 'search', arguments: { query: 'Berlin' } });
    expect(r.isError).toBeFalsy();
    expect(r.content).toHaveLength(1);
    const body = json(r);
    expect(r.structuredContent).toEqual(body);
    expect(body.results.length).toBeGreaterThan(0);
    for (const hit of body.results) {
      expect(Object.keys(hit).sort()).toEqual(['id', 'title', 'url']);
      expect(hit.url).toBe(`${s.http}/a2a/table-expert/items/${encodeURIComponent(hit.id)}`);
    }
    const rowHit = body.results.find((h: { id: string }) => h.id.startsWith('row:customers:'));
    expect(rowHit).toBeDefined();
    const id = Number(decodeURIComponent(rowHit.id.split('=')[1]));
    expect(customerById.get(id)?.city).toBe('Berlin');
    const page = await fetch(rowHit.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Berlin');
  });

  it('fetch returns {id, title, text, url, metadata} for a row, matching the generated data', async () => {
    const order = orderById.get(42)!;
    const r: any = await c.callTool({ name: 'fetch', arguments: { id: 'row:orders:order_id=42' } });
    expect(r.isError).toBeFalsy();
    const body = json(r);
    expect(Object.keys(body).sort()).toEqual(['id', 'metadata', 'text', 'title', 'url']);
    expect(body.id).toBe('row:orders:order_id=42');
    expect(body.url).toBe(`${s.http}/a2a/table-expert/items/${encodeURIComponent('row:orders:order_id=42')}`);
    expect(body.text).toContain(order.status);
    expect(body.text).toContain(order.order_date);
    expect(body.metadata.kind).toBe('row');
  });

  it('fetch of an unknown id is an isError result; its page is a 404', async () => {
    const r: any = await c.callTool({ name: 'fetch', arguments: { id: 'table:nope' } });
    expect(r.isError).toBe(true);
    expect((await fetch(`${s.http}/a2a/table-expert/items/table%3Anope`)).status).toBe(404);
  });

  it('query_table_expert runs SQL: order count equals the generated rows', async () => {
    const r: any = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT count(*) AS n FROM orders' } });
    expect(r.isError).toBeFalsy();
    expect(Number(r.structuredContent.rows[0][0])).toBe(sample.orders.length);
    expect(r.structuredContent.sql).toMatch(/count/i);
  });

  it('query_table_expert answers a question: revenue by country, computed independently', async () => {
    const r: any = await c.callTool({ name: 'query_table_expert', arguments: { question: 'Revenue by country' } });
    expect(r.isError).toBeFalsy();
    const expected = byValue(groupBy(lines, (l) => l.customer.country, revenue));
    const got = r.structuredContent.rows as Array<[string, number | string]>;
    expect(got.map((row) => row[0])).toEqual(expected.map((e) => e[0]));
    got.forEach((row, i) => expect(Number(row[1])).toBeCloseTo(expected[i]![1], 2));
    expect(r.content[0].text).toMatch(/SELECT/);
  });

  it('query_table_expert refuses a write with an isError result naming the reason', async () => {
    const r: any = await c.callTool({ name: 'query_table_expert', arguments: { question: 'WITH x AS (SELECT 1) DELETE FROM orders' } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text.length).toBeGreaterThan(0);
    const count: any = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT count(*) FROM orders' } });
    expect(Number(count.structuredContent.rows[0][0])).toBe(sample.orders.length);
  });

  it('runs each call as a task of the agent, visible over A2A with the result as its artifact', async () => {
    const r: any = await c.callTool({ name: 'fetch', arguments: { id: 'table:customers' } });
    expect(r.isError).toBeFalsy();
    const list = await fetch(`${s.http}/a2a/table-expert/tasks?includeArtifacts=true`, { headers: { 'a2a-version': '1.0' } });
    expect(list.status).toBe(200);
    const tasks = ((await list.json()) as { tasks: Array<{ status: { state: string }; artifacts?: Array<{ name?: string; parts: Array<{ data?: unknown }> }> }> }).tasks;
    const call = tasks.find((t) => t.artifacts?.some((a) => a.name === 'tool-result' && JSON.stringify(a.parts).includes('table:customers')));
    expect(call?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('serves the same tools to a legacy client', async () => {
    const l = await legacyClient(`${s.http}/a2a/table-expert/mcp`);
    const names = (await l.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search', 'fetch', 'query_table_expert']));
    expect(names).not.toContain('echo_echo');
    const r: any = await l.callTool({ name: 'fetch', arguments: { id: 'table:orders' } });
    const body = JSON.parse(r.content[0].text);
    expect(body.title).toBe('orders');
    expect(body.text).toContain(sample.orders.length.toLocaleString('en-US'));
    await l.close();
  });
});
