/**
 * Array parameters written as array input text (src/store/postgres/array-literal.ts): the text is
 * the one pg itself writes for the same JS array, and PostgreSQL reads every element back exactly,
 * whatever it holds (quotes, backslashes, delimiters, braces, spaces, the word NULL, the empty
 * string, non-ASCII), with null and undefined as NULL; numbers read back as the numbers they were.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../../src/store/postgres/array-literal.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

const AWKWARD = ['plain', 'a"b', 'back\\slash', '\\"', 'a,b', '{x}', ' lead and trail ', 'NULL', 'null', '', 'é ☃ 𝄞', 'tab\there', 'new\nline', '"', '\\'];

/** pg's parameter conversion (untyped in @types/pg), which arrayLiteral replaces for arrays. */
const utils = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };
/** What pg sends for a JS array parameter. */
const pgText = (values: unknown[]): unknown => utils.prepareValue(values);

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
});

describe('arrayLiteral', () => {
  it('writes the text pg writes for the same array', () => {
    expect(arrayLiteral(AWKWARD)).toBe(pgText(AWKWARD));
    expect(arrayLiteral(['x', null, undefined, 'y'])).toBe(pgText(['x', null, undefined, 'y']));
    expect(arrayLiteral([1.5, null, -0, 12_345_678_901, Number.NaN])).toBe(pgText([1.5, null, -0, 12_345_678_901, Number.NaN]));
    expect(arrayLiteral([])).toBe(pgText([]));
  });

  it('reads back as the same strings in PostgreSQL, nulls as NULL', async () => {
    const values = [...AWKWARD, null];
    const { rows } = await client.query<{ a: (string | null)[] }>('select $1::text[] as a', [arrayLiteral(values)]);
    expect(rows[0]!.a).toEqual(values);
  });

  it('reads back as the same numbers for numeric array types', async () => {
    const { rows } = await client.query<{ d: (number | null)[]; b: (string | null)[] }>('select $1::double precision[] as d, $2::bigint[] as b', [
      arrayLiteral([0.25, null, 1234.5678]),
      arrayLiteral([0, 9_007_199_254_740_991, null]),
    ]);
    expect(rows[0]!.d).toEqual([0.25, null, 1234.5678]);
    expect(rows[0]!.b).toEqual(['0', '9007199254740991', null]);
  });

  it('keeps a single awkward element one element', async () => {
    for (const s of AWKWARD) {
      const { rows } = await client.query<{ a: string[] }>('select $1::text[] as a', [arrayLiteral([s])]);
      expect(rows[0]!.a).toEqual([s]);
    }
  });
});
