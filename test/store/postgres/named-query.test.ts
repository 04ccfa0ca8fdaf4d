/**
 * A named statement run as a query object through the pool (src/store/postgres/named-query.ts), as
 * the PostgreSQL store's hot statements are: the promise settles with the result, read with the
 * pool's own type parsers; the statement is parsed once a connection and then only bound and
 * executed under its name; a failure rejects the promise; either way the connection goes back to
 * the pool.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryNamed } from '../../../src/store/postgres/named-query.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADD = { name: 'agentport_test_named_add', text: 'select $1::bigint + $2::bigint as sum' };
const FAIL = { name: 'agentport_test_named_fail', text: 'select 1 / $1::integer as q' };

let pool: pg.Pool;
/** the Parse messages the pool's one connection sent, by statement name */
const parsed: string[] = [];

beforeAll(() => {
  pool = new pg.Pool({
    connectionString: url,
    max: 1,
    // int8 as numbers, as the store's pool reads them (postgres-store.ts)
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'] },
  });
  pool.on('connect', (client) => {
    const connection = (client as unknown as { connection: { parse: (m: { name?: string }) => void } }).connection;
    const parse = connection.parse.bind(connection);
    connection.parse = (m) => {
      parsed.push(m.name ?? '');
      parse(m);
    };
  });
});

afterAll(async () => {
  await pool?.end();
});

describe('queryNamed', () => {
  it('settles with the rows, read by the pool’s type parsers', async () => {
    const { rows } = await queryNamed<{ sum: number }>(pool, ADD, [40, 2]);
    expect(rows).toEqual([{ sum: 42 }]);
  });

  it('parses the statement once a connection, then runs it by name', async () => {
    const before = parsed.filter((n) => n === ADD.name).length;
    for (let i = 0; i < 3; i++) expect((await queryNamed<{ sum: number }>(pool, ADD, [i, 1])).rows[0]!.sum).toBe(i + 1);
    expect(parsed.filter((n) => n === ADD.name).length - before).toBe(0);
    const { rows } = await pool.query<{ name: string }>('select name from pg_prepared_statements where name = $1', [ADD.name]);
    expect(rows).toEqual([{ name: ADD.name }]);
  });

  it('rejects when the statement fails, and gives the connection back either way', async () => {
    await expect(queryNamed(pool, FAIL, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await queryNamed<{ q: number }>(pool, FAIL, [1])).rows).toEqual([{ q: 1 }]);
    expect(pool.totalCount).toBe(1);
    expect(pool.idleCount).toBe(1);
    expect(pool.waitingCount).toBe(0);
  });
});
