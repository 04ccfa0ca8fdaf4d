/**
 * Each plan shape compilePlan (planner/compile.ts) builds — aggregate (grouped, shared, ordered,
 * per entity), distinct, rows — compiled and run on DuckDB in process, so a wrong clause shows as
 * wrong rows. Expected rows are computed by hand from the fixture below.
 *
 *   customers:   1 Ann retail since 2019, 2 Bob business since 2020, 3 Cy retail since 2019
 *   orders:      10 Ann 100 web 2024-01-15, 11 Ann 50 shop 2024-02-03,
 *                12 Bob 200 web 2024-02-20, 13 Cy 25 web 2024-03-05
 *   order_lines: order 10: A, B; order 11: A; order 12: C, C; order 13: B
 *                (inserted from 13 down to 10, so an order by key is not the order of insertion)
 *   notes:       no key column, rows 'b' and 'a' inserted in that order
 *   weather:     no relation to any other table
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableProfile } from '../../../../src/agents/table-expert/catalog/profile.js';
import { compilePlan } from '../../../../src/agents/table-expert/planner/compile.js';
import type { Filter, Measure, Plan } from '../../../../src/agents/table-expert/planner/plan.js';
import { Decline } from '../../../../src/agents/table-expert/planner/resolve.js';
import type { Vocabulary } from '../../../../src/agents/table-expert/planner/vocabulary.js';

/** Only what compilePlan reads of a profile: the name and the key. */
const profile = (name: string, key: string[]) => ({ name, key }) as unknown as TableProfile;

const vocab: Vocabulary = {
  tables: new Map([
    ['customers', profile('customers', ['customer_id'])],
    ['orders', profile('orders', ['order_id'])],
    ['order_lines', profile('order_lines', ['line_id'])],
    ['notes', profile('notes', [])],
    ['weather', profile('weather', ['day'])],
  ]),
  relations: [
    { from: { table: 'orders', column: 'customer_id' }, to: { table: 'customers', column: 'customer_id' } },
    { from: { table: 'order_lines', column: 'order_id' }, to: { table: 'orders', column: 'order_id' } },
  ],
  phrases: new Map(),
  maxPhraseWords: 1,
  columns: new Map(),
  stems: new Map(),
  units: new Map(),
  timeColumns: new Set(),
};

const col = (table: string, column: string) => ({ table, column });
const web: Filter = { kind: 'compare', column: col('orders', 'channel'), op: '=', value: 'web' };

const aggregate = (over: Partial<Plan>): Plan => ({ shape: 'aggregate', base: 'orders', measures: [{ fn: 'count' }], groups: [], filters: [], columns: [], ...over });
const rows = (over: Partial<Plan>): Plan => ({ shape: 'rows', base: 'orders', measures: [], groups: [], filters: [], columns: [], ...over });

let db: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  await conn.run(`CREATE TABLE customers (customer_id INTEGER, name VARCHAR, segment VARCHAR, since INTEGER);
    INSERT INTO customers VALUES (1, 'Ann', 'retail', 2019), (2, 'Bob', 'business', 2020), (3, 'Cy', 'retail', 2019);
    CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, amount DOUBLE, channel VARCHAR, ordered_at DATE);
    INSERT INTO orders VALUES (13, 3, 25, 'web', '2024-03-05'), (12, 2, 200, 'web', '2024-02-20'), (11, 1, 50, 'shop', '2024-02-03'), (10, 1, 100, 'web', '2024-01-15');
    CREATE TABLE order_lines (line_id INTEGER, order_id INTEGER, product VARCHAR);
    INSERT INTO order_lines VALUES (1, 10, 'A'), (2, 10, 'B'), (3, 11, 'A'), (4, 12, 'C'), (5, 12, 'C'), (6, 13, 'B');
    CREATE TABLE notes (body VARCHAR);
    INSERT INTO notes VALUES ('b'), ('a');
    CREATE TABLE weather (day DATE, rain DOUBLE);`);
});
afterAll(() => {
  conn?.closeSync();
  db?.closeSync();
});

const rowsOf = async (sql: string) => (await conn.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
const run = (plan: Plan, maxRows = 100) => rowsOf(compilePlan(plan, vocab, maxRows).sql);
const columnNames = async (plan: Plan) => (await conn.runAndReadAll(compilePlan(plan, vocab, 100).sql)).columnNames();

describe('aggregate', () => {
  it('counts all orders, without a LIMIT when the plan sets none', async () => {
    const { sql, interpretation } = compilePlan(aggregate({}), vocab, 1);
    expect(sql).not.toContain('LIMIT');
    expect(await rowsOf(sql)).toEqual([[4]]);
    expect(interpretation).not.toBe('');
  });

  it('filters with every condition: web orders above 30 are 10 and 12', async () => {
    const over30: Filter = { kind: 'compare', column: col('orders', 'amount'), op: '>', value: 30 };
    expect(await run(aggregate({ filters: [web, over30] }))).toEqual([[2]]);
  });

  it('sums amounts per segment over the customer join, each group in ascending order by default: business 200, retail 175', async () => {
    const plan = aggregate({ measures: [{ fn: 'sum', column: col('orders', 'amount') }], groups: [{ kind: 'column', column: col('customers', 'segment') }] });
    expect(await run(plan)).toEqual([
      ['business', 200],
      ['retail', 175],
    ]);
    expect(await columnNames(plan)).toEqual(['segment', 'total_amount']);
  });

  it('orders by the measure, then the group: descending sums, ties by segment', async () => {
    const plan = aggregate({ groups: [{ kind: 'column', column: col('customers', 'segment') }], order: { by: 'measure', dir: 'asc' } });
    // retail 3 orders, business 1
    expect(await run(plan)).toEqual([
      ['business', 1],
      ['retail', 3],
    ]);
    expect(await run({ ...plan, order: { by: 'measure', dir: 'desc' } })).toEqual([
      ['retail', 3],
      ['business', 1],
    ]);
  });

  it('orders by the group when asked: segments descending', async () => {
    const plan = aggregate({ groups: [{ kind: 'column', column: col('customers', 'segment') }], order: { by: 'group', dir: 'desc' } });
    expect(await run(plan)).toEqual([
      ['retail', 3],
      ['business', 1],
    ]);
  });

  it('adds each group its share of the total: 175 / 375 = 46.67 %, 200 / 375 = 53.33 %', async () => {
    const plan = aggregate({ measures: [{ fn: 'sum', column: col('orders', 'amount') }], groups: [{ kind: 'column', column: col('orders', 'channel') }], share: true });
    expect(await run(plan)).toEqual([
      ['shop', 50, 13.33], // 50 / 375
      ['web', 325, 86.67], // 325 / 375
    ]);
    expect(await columnNames(plan)).toEqual(['channel', 'total_amount', 'share_pct']);
  });

  it('groups by two columns in turn: business web 1, retail shop 1, retail web 2', async () => {
    const plan = aggregate({
      groups: [
        { kind: 'column', column: col('customers', 'segment') },
        { kind: 'column', column: col('orders', 'channel') },
      ],
    });
    expect(await run(plan)).toEqual([
      ['business', 'web', 1],
      ['retail', 'shop', 1],
      ['retail', 'web', 2],
    ]);
  });

  it('groups without a measure: each channel once', async () => {
    expect(await run(aggregate({ measures: [], groups: [{ kind: 'column', column: col('orders', 'channel') }] }))).toEqual([['shop'], ['web']]);
  });

  it('counts the rows of a table without a key when no join repeats them: 2 notes', async () => {
    expect(await run(aggregate({ base: 'notes' }))).toEqual([[2]]);
  });

  it('groups by month: January 1 order, February 2, March 1; a plan limit cuts the list', async () => {
    const plan = aggregate({ groups: [{ kind: 'time', column: col('orders', 'ordered_at'), unit: 'month' }] });
    expect(await run(plan)).toEqual([
      ['2024-01', 1],
      ['2024-02', 2],
      ['2024-03', 1],
    ]);
    expect(await run({ ...plan, limit: 2 })).toEqual([
      ['2024-01', 1],
      ['2024-02', 2],
    ]);
    // the server's row cap wins over a larger plan limit
    expect(await run({ ...plan, limit: 50 }, 1)).toEqual([['2024-01', 1]]);
  });

  it('groups a column of years and its year once, not twice: 2019 two customers, 2020 one', async () => {
    const since = { table: 'customers', column: 'since', year: true as const };
    const plan = aggregate({
      base: 'customers',
      groups: [
        { kind: 'column', column: since },
        { kind: 'time', column: since, unit: 'year' },
      ],
    });
    expect(await run(plan)).toEqual([
      [2019, 2],
      [2020, 1],
    ]);
  });

  it('gives a percentage of rows meeting a condition: 3 of 4 orders are web, 75 %', async () => {
    expect(await run(aggregate({ measures: [{ fn: 'count', pct: [web] }] }))).toEqual([[75]]);
    // both conditions: web orders above 30 are 2 of 4, 50 %
    const over30: Filter = { kind: 'compare', column: col('orders', 'amount'), op: '>', value: 30 };
    expect(await run(aggregate({ measures: [{ fn: 'count', pct: [web, over30] }] }))).toEqual([[50]]);
    // of the amount: 325 of 375 = 86.67 %
    expect(await run(aggregate({ measures: [{ fn: 'sum', column: col('orders', 'amount'), pct: [web] }] }))).toEqual([[86.67]]);
  });

  it('runs a named formula as its own SQL: the average order 375 / 4 = 93.75', async () => {
    const formula: Measure = { fn: 'sum', formula: { name: 'order value', sql: 'avg("orders"."amount")' } };
    const plan = aggregate({ measures: [formula] });
    expect(await run(plan)).toEqual([[93.75]]);
    expect(await columnNames(plan)).toEqual(['order_value']);
  });

  it('declines a named formula across a join that repeats its rows', () => {
    const formula: Measure = { fn: 'sum', formula: { name: 'order value', sql: 'avg("orders"."amount")' } };
    const plan = aggregate({ measures: [formula], groups: [{ kind: 'column', column: col('order_lines', 'product') }] });
    expect(() => compilePlan(plan, vocab, 100)).toThrow(Decline);
    expect(() => compilePlan(plan, vocab, 100)).toThrow('this join would repeat rows, so the measure "order value" would be wrong');
  });

  it('counts distinct days, months and values: 4 order days, 3 months, 2 channels', async () => {
    const at = col('orders', 'ordered_at');
    expect(await run(aggregate({ measures: [{ fn: 'count_distinct', column: at, bucket: 'day' }] }))).toEqual([[4]]);
    expect(await run(aggregate({ measures: [{ fn: 'count_distinct', column: at, bucket: 'month' }] }))).toEqual([[3]]);
    expect(await run(aggregate({ measures: [{ fn: 'count_distinct', column: col('orders', 'channel') }] }))).toEqual([[2]]);
    // a column of years counts its distinct years: 2019, 2020
    const since = { table: 'customers', column: 'since', year: true as const };
    expect(await run(aggregate({ base: 'customers', measures: [{ fn: 'count_distinct', column: since, bucket: 'year' }] }))).toEqual([[2]]);
  });

  it('applies count, min, max and avg to a column: 4, 25, 200, 93.75', async () => {
    const amount = col('orders', 'amount');
    const plan = aggregate({ measures: (['count', 'min', 'max', 'avg'] as const).map((fn) => ({ fn, column: amount })) });
    expect(await run(plan)).toEqual([[4, 25, 200, 93.75]]);
  });

  it('counts rows of the base across a fan-out as distinct keys: 2 customers bought product B, on 2 lines', async () => {
    const plan = aggregate({ base: 'customers', filters: [{ kind: 'compare', column: col('order_lines', 'product'), op: '=', value: 'B' }] });
    expect(await run(plan)).toEqual([[2]]); // Ann (order 10), Cy (order 13)
  });

  it('hands a per-entity measure to its own compiler: orders per customer by segment, business 1, retail (2 + 1) / 2', async () => {
    const per: Measure = { fn: 'avg', per: { table: 'customers', key: 'customer_id', inner: 'count', child: 'orders', fk: 'customer_id' } };
    const plan = aggregate({ base: 'customers', measures: [per], groups: [{ kind: 'column', column: col('customers', 'segment') }] });
    expect(await run(plan)).toEqual([
      ['business', 1],
      ['retail', 1.5],
    ]);
  });

  it('declines tables it cannot join', () => {
    const plan = aggregate({ groups: [{ kind: 'column', column: col('weather', 'rain') }] });
    expect(() => compilePlan(plan, vocab, 100)).toThrow('I do not see how to connect the tables this question needs');
  });
});

describe('distinct', () => {
  it('lists each channel once, sorted, capped by the row limit', async () => {
    const plan: Plan = { ...rows({ columns: [col('orders', 'channel')] }), shape: 'distinct' };
    expect(await run(plan)).toEqual([['shop'], ['web']]);
    expect(await run(plan, 1)).toEqual([['shop']]);
  });

  it('sorts by every column in turn: segment, then channel', async () => {
    const plan: Plan = { ...rows({ columns: [col('customers', 'segment'), col('orders', 'channel')] }), shape: 'distinct' };
    expect(await run(plan)).toEqual([
      ['business', 'web'],
      ['retail', 'shop'],
      ['retail', 'web'],
    ]);
    expect(await columnNames(plan)).toEqual(['segment', 'channel']);
  });
});

describe('rows', () => {
  it('shows every column of the base in key order, filtered and capped', async () => {
    const plan = rows({ base: 'customers', filters: [{ kind: 'compare', column: col('customers', 'segment'), op: '=', value: 'retail' }] });
    expect(await run(plan)).toEqual([
      [1, 'Ann', 'retail', 2019],
      [3, 'Cy', 'retail', 2019],
    ]);
    expect(await run(plan, 1)).toEqual([[1, 'Ann', 'retail', 2019]]);
    expect(await run({ ...plan, limit: 1 })).toEqual([[1, 'Ann', 'retail', 2019]]);
  });

  it('orders by a column in the asked direction, then by key', async () => {
    const plan = rows({ columns: [col('orders', 'order_id'), col('orders', 'amount')], order: { by: col('orders', 'amount'), dir: 'desc' } });
    expect(await run(plan)).toEqual([
      [12, 200],
      [10, 100],
      [11, 50],
      [13, 25],
    ]);
    // channel ascending: shop (11), then the three web orders by key
    const byChannel = rows({ columns: [col('orders', 'order_id')], order: { by: col('orders', 'channel'), dir: 'asc' } });
    expect(await run(byChannel)).toEqual([[11], [10], [12], [13]]);
  });

  it('lists chosen columns in key order, not in the order rows were stored', async () => {
    expect(await run(rows({ columns: [col('orders', 'order_id')] }))).toEqual([[10], [11], [12], [13]]);
    // an order by the measure or the group means nothing for rows: key order still
    expect(await run(rows({ columns: [col('orders', 'order_id')], order: { by: 'measure', dir: 'desc' } }))).toEqual([[10], [11], [12], [13]]);
  });

  it('lists a row once when a join repeats it: customers who bought A are Ann only', async () => {
    const plan = rows({ base: 'customers', columns: [col('customers', 'customer_id'), col('customers', 'name')], filters: [{ kind: 'compare', column: col('order_lines', 'product'), op: '=', value: 'A' }] });
    expect(await run(plan)).toEqual([[1, 'Ann']]);
  });

  it('lists a table without a key in one fixed order: all its columns sorted', async () => {
    const { sql } = compilePlan(rows({ base: 'notes' }), vocab, 100);
    expect(sql).toContain('ORDER BY ALL');
    expect(await rowsOf(sql)).toEqual([['a'], ['b']]);
  });

  it('adds no order to chosen columns of a table without a key', () => {
    const { sql } = compilePlan(rows({ base: 'notes', columns: [col('notes', 'body')] }), vocab, 100);
    expect(sql).not.toContain('ORDER BY');
    expect(sql).toContain('LIMIT 100');
  });
});
