/**
 * Golden questions over the generated retail sample, asked over A2A (JSON-RPC, real HTTP) with no
 * model configured: the deterministic planner must answer every shape below with the rows that
 * plain JS over the generated data gives, and decline the questions beyond it, saying why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { expectRows, send, startTableExpert, type Row } from './helpers.js';
import { byKey, byValue, cents, count, customerById, groupBy, lines, median, month, orderRow, productRow, quarter, revenue, sample, sumCents, year } from './retail-facts.js';

const { orders, customers, products } = sample;
const rows = <K extends string | number>(pairs: Array<[K, number]>): Row[] => pairs.map(([k, v]) => [k, v]);

interface Golden {
  shape: string;
  q: string;
  expected: () => Row[];
}

const GOLDEN: Golden[] = [
  { shape: 'count of a table', q: 'How many orders are there?', expected: () => [[orders.length]] },
  { shape: 'count with an equality filter on a value', q: 'How many orders were cancelled?', expected: () => [[count(orders, (o) => o.status === 'cancelled')]] },
  { shape: 'count with a multi-word value', q: 'How many customers are in the United States?', expected: () => [[count(customers, (c) => c.country === 'United States')]] },
  { shape: 'count with a negated filter', q: 'How many orders were not completed?', expected: () => [[count(orders, (o) => o.status !== 'completed')]] },
  { shape: 'count with IN (two values)', q: 'How many orders were returned or cancelled?', expected: () => [[count(orders, (o) => o.status === 'returned' || o.status === 'cancelled')]] },
  {
    shape: 'count by one group',
    q: 'Number of orders by status',
    expected: () =>
      rows(
        byValue(
          groupBy(
            orders,
            (o) => o.status,
            (r) => r.length,
          ),
        ),
      ),
  },
  {
    shape: 'count by two groups',
    q: 'Orders by channel and status',
    expected: () =>
      groupBy(
        orders,
        (o) => `${o.channel}\u0000${o.status}`,
        (r) => r.length,
      )
        .map(([k, v]) => [...k.split('\u0000'), v] as Row)
        .sort((a, b) => (b[2] as number) - (a[2] as number) || String(a[0]).localeCompare(String(b[0])) || (a[1]! < b[1]! ? -1 : 1)),
  },
  { shape: 'count distinct', q: 'How many distinct countries do customers come from?', expected: () => [[new Set(customers.map((c) => c.country)).size]] },
  { shape: 'distinct values', q: 'List the product categories', expected: () => [...new Set(products.map((p) => p.category))].sort().map((c) => [c]) },
  { shape: 'distinct values with a filter', q: 'Which cities are in Germany?', expected: () => [...new Set(customers.filter((c) => c.country === 'Germany').map((c) => c.city))].sort().map((c) => [c]) },
  { shape: 'sum', q: 'What is the total revenue?', expected: () => [[revenue(lines)]] },
  { shape: 'sum by group across one join', q: 'Total revenue by category', expected: () => rows(byValue(groupBy(lines, (l) => l.product.category, revenue))) },
  { shape: 'sum by group across two joins', q: 'Revenue by country', expected: () => rows(byValue(groupBy(lines, (l) => l.customer.country, revenue))) },
  { shape: 'average', q: 'Average unit price of products', expected: () => [[products.reduce((s, p) => s + p.unit_price_cents, 0) / products.length / 100]] },
  {
    shape: 'average by group',
    q: 'Average unit price by category',
    expected: () =>
      rows(
        byValue(
          groupBy(
            products,
            (p) => p.category,
            (ps) => ps.reduce((s, p) => s + p.unit_price_cents, 0) / ps.length / 100,
          ),
        ),
      ),
  },
  { shape: 'maximum', q: 'What is the highest unit price of products?', expected: () => [[Math.max(...products.map((p) => p.unit_price_cents)) / 100]] },
  { shape: 'median', q: 'Median amount of order lines', expected: () => [[median(lines.map((l) => l.amount_cents)) / 100]] },
  {
    shape: 'top N entities by a sum',
    q: 'Top 5 products by revenue',
    expected: () =>
      groupBy(lines, (l) => l.product_id, revenue)
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, 5)
        .map(([id, v]) => [id, products[id - 1]!.name, v]),
  },
  {
    shape: 'top N entities by a count',
    q: 'Top 10 customers by number of orders',
    expected: () =>
      groupBy(
        orders,
        (o) => o.customer_id,
        (r) => r.length,
      )
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, 10)
        .map(([id, v]) => [id, customerById.get(id)!.name, v]),
  },
  {
    shape: 'bottom N groups',
    q: 'Bottom 3 categories by revenue',
    expected: () =>
      rows(
        byValue(
          groupBy(lines, (l) => l.product.category, revenue),
          'asc',
        ).slice(0, 3),
      ),
  },
  {
    shape: 'which group has the most rows',
    q: 'Which country has the most customers?',
    expected: () =>
      rows(
        byValue(
          groupBy(
            customers,
            (c) => c.country,
            (r) => r.length,
          ),
        ).slice(0, 1),
      ),
  },
  { shape: 'which group has the highest sum', q: 'Which category has the highest revenue?', expected: () => rows(byValue(groupBy(lines, (l) => l.product.category, revenue)).slice(0, 1)) },
  {
    // the README's question: "category" is a column of products, reached from order lines; "product" only says whose
    shape: 'which group (named with its table) has the highest sum in a year',
    q: 'Which product category had the highest revenue in 2024?',
    expected: () =>
      rows(
        byValue(
          groupBy(
            lines.filter((l) => year(l.order.order_date) === 2024),
            (l) => l.product.category,
            revenue,
          ),
        ).slice(0, 1),
      ),
  },
  { shape: 'monthly buckets of a sum', q: 'Revenue by month', expected: () => rows(byKey(groupBy(lines, (l) => month(l.order.order_date), revenue))) },
  {
    shape: 'monthly buckets with a year filter',
    q: 'Number of orders per month in 2024',
    expected: () =>
      rows(
        byKey(
          groupBy(
            orders.filter((o) => year(o.order_date) === 2024),
            (o) => month(o.order_date),
            (r) => r.length,
          ),
        ),
      ),
  },
  {
    shape: 'yearly buckets',
    q: 'Orders by year',
    expected: () =>
      rows(
        byKey(
          groupBy(
            orders,
            (o) => year(o.order_date),
            (r) => r.length,
          ),
        ),
      ),
  },
  { shape: 'quarterly buckets', q: 'Quarterly revenue', expected: () => rows(byKey(groupBy(lines, (l) => quarter(l.order.order_date), revenue))) },
  { shape: 'month-and-year filter', q: 'How many orders in March 2024?', expected: () => [[count(orders, (o) => o.order_date.startsWith('2024-03'))]] },
  { shape: 'after a date (exclusive)', q: 'How many orders were placed after 2024-06-01?', expected: () => [[count(orders, (o) => o.order_date > '2024-06-01')]] },
  { shape: 'numeric comparison', q: 'How many order lines have an amount over 500?', expected: () => [[count(lines, (l) => l.amount_cents > 50_000)]] },
  { shape: 'numeric range', q: 'How many products have a price between 10 and 50?', expected: () => [[count(products, (p) => p.unit_price_cents >= 1000 && p.unit_price_cents <= 5000)]] },
  { shape: 'list rows with a filter', q: 'List products in category Books', expected: () => products.filter((p) => p.category === 'Books').map(productRow) },
  {
    shape: 'superlative rows',
    q: 'The 3 most expensive products',
    expected: () =>
      [...products]
        .sort((a, b) => b.unit_price_cents - a.unit_price_cents || a.product_id - b.product_id)
        .slice(0, 3)
        .map(productRow),
  },
  { shape: 'key lookup', q: 'Show order 42', expected: () => [orderRow(orders[41]!)] },
  {
    shape: 'count of entities with more than N children',
    q: 'How many customers have more than 20 orders?',
    expected: () => [
      [
        groupBy(
          orders,
          (o) => o.customer_id,
          (r) => r.length,
        ).filter(([, n]) => n > 20).length,
      ],
    ],
  },
  {
    shape: 'filter through two joins with time buckets',
    q: 'Revenue in Germany by year',
    expected: () =>
      rows(
        byKey(
          groupBy(
            lines.filter((l) => l.customer.country === 'Germany'),
            (l) => year(l.order.order_date),
            revenue,
          ),
        ),
      ),
  },
  {
    shape: 'shares of a total',
    q: 'Share of revenue by channel',
    expected: () => {
      const total = revenue(lines);
      return byValue(groupBy(lines, (l) => l.order.channel, revenue)).map(([k, v]) => [k, v, Math.round((10000 * v) / total) / 100]);
    },
  },
  { shape: 'earliest date', q: 'When was the first order?', expected: () => [[orders.map((o) => o.order_date).sort()[0]!]] },
  {
    shape: 'latest date of a named column',
    q: 'Most recent order date',
    expected: () => [
      [
        orders
          .map((o) => o.order_date)
          .sort()
          .at(-1)!,
      ],
    ],
  },
  { shape: 'date filter on a column named by a verb', q: 'How many customers signed up in 2024?', expected: () => [[count(customers, (c) => c.signup_date.startsWith('2024'))]] },
  { shape: 'count distinct across a one-to-many join', q: 'How many customers ordered in 2024?', expected: () => [[new Set(orders.filter((o) => o.order_date.startsWith('2024')).map((o) => o.customer_id)).size]] },
  {
    shape: 'sum by group with a date filter across joins',
    q: 'Total quantity by category in 2024',
    expected: () =>
      rows(
        byValue(
          groupBy(
            lines.filter((l) => l.order.order_date.startsWith('2024')),
            (l) => l.product.category,
            (ls) => ls.reduce((s, l) => s + l.quantity, 0),
          ),
        ),
      ),
  },
  {
    shape: 'average with a filter through a join',
    q: 'Average amount of order lines for online orders',
    expected: () => [[sumCents((l) => l.amount_cents)(lines.filter((l) => l.order.channel === 'online')) / count(lines, (l) => l.order.channel === 'online')]],
  },
  // answered since issue 17 (they were declined before): two years side by side, an average of counts per entity
  { shape: 'two years compared side by side', q: 'Compare revenue in 2023 vs 2024', expected: () => rows(byKey(groupBy(lines, (l) => year(l.order.order_date), revenue))) },
  { shape: 'average of a count per entity (zero counts included)', q: 'What is the average number of orders per customer?', expected: () => [[orders.length / customers.length]] },
  {
    shape: 'count by group with a value filter',
    q: 'Number of Corporate customers by country',
    expected: () =>
      rows(
        byValue(
          groupBy(
            customers.filter((c) => c.segment === 'Corporate'),
            (c) => c.country,
            (r) => r.length,
          ),
        ),
      ),
  },
];

const DECLINED = [
  'Why did sales drop in 2024?',
  'Predict next month’s revenue',
  'What is the weather in Berlin?',
  'Revenue last month',
  'How much did revenue grow from 2023 to 2024?',
  'What is the average number of orders per customer per month?',
  'How many books were sold?',
  'Orders over 500',
];

describe('Table Expert golden questions (deterministic planner, A2A over HTTP)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTableExpert();
  });
  afterAll(async () => s?.stop());

  it(`covers at least 30 distinct question shapes`, () => {
    expect(new Set(GOLDEN.map((g) => g.shape)).size).toBeGreaterThanOrEqual(30);
  });

  it.each(GOLDEN.map((g) => [g.shape, g] as const))('answers %s', async (_shape, g) => {
    const r = await send(s, g.q);
    expect(r.state, `${g.q}: ${r.text}`).toBe('TASK_STATE_COMPLETED');
    expect(r.sql, g.q).toMatch(/^\s*SELECT/i);
    expect(r.data.source).toBe('planner');
    expectRows(r.data.rows, g.expected(), g.q);
  });

  it.each(DECLINED)('declines "%s" with a reason and example questions', async (q) => {
    const r = await send(s, q);
    expect(r.state, r.text).toBe('TASK_STATE_REJECTED');
    expect(r.statusData.error.code).toBe('declined');
    expect(r.statusData.error.reason.length).toBeGreaterThan(10);
    expect(r.statusData.error.hints.length).toBeGreaterThan(0);
  });

  it('returns a Vega-Lite line chart for a time series and a bar chart for categories', async () => {
    const monthly = await send(s, 'Revenue by month');
    expect(monthly.chart.$schema).toContain('vega-lite/v5');
    expect(monthly.chart.mark.type).toBe('line');
    expect(monthly.chart.encoding.x).toMatchObject({ field: 'month', type: 'temporal' });
    expect(monthly.chart.data.values).toHaveLength(24);
    const byCategory = await send(s, 'Total revenue by category');
    expect(byCategory.chart.mark.type).toBe('bar');
    const single = await send(s, 'How many orders are there?');
    expect(single.chart).toBeUndefined();
    expect(single.text).toContain('**20,000**');
  });

  it('asks which column an ambiguous word means (INPUT_REQUIRED), then answers the reply in the same task', async () => {
    const first = await send(s, 'Revenue by name');
    expect(first.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.statusData.clarify.choices.map((c: any) => c.id).sort()).toEqual(['customers.name', 'products.name']);
    const index = first.statusData.clarify.choices.findIndex((c: any) => c.id === 'products.name') + 1;
    const done = await send(s, String(index), { taskId: first.task.id });
    expect(done.task.id).toBe(first.task.id);
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expectRows(done.data.rows, rows(byValue(groupBy(lines, (l) => l.product.name, revenue))), 'revenue by product name');
  });

  it('asks before declining a word close to a column ("categry"), and the reply picking it continues the task', async () => {
    const first = await send(s, 'Revenue by categry');
    expect(first.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.text).toContain('By "categry" do you mean products.category?');
    expect(first.statusData.clarify.choices).toEqual([{ id: 'products.category', label: 'products.category' }]);
    const done = await send(s, 'products.category', { taskId: first.task.id });
    expect(done.task.id).toBe(first.task.id);
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expectRows(done.data.rows, rows(byValue(groupBy(lines, (l) => l.product.category, revenue))), 'revenue by category');
  });

  it('accepts a clarification by table name and as a data part', async () => {
    const first = await send(s, 'Average price');
    expect(first.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = await send(s, 'products', { taskId: first.task.id });
    expectRows(done.data.rows, [[products.reduce((a, p) => a + p.unit_price_cents, 0) / products.length / 100]], 'average product price');
    const again = await send(s, 'Average price');
    const viaData = await send(s, { choice: 'order_lines.unit_price' }, { taskId: again.task.id });
    expectRows(viaData.data.rows, [[lines.reduce((a, l) => a + l.unit_price_cents, 0) / lines.length / 100]], 'average line price');
  });

  it('refines the last question of the context: a filter, a top-N, a new grouping', async () => {
    const contextId = `ctx-${Date.now()}`;
    const first = await send(s, 'Revenue by category', { contextId });
    expectRows(first.data.rows, rows(byValue(groupBy(lines, (l) => l.product.category, revenue))), 'first');
    const in2024 = lines.filter((l) => l.order.order_date.startsWith('2024'));
    const second = await send(s, 'only in 2024', { contextId });
    expect(second.state).toBe('TASK_STATE_COMPLETED');
    expectRows(second.data.rows, rows(byValue(groupBy(in2024, (l) => l.product.category, revenue))), 'only in 2024');
    const third = await send(s, 'top 3', { contextId });
    expectRows(third.data.rows, rows(byValue(groupBy(in2024, (l) => l.product.category, revenue)).slice(0, 3)), 'top 3');
    const fourth = await send(s, 'by channel instead', { contextId });
    expectRows(fourth.data.rows, rows(byValue(groupBy(in2024, (l) => l.order.channel, revenue)).slice(0, 3)), 'by channel instead');
    // another context is not affected
    const other = await send(s, 'only in 2024', { contextId: `${contextId}-other` });
    expect(other.state).not.toBe('TASK_STATE_COMPLETED');
  });

  it('refines a referenced task (referenceTaskIds) even without the context memory', async () => {
    const first = await send(s, 'Orders by year');
    const refined = await send(s, 'only cancelled', { referenceTaskIds: [first.task.id] });
    expectRows(
      refined.data.rows,
      rows(
        byKey(
          groupBy(
            orders.filter((o) => o.status === 'cancelled'),
            (o) => year(o.order_date),
            (r) => r.length,
          ),
        ),
      ),
      'cancelled by year',
    );
  });

  it('tells the reader how it read the question and which SQL it ran', async () => {
    const r = await send(s, 'How many customers are in Germany?');
    expect(r.data.interpretation).toContain('customers.country');
    expect(r.text).toContain('customers.country');
    expect(r.sql).toContain(`"customers"."country" = 'Germany'`);
    expect(r.data.resultId).toMatch(/^result:[0-9a-f]{16}$/);
    expect(cents(1)).toBe(0.01);
  });
});
