/**
 * Issue 17 over the retail sample, no model: the planner is never silently wrong (a ranking, a
 * share, a measure it cannot place is asked about or declined, never dropped), understands the
 * ordinary analyst phrasings the issue lists, and states how it read every answer. Expected
 * results come from hand-written SQL run through the guarded `query` skill and compared by the
 * evaluation's judge (test/agents/table-expert/eval-judge.test.ts tests the judge itself).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableExpertAgent, parseTableExpertOptions, type TableExpert } from '../../../src/agents/table-expert/index.js';
import { goldIsOrdered, judge, type Cell } from './eval/judge.js';

const REV = 'order_lines l JOIN orders o ON o.order_id = l.order_id';
const ANSWERED: Array<[string, string]> = [
  // rankings that used to fall back to raw rows, or to the largest single line
  ['Which category sells the most units?', `SELECT p.category FROM order_lines l JOIN products p USING (product_id) GROUP BY 1 ORDER BY sum(l.quantity) DESC LIMIT 1`],
  ['Which month in 2024 had the highest revenue?', `SELECT strftime(o.order_date, '%Y-%m') FROM ${REV} WHERE year(o.order_date) = 2024 GROUP BY 1 ORDER BY sum(l.amount) DESC LIMIT 1`],
  // a quantity is added up, not its distinct values counted; a percentage is a percentage
  ['How many units of Electronics did we sell in 2024?', `SELECT sum(l.quantity) FROM ${REV} JOIN products p ON p.product_id = l.product_id WHERE p.category = 'Electronics' AND year(o.order_date) = 2024`],
  ['What percentage of orders were cancelled?', `SELECT round(100.0 * count(*) FILTER (WHERE status = 'cancelled') / count(*), 2) FROM orders`],
  ['Cancellation rate by channel', `SELECT channel, round(100.0 * count(*) FILTER (WHERE status = 'cancelled') / count(*), 2) FROM orders GROUP BY 1`],
  // ordinary language that used to be declined
  ['the 4 largest customers by revenue', `SELECT c.name, sum(l.amount) AS r FROM ${REV} JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.customer_id, c.name ORDER BY r DESC, c.customer_id LIMIT 4`],
  ['which 7 cities have the most customers', `SELECT city, count(*) AS n FROM customers GROUP BY 1 ORDER BY n DESC, city LIMIT 7`],
  ['How much revenue did the Books category bring in?', `SELECT sum(l.amount) FROM order_lines l JOIN products p USING (product_id) WHERE p.category = 'Books'`],
  ['How many customers have never placed an order?', `SELECT count(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)`],
  ['What was revenue in the third quarter of 2024?', `SELECT sum(l.amount) FROM ${REV} WHERE o.order_date >= DATE '2024-07-01' AND o.order_date < DATE '2024-10-01'`],
  ['How many order lines got 10% off?', `SELECT count(*) FROM order_lines WHERE discount = 0.10`],
  ['What is the average order value?', `SELECT avg(v) FROM (SELECT order_id, sum(amount) AS v FROM order_lines GROUP BY 1)`],
  ['Median order value by channel', `SELECT o.channel, median(t.v) FROM (SELECT order_id, sum(amount) AS v FROM order_lines GROUP BY 1) t JOIN orders o USING (order_id) GROUP BY 1`],
  ['Online vs store revenue in 2024', `SELECT o.channel, sum(l.amount) FROM ${REV} WHERE o.channel IN ('online', 'store') AND year(o.order_date) = 2024 GROUP BY 1`],
  ['Revenue in 2024 compared with 2023', `SELECT year(o.order_date), sum(l.amount) FROM ${REV} GROUP BY 1`],
  ['How many orders came in through the phone channel?', `SELECT count(*) FROM orders WHERE channel = 'phone'`],
  ['Revenue in 2023 and 2024', `SELECT sum(amount) FROM order_lines`],
  ['How many products not in Books or Toys?', `SELECT count(*) FROM products WHERE category NOT IN ('Books', 'Toys')`],
  ['Revenue Q1-Q2 2024', `SELECT sum(l.amount) FROM ${REV} WHERE o.order_date >= DATE '2024-01-01' AND o.order_date < DATE '2024-07-01'`],
  ['Which day of the week gets the most orders?', `SELECT dayname(order_date) FROM orders GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`],
];

describe('Table Expert planner: answers you can trust (issue 17)', { timeout: 60_000 }, () => {
  let dir: string;
  let expert: TableExpert;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'te-trust-'));
    expert = createTableExpertAgent({ options: parseTableExpertOptions({}, { index: 0, baseDir: dir }), dataDir: dir }).expert;
  });
  afterAll(async () => {
    expert?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(ANSWERED)('answers "%s" right', async (question, gold) => {
    const out = await expert.ask({ question, mode: 'planner' });
    expect(out.kind, JSON.stringify(out).slice(0, 300)).toBe('answer');
    if (out.kind !== 'answer') return;
    const expected = await expert.query({ sql: gold });
    const verdict = judge({ rows: out.result.rows as Cell[][] }, { rows: expected.result.rows as Cell[][] }, goldIsOrdered(gold));
    expect(verdict.ok, `${verdict.reason}\n${out.sql}`).toBe(true);
    expect(out.summary).toMatch(/^Read as: .+\.$/m);
  });

  it('states its reading in one line before the numbers', async () => {
    const out = await expert.ask({ question: 'Revenue by month in 2024' });
    expect(out.kind).toBe('answer');
    if (out.kind !== 'answer') return;
    expect(out.summary.split('\n')[0]).toBe('Read as: total order_lines.amount, by month of orders.order_date, where orders.order_date in 2024.');
  });

  it('asks by what when a ranking names no measure, and answers the chosen one', async () => {
    const out = await expert.ask({ question: 'Which country buys the most?' });
    expect(out.kind).toBe('clarify');
    if (out.kind !== 'clarify') return;
    expect(out.choices.map((c) => c.id)).toEqual(expect.arrayContaining(['count:orders', 'sum:order_lines.amount', 'sum:order_lines.quantity']));
    const done = await expert.ask({ question: out.original, resolutions: { [out.term.toLowerCase()]: 'sum:order_lines.amount' } });
    expect(done.kind).toBe('answer');
    if (done.kind !== 'answer') return;
    const gold = await expert.query({ sql: `SELECT c.country FROM ${REV} JOIN customers c ON c.customer_id = o.customer_id GROUP BY 1 ORDER BY sum(l.amount) DESC LIMIT 1` });
    expect(judge({ rows: done.result.rows as Cell[][] }, { rows: gold.result.rows as Cell[][] }, true).ok).toBe(true);
  });

  it('lists rows only when rows are asked for: a bare "customers in Germany" asks number or list', async () => {
    const out = await expert.ask({ question: 'customers in Germany?' });
    expect(out.kind).toBe('clarify');
    if (out.kind !== 'clarify') return;
    expect(out.choices.map((c) => c.id)).toEqual(['count', 'list']);
    const listed = await expert.ask({ question: 'List the customers in Germany' });
    expect(listed.kind).toBe('answer');
    const never = await expert.ask({ question: 'Customers without orders' });
    expect(never.kind).toBe('clarify');
    if (never.kind !== 'clarify') return;
    const counted = await expert.ask({ question: never.original, resolutions: { [never.term.toLowerCase()]: 'count' } });
    expect(counted.kind).toBe('answer');
    const none = await expert.query({ sql: 'SELECT count(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)' });
    expect(counted.kind === 'answer' ? counted.result.rows : undefined).toEqual(none.result.rows);
  });

  it.each([
    'Revenue of the most expensive product',
    'How many orders did our top customer place?',
    'By how many percent did revenue grow from 2023 to 2024?',
    'Which products have never been ordered by a Corporate customer?',
    'Average revenue per order by category',
    // found by probing after the evaluation: each used to complete with another question's answer
    'How many products sold more than 100 units?',
    'Largest order in 2024',
    'What share of online orders were cancelled?',
    'What is the min and max price of products?',
    'Orders without a customer',
    'Total revenue for the top 5 products',
    'Revenue per unit sold',
    'What did customer 5 buy?',
    'Orders Q1-Q3-Q4 2024',
    'How many orders in January 2024 and March 2024?',
  ])('declines "%s" rather than answer another question', async (question) => {
    const out = await expert.ask({ question });
    expect(out.kind, JSON.stringify(out).slice(0, 400)).toBe('declined');
  });
});
