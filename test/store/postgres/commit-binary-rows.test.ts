/**
 * The PostgreSQL commit sends its new tasks as an array of `task_commit_new_row` in binary
 * (src/store/postgres/record-rows.ts). It replaced the array's text form (array and composite
 * input, each field as its text: String(v) for a number, quoted and escaped for a string), and
 * what PostgreSQL reads from it must be what it read from that text, column by column: the same
 * texts, NULLs where the text had an empty field, the same integers and doubles, and numerics with
 * the same digits and the same display scale (which a numeric column keeps: `0.50` is not `0.5`).
 * Each row is read back by PostgreSQL from both forms and compared as the record's output text,
 * which shows every column that way.
 */
import { describe, expect, it } from 'vitest';
import { CommitTexts } from '../../../src/store/postgres/json-rows.js';
import { NEW_TASK_FIELDS } from '../../../src/store/postgres/postgres-commit.js';
import { readRowType, RecordRows, type RowType } from '../../../src/store/postgres/record-rows.js';
import { usageRecord } from '../../support/memory-usage-store.js';
import { postgresStoreWithPool } from '../../support/postgres-store-with-pool.js';
import { newTask } from '../fixtures.js';

const db = postgresStoreWithPool('t_binrows');

/** Values per column type; null and undefined are NULL, and so are non-finite numbers. */
const TEXTS: unknown[] = [
  'task-0192f5c4-7d1e-7b3a-9f00-1a2b3c4d5e6f',
  '',
  null,
  'é ü 😀 \u2028 中文',
  'x\ud800y lone surrogate',
  'NULL',
  'say "hi" \\ and \\" a,b)(c {d,e}',
  '  padded  ',
  'line\nnext\ttab',
  undefined,
  'ascii '.repeat(200),
  12.5,
];
const INT4S: unknown[] = [0, -0, 1, -1, 2147483647, -2147483648, null, 42, Number.NaN, 65536, -65535];
const INT8S: unknown[] = [
  0,
  -0,
  1_800_000_000_000,
  -1_800_000_000_123,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 62,
  -(2 ** 62) - 2 ** 40 - 1,
  2 ** 63 - 2 ** 11,
  2 ** 32,
  -(2 ** 32) - 1,
  4294967295,
  null,
  Number.POSITIVE_INFINITY,
];
const FLOAT8S: unknown[] = [0, -0, 0.1 + 0.2, -1.5, 5e-324, 1.7976931348623157e308, 1e21, 123456.789, null, -2.5e-8, 3, Number.NEGATIVE_INFINITY];
const NUMERICS: unknown[] = [
  0,
  -0,
  0.1 + 0.2,
  1e-7,
  -1e-7,
  1.5e21,
  1e21,
  123456789.123456,
  -98765.4321,
  0.0001,
  0.00012345,
  12345678901234567000,
  5e-324,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  10000,
  100000000,
  1,
  0.5,
  -0.000001,
  9999.9999,
  1234.5,
  99999999,
  100010001,
  0.00010001,
  Number.MAX_SAFE_INTEGER,
  1.2345678901234568e-10,
  null,
  Number.NaN,
];

/** Each column's values by its type's oid (text 25, int8 20, int4 23, float8 701, numeric 1700). */
const BY_TYPE: Record<number, unknown[]> = { 25: TEXTS, 20: INT8S, 23: INT4S, 701: FLOAT8S, 1700: NUMERICS };

/** Row k, column c: the column type's value (k + c), so every value meets every column of its type and NULLs move about. */
function rows(type: RowType, count: number): unknown[][] {
  return Array.from({ length: count }, (_, k) =>
    type.types.map((t, c) => {
      const values = BY_TYPE[t]!;
      return values[(k + c) % values.length];
    }),
  );
}

/** The array's text form as the commit wrote it before: a field as its text, every field and row quoted and escaped. */
function escaped(s: string): string {
  return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
function textField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return escaped(String(v));
}
function textArray(values: unknown[][]): string {
  return `{${values.map((r) => escaped(`(${r.map(textField).join(',')})`)).join(',')}}`;
}

function binaryArray(type: RowType, values: unknown[][]): Buffer {
  const r = new RecordRows(new CommitTexts(), type);
  for (const row of values) {
    r.beginRow();
    for (let c = 0; c < row.length; c++) r.value(type.names[c]!, row[c]);
    r.endRow();
  }
  return r.toBuffer();
}

/** PostgreSQL's output text of each row of the parameter, in order. */
async function readBack(param: string | Buffer): Promise<string[]> {
  const { rows: out } = await db.pool.query<{ row: string }>('select (($1::task_commit_new_row[])[i])::text as row from generate_subscripts($1::task_commit_new_row[], 1) as i order by i', [param]);
  return out.map((r) => r.row);
}

describe('PostgreSQL commit: the new tasks array in binary', () => {
  it('is read by PostgreSQL as the same rows as its text form, column by column', async () => {
    const type = await readRowType(db.pool, 'task_commit_new_row', NEW_TASK_FIELDS);
    expect(type.names).toEqual([...NEW_TASK_FIELDS]);
    // As many rows as the longest list, so each numeric is in the cost column once at least.
    const values = rows(type, NUMERICS.length + type.names.length);
    const binary = await readBack(binaryArray(type, values));
    const text = await readBack(textArray(values));
    expect(binary).toHaveLength(values.length);
    for (let k = 0; k < values.length; k++) expect(binary[k], `row ${k}`).toBe(text[k]);
    // And the same composite values by the type's own comparison (NULLs equal).
    const { rows: same } = await db.pool.query<{ same: boolean }>(
      'select bool_and(($1::task_commit_new_row[])[i] is not distinct from ($2::task_commit_new_row[])[i]) as same from generate_subscripts($1::task_commit_new_row[], 1) as i',
      [binaryArray(type, values), textArray(values)],
    );
    expect(same[0]!.same).toBe(true);
  });

  it('reads each numeric with the display scale of its text, a fraction of many digits, a large exponent and zero among them', async () => {
    const type = await readRowType(db.pool, 'task_commit_new_row', NEW_TASK_FIELDS);
    const cost = type.names.indexOf('usage_cost');
    const finite = NUMERICS.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const values = finite.map((v) => type.names.map((_, c) => (c === cost ? v : null)));
    const { rows: out } = await db.pool.query<{ binary: string; text: string }>(
      `select (($1::task_commit_new_row[])[i]).usage_cost::text as binary, (($2::text[])[i])::numeric::text as text
         from generate_subscripts($1::task_commit_new_row[], 1) as i order by i`,
      [binaryArray(type, values), finite.map(String)],
    );
    expect(out.map((r) => r.binary)).toEqual(out.map((r) => r.text));
    expect(out.map((r) => r.binary).slice(0, 4)).toEqual(['0', '0', '0.30000000000000004', '0.0000001']);
  });

  it('refuses the numbers the text form was refused for: a fraction or past the range of an integer column', async () => {
    const type = await readRowType(db.pool, 'task_commit_new_row', NEW_TASK_FIELDS);
    const refused: [string, number][] = [
      ['seq', 1.5],
      ['seq', 2 ** 31],
      ['seq', -(2 ** 31) - 1],
      ['status_time', 0.5],
      ['status_time', -(2 ** 63)],
      ['status_time', 2 ** 63],
      ['status_time', 1e21],
    ];
    for (const [column, v] of refused) {
      const values = [type.names.map((name) => (name === column ? v : null))];
      expect(() => binaryArray(type, values), `${column} ${v}`).toThrow(RangeError);
      await expect(readBack(textArray(values)), `${column} ${v}`).rejects.toThrow();
    }
  });

  it('holds an empty array and a batch past its first room', async () => {
    const type = await readRowType(db.pool, 'task_commit_new_row', NEW_TASK_FIELDS);
    expect(await readBack(binaryArray(type, []))).toEqual([]);
    const values = rows(type, 300).map((r) => r.map((v) => (typeof v === 'string' ? `${v} ${'€'.repeat(100)}` : v)));
    expect(await readBack(binaryArray(type, values))).toEqual(await readBack(textArray(values)));
  });

  it('stores a new task with its usage record as the text form stored it', async () => {
    // The cost adds up (0.1 + 0.2 in binary floating point) and the duration is -0, whose text was "0".
    const c = newTask();
    const usage = usageRecord({
      id: c.task.id,
      kind: 'task',
      time: 1_800_000_000_000,
      taskId: c.task.id,
      subject: 'someone else',
      durationMs: -0,
      bytesIn: 2 ** 40,
      promptTokens: 0,
      completionTokens: 123_456_789_012,
      cost: 0.1 + 0.2,
      model: 'modèle 😀',
    });
    c.usage = usage;
    await db.store.commit([c]);
    const { rows: out } = await db.pool.query<Record<string, string | null>>(
      `select usage_cost::text as cost, $2::numeric::text as cost_text, usage_duration_ms::text as duration, usage_bytes_in::text as bytes_in,
              usage_completion_tokens::text as completion, usage_model as model, usage_subject as subject, usage_skill as skill
         from tasks where id = $1`,
      [c.task.id, String(usage.cost)],
    );
    expect(out[0]).toEqual({
      cost: '0.30000000000000004',
      cost_text: '0.30000000000000004',
      duration: '0',
      bytes_in: String(2 ** 40),
      completion: '123456789012',
      model: 'modèle 😀',
      subject: 'someone else',
      skill: null,
    });
  });
});
