/**
 * A named statement executed without Describe (src/store/postgres/named-query.ts), as the
 * PostgreSQL store's hot statements are: the promise settles with the rows its own `readRow`
 * reads from the DataRows; the statement is parsed once a connection (after a Close) and then only
 * bound and executed, and the server never sends a RowDescription for it; a failure rejects the
 * promise and leaves the connection usable, the statement included; either way the connection goes
 * back to the pool. Against a real PostgreSQL, observed at the client's protocol connection.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryNamed, queryNamedOn, type NamedStatement } from '../../../src/store/postgres/named-query.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADD: NamedStatement<{ sum: number }> = {
  name: 'agentport_test_named_add',
  text: 'select $1::bigint + $2::bigint as sum',
  readRow: (f) => ({ sum: Number(f[0]) }),
};
const FAIL: NamedStatement<{ q: number }> = { name: 'agentport_test_named_fail', text: 'select 1 / $1::integer as q', readRow: (f) => ({ q: Number(f[0]) }) };
const SERIES: NamedStatement<{ n: number; label: string | null }> = {
  name: 'agentport_test_named_series',
  text: `select n, case when n % 2 = 0 then null else 'odd ' || $2::text end as label from generate_series(1, $1::integer) as n`,
  readRow: (f) => ({ n: Number(f[0]), label: f[1] ?? null }),
};

let pool: pg.Pool;
/** what the pool's one connection sent (Parse by statement name, Close, Describe) and received (RowDescription) */
const sent: string[] = [];
let rowDescriptions = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => {
    const connection = (client as unknown as { connection: Record<string, (m: { name?: string; type?: string }) => void> & { on: (e: string, f: () => void) => void } }).connection;
    for (const kind of ['parse', 'close', 'describe'] as const) {
      const original = connection[kind]!.bind(connection);
      connection[kind] = (m) => {
        sent.push(`${kind} ${m.name ?? ''}`);
        original(m);
      };
    }
    connection.on('rowDescription', () => rowDescriptions++);
  });
});

afterAll(async () => {
  await pool?.end();
});

const count = (entry: string): number => sent.filter((s) => s === entry).length;

describe('queryNamed', () => {
  it('settles with the rows its statement reads, NULL as null, in order', async () => {
    expect(await queryNamed(pool, ADD, [40, 2])).toEqual({ rows: [{ sum: 42 }] });
    const { rows } = await queryNamed(pool, SERIES, [4, 'x']);
    expect(rows).toEqual([
      { n: 1, label: 'odd x' },
      { n: 2, label: null },
      { n: 3, label: 'odd x' },
      { n: 4, label: null },
    ]);
  });

  it('parses once a connection, after a Close, then binds and executes by name without Describe', async () => {
    const before = { parse: count(`parse ${ADD.name}`), close: count(`close ${ADD.name}`) };
    rowDescriptions = 0;
    for (let i = 0; i < 3; i++) expect((await queryNamed(pool, ADD, [i, 1])).rows).toEqual([{ sum: i + 1 }]);
    expect(count(`parse ${ADD.name}`) - before.parse).toBe(0);
    expect(count(`close ${ADD.name}`) - before.close).toBe(0);
    // the first test parsed it: one Close then one Parse, ever
    expect([count(`close ${ADD.name}`), count(`parse ${ADD.name}`)]).toEqual([1, 1]);
    expect(sent.filter((s) => s.startsWith('describe'))).toEqual([]);
    expect(rowDescriptions).toBe(0);
    const { rows } = await pool.query<{ name: string }>('select name from pg_prepared_statements where name = $1', [ADD.name]);
    expect(rows).toEqual([{ name: ADD.name }]);
  });

  it('rejects when the statement fails, and gives the connection back either way', async () => {
    // (pg-pool ends a connection whose query failed and opens another: the statement is kept on
    // a held client, below)
    await expect(queryNamed(pool, FAIL, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await queryNamed(pool, FAIL, [1])).rows).toEqual([{ q: 1 }]);
    await expect(queryNamed(pool, FAIL, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await queryNamed(pool, FAIL, [2])).rows).toEqual([{ q: 0 }]);
    expect(pool.totalCount).toBe(1);
    expect(pool.idleCount).toBe(1);
    expect(pool.waitingCount).toBe(0);
  });

  it('rejects when a row cannot be read, after the server is done, and the connection stays usable', async () => {
    const BAD: NamedStatement<unknown> = {
      name: 'agentport_test_named_bad_reader',
      text: 'select $1::text as j',
      readRow: (f) => JSON.parse(f[0]!) as unknown,
    };
    await expect(queryNamed(pool, BAD, ['not json'])).rejects.toThrow(SyntaxError);
    expect((await queryNamed(pool, BAD, ['{"a":1}'])).rows).toEqual([{ a: 1 }]);
    expect((await queryNamed(pool, ADD, [1, 1])).rows).toEqual([{ sum: 2 }]);
    expect(pool.idleCount).toBe(1);
  });

  it('drops the rows of a statement that brings no reader, and answers its success', async () => {
    const UNREAD: NamedStatement = { name: 'agentport_test_named_unread', text: 'select generate_series(1, $1::integer)' };
    expect(await queryNamed(pool, UNREAD, [3])).toEqual({ rows: [] });
  });

  it('carries text, numbers, bytea and NULL parameters', async () => {
    const TYPES: NamedStatement<string> = {
      name: 'agentport_test_named_types',
      text: `select concat_ws('|', $1::text, $2::integer, convert_from($3::bytea, 'UTF8'), coalesce($4::text, 'null'))`,
      readRow: (f) => f[0]!,
    };
    expect((await queryNamed(pool, TYPES, ['é"\\', 7, Buffer.from('bytes ü'), null])).rows).toEqual(['é"\\|7|bytes ü|null']);
  });
});

describe('queryNamedOn', () => {
  it('runs inside the held client’s transaction, which a rollback undoes', async () => {
    const client = await pool.connect();
    try {
      await client.query('create temporary table if not exists named_on (n integer)');
      const INSERT: NamedStatement<number> = { name: 'agentport_test_named_on_insert', text: 'insert into named_on values ($1::integer) returning n', readRow: (f) => Number(f[0]) };
      await client.query('begin');
      expect((await queryNamedOn(client, INSERT, [5])).rows).toEqual([5]);
      expect((await client.query<{ n: number }>('select n from named_on')).rows).toEqual([{ n: 5 }]);
      await client.query('rollback');
      expect((await client.query('select n from named_on')).rows).toEqual([]);
      // parsed by an execution that failed, the statement is still the server's: the next
      // execution on this connection must not Parse it again without a Close first
      const FAIL_HERE: NamedStatement<{ q: number }> = { ...FAIL, name: 'agentport_test_named_fail_here' };
      await expect(queryNamedOn(client, FAIL_HERE, [0])).rejects.toMatchObject({ code: '22012' });
      expect((await queryNamedOn(client, FAIL_HERE, [4])).rows).toEqual([{ q: 0 }]);
      await expect(queryNamedOn(client, FAIL_HERE, [0])).rejects.toMatchObject({ code: '22012' });
      expect((await queryNamedOn(client, FAIL_HERE, [1])).rows).toEqual([{ q: 1 }]);
    } finally {
      client.release();
    }
  });
});
