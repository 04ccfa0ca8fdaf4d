/**
 * The Table Expert's fan-out guard (planner/compile.ts): a join from a table to its many side
 * (orders → order_lines) repeats each order once per line, so an aggregate of an order's own
 * column over that join counts it several times. Such a sum, average, median or count must be
 * declined, never answered with an inflated figure; a row count counts distinct keys instead.
 *
 * Expected figures are computed by hand from the five rows below, and the compiled SQL is run on
 * DuckDB over the same rows, so an answer that slips past the guard shows as a wrong number too.
 *
 *   orders:       order 1 amount 10, order 2 amount 30
 *   order_lines:  order 1 has three lines of product A; order 2 one line of A and one of B
 *
 * Orders with product A: 1 and 2, so their true average amount is (10 + 30) / 2 = 20; over the
 * join the rows are 10, 10, 10, 30, whose average is 60 / 4 = 15 (and whose sum is 60, not 40).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableProfile } from '../../../../src/agents/table-expert/catalog/profile.js';
import { compilePlan } from '../../../../src/agents/table-expert/planner/compile.js';
import type { AggFn, Plan } from '../../../../src/agents/table-expert/planner/plan.js';
import { Decline } from '../../../../src/agents/table-expert/planner/resolve.js';
import type { Vocabulary } from '../../../../src/agents/table-expert/planner/vocabulary.js';

/** Only what compilePlan reads of a profile: the name and the key. */
const profile = (name: string, key: string[]) => ({ name, key }) as unknown as TableProfile;

const vocab: Vocabulary = {
  tables: new Map([
    ['orders', profile('orders', ['order_id'])],
    ['order_lines', profile('order_lines', ['line_id'])],
  ]),
  relations: [{ from: { table: 'order_lines', column: 'order_id' }, to: { table: 'orders', column: 'order_id' } }],
  phrases: new Map(),
  maxPhraseWords: 1,
  columns: new Map(),
  stems: new Map(),
  units: new Map(),
  timeColumns: new Set(),
};

/** A figure of orders, per product of their lines: the join fans out from orders to order_lines. */
const perProduct = (fn: AggFn | undefined): Plan => ({
  shape: 'aggregate',
  base: 'orders',
  measures: [fn === undefined ? { fn: 'count' } : { fn, column: { table: 'orders', column: 'amount' } }],
  groups: [{ kind: 'column', column: { table: 'order_lines', column: 'product' } }],
  filters: [],
  columns: [],
  order: { by: 'group', dir: 'asc' },
});

let db: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  await conn.run(`CREATE TABLE orders (order_id INTEGER, amount DOUBLE);
    INSERT INTO orders VALUES (1, 10), (2, 30);
    CREATE TABLE order_lines (line_id INTEGER, order_id INTEGER, product VARCHAR);
    INSERT INTO order_lines VALUES (1, 1, 'A'), (2, 1, 'A'), (3, 1, 'A'), (4, 2, 'A'), (5, 2, 'B');`);
});
afterAll(() => {
  conn?.closeSync();
  db?.closeSync();
});

const rowsOf = async (sql: string) => (await conn.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));

describe('fan-out guard', () => {
  it.each(['avg', 'sum', 'median', 'count'] as const)('declines a %s of an order column across a join that repeats orders', (fn) => {
    expect(() => compilePlan(perProduct(fn), vocab, 100)).toThrow(Decline);
    expect(() => compilePlan(perProduct(fn), vocab, 100)).toThrow(`this join would repeat orders rows, so a ${fn} of amount would be wrong`);
  });

  it('the declined average would have been wrong: 15 over the join against the true 20 (hand-computed)', async () => {
    // What an unguarded compile would run, to show the guard is not refusing a harmless question.
    const joined = await rowsOf(`SELECT avg(o.amount) FROM orders o JOIN order_lines l ON l.order_id = o.order_id WHERE l.product = 'A'`);
    expect(joined).toEqual([[15]]);
    expect((10 + 30) / 2).toBe(20);
  });

  it('counts orders per product as distinct orders: A 2, B 1 (hand-computed), not 4 rows', async () => {
    const { sql } = compilePlan(perProduct(undefined), vocab, 100);
    expect(sql).toContain('count(DISTINCT "orders"."order_id")');
    expect(await rowsOf(sql)).toEqual([
      ['A', 2],
      ['B', 1],
    ]);
  });

  it('answers min and max across the fan-out: repeating a row does not move them (A 10..30, B 30)', async () => {
    expect(await rowsOf(compilePlan(perProduct('max'), vocab, 100).sql)).toEqual([
      ['A', 30],
      ['B', 30],
    ]);
    expect(await rowsOf(compilePlan(perProduct('min'), vocab, 100).sql)).toEqual([
      ['A', 10],
      ['B', 30],
    ]);
  });

  it('declines a row count across the fan-out when the base table has no key to count distinctly', () => {
    const keyless: Vocabulary = { ...vocab, tables: new Map([...vocab.tables, ['orders', profile('orders', [])]]) };
    expect(() => compilePlan(perProduct(undefined), keyless, 100)).toThrow('counting orders across this join would count rows more than once, and orders has no key column');
  });

  it('averages a line column over lines joined to their order (no fan-out): A (10+10+10+30)/4 = 15 is right there', async () => {
    // From the many side to the one side each line stays one row, so nothing is declined.
    const plan: Plan = {
      ...perProduct('avg'),
      base: 'order_lines',
      measures: [{ fn: 'avg', column: { table: 'order_lines', column: 'line_id' } }],
      groups: [{ kind: 'column', column: { table: 'orders', column: 'amount' } }],
    };
    expect(await rowsOf(compilePlan(plan, vocab, 100).sql)).toEqual([
      [10, 2], // lines 1, 2, 3 of order 1
      [30, 4.5], // lines 4, 5 of order 2
    ]);
  });
});
