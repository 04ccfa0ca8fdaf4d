/**
 * The query guard's two stages in process (src/agents/table-expert/sql/guard.ts): the token stage
 * on the text, and the tree stage on DuckDB's own parse tree (json_serialize_sql, from an
 * in-memory DuckDB, as the engine asks it). Each statement's expected outcome is the guard's
 * documented rule (one SELECT over the dataset tables; files only inside the datasets; no
 * statement, function or setting that leaves the sandbox), with the reason code named. The same
 * statements against a running Table Expert: guard.test.ts.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSqlAst, checkSqlText, insideRoots, QueryRejectedError, type AstContext } from '../../../src/agents/table-expert/sql/guard.js';

const ROOT = '/data/sets/sample';
const ctx: AstContext = { tables: new Set(['orders', 'customers', 'order_lines']), fileRoots: [ROOT, '/data/one.csv'] };

let db: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
});
afterAll(() => {
  conn?.closeSync();
  db?.closeSync();
});

/** The guard's verdict on a statement: 'accepted' or the reason code of its refusal. */
async function verdict(sql: string, context: AstContext = ctx): Promise<string> {
  try {
    const text = checkSqlText(sql, { maxSqlChars: 1000 });
    const serialized = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [text]);
    checkSqlAst(String(serialized.getRows()[0]?.[0] ?? ''), context);
    return 'accepted';
  } catch (e) {
    if (e instanceof QueryRejectedError) return e.code;
    throw e;
  }
}

function refusal(f: () => void): QueryRejectedError {
  try {
    f();
  } catch (e) {
    if (e instanceof QueryRejectedError) return e;
    throw e;
  }
  throw new Error('expected a QueryRejectedError');
}

describe('the token stage', () => {
  it('returns the statement without its trailing semicolons and surrounding space', () => {
    expect(checkSqlText('  SELECT 1 ;; ', { maxSqlChars: 100 })).toBe('SELECT 1');
    expect(checkSqlText('SELECT 1', { maxSqlChars: 8 })).toBe('SELECT 1');
  });

  it('names each refusal with its reason', () => {
    const tooLong = refusal(() => checkSqlText('SELECT 12', { maxSqlChars: 8 }));
    expect([tooLong.code, tooLong.reason]).toEqual(['too_long', 'the statement is 9 characters long; the limit is 8']);
    expect(tooLong.message).toBe('Query rejected: the statement is 9 characters long; the limit is 8');
    expect(tooLong.name).toBe('QueryRejectedError');
    const unreadable = refusal(() => checkSqlText("SELECT 'open", { maxSqlChars: 100 }));
    expect(unreadable.code).toBe('unreadable');
    expect(unreadable.reason).toMatch(/ at offset 7$/);
    expect(refusal(() => checkSqlText('  ', { maxSqlChars: 100 })).reason).toBe('the statement is empty');
    expect(refusal(() => checkSqlText(';', { maxSqlChars: 100 })).code).toBe('empty');
    expect(refusal(() => checkSqlText('SELECT 1; SELECT 2', { maxSqlChars: 100 })).reason).toBe('only one statement is allowed; remove everything after the first ";"');
    const notSelect = refusal(() => checkSqlText('VACUUM', { maxSqlChars: 100 }));
    expect([notSelect.code, notSelect.reason]).toEqual(['not_select', 'only a SELECT (or WITH … SELECT) statement is allowed; this one starts with "VACUUM"']);
    expect(refusal(() => checkSqlText('((', { maxSqlChars: 100 })).reason).toMatch(/starts with nothing$/);
    expect(refusal(() => checkSqlText("'x'", { maxSqlChars: 100 })).code).toBe('not_select');
    const keyword = refusal(() => checkSqlText('SELECT * FROM t WHERE x IN (select 1) AND load', { maxSqlChars: 100 }));
    expect([keyword.code, keyword.reason]).toEqual(['forbidden_keyword', 'LOAD is not allowed in a read-only query (only SELECT is); if it is a column name, write it in double quotes']);
    expect(refusal(() => checkSqlText('SELECT $1', { maxSqlChars: 100 })).reason).toBe('parameters ($1) are not supported; write the values into the statement');
  });

  it('starts with SELECT, WITH, FROM, VALUES or a parenthesis before them, in any case', () => {
    for (const sql of ['select 1', 'With x AS (SELECT 1) SELECT * FROM x', 'FROM orders', 'VALUES (1)', '((SELECT 1))']) expect(checkSqlText(sql, { maxSqlChars: 100 })).toBe(sql);
  });
});

describe('both stages on DuckDB’s parse tree', () => {
  it.each([
    ['SELECT count(*) FROM orders', 'accepted'],
    ['SELECT * FROM Orders o JOIN main.customers c ON true', 'accepted'],
    ['SELECT * FROM memory.main.order_lines', 'accepted'],
    ['WITH big AS (SELECT * FROM orders) SELECT * FROM big', 'accepted'],
    ['WITH Big AS (SELECT 1) SELECT * FROM big', 'accepted'],
    ['SELECT * FROM range(10)', 'accepted'],
    ['SELECT * FROM generate_series(1, 3)', 'accepted'],
    [`SELECT * FROM read_parquet('${ROOT}/orders.parquet')`, 'accepted'],
    [`SELECT * FROM read_csv(['${ROOT}/a.csv', '${ROOT}/sub/b.csv'])`, 'accepted'],
    ["SELECT * FROM read_csv('/data/one.csv')", 'accepted'],
    [`SELECT * FROM read_csv('${ROOT}')`, 'accepted'],
    ["SELECT repeat('x', 10000)", 'accepted'],
    ["SELECT lpad('x', '20', ' ')", 'accepted'],
    ['SELECT upper(status) FROM orders', 'accepted'],
    ['SELECT * FROM main.nothing', 'unknown_table'],
    ['SELECT * FROM sqlite_master', 'unknown_table'],
    ['SELECT * FROM information_schema.tables', 'forbidden_table'],
    ['SELECT * FROM pg_catalog.pg_tables', 'forbidden_table'],
    ['SELECT * FROM other.main.orders', 'forbidden_table'],
    ['WITH x AS (SELECT 1) SELECT * FROM other.x', 'forbidden_table'],
    ["SELECT * FROM '/etc/passwd'", 'file_outside_datasets'],
    ["SELECT * FROM 'orders.csv'", 'file_outside_datasets'],
    ["SELECT * FROM read_csv('/etc/passwd')", 'file_outside_datasets'],
    ["SELECT * FROM read_csv_auto('/etc/passwd')", 'file_outside_datasets'],
    ["SELECT * FROM read_json('/proc/self/environ')", 'file_outside_datasets'],
    ["SELECT * FROM read_ndjson_auto('/tmp/x.json')", 'file_outside_datasets'],
    ["SELECT * FROM parquet_scan('/tmp/x.parquet')", 'file_outside_datasets'],
    [`SELECT * FROM read_parquet('${ROOT}/../../agentport.db')`, 'file_outside_datasets'],
    [`SELECT * FROM read_parquet('${ROOT}-other/x.parquet')`, 'file_outside_datasets'],
    ["SELECT * FROM read_parquet('https://example.com/x.parquet')", 'file_outside_datasets'],
    [`SELECT * FROM read_parquet(['${ROOT}/orders.parquet', '/etc/passwd'])`, 'file_outside_datasets'],
    [`SELECT * FROM read_parquet(['${ROOT}/orders.parquet', 1])`, 'file_outside_datasets'],
    ["SELECT * FROM read_csv((SELECT '/etc/passwd'))", 'file_outside_datasets'],
    ['SELECT * FROM read_csv(NULL)', 'file_outside_datasets'],
    ["SELECT * FROM glob('/*')", 'forbidden_function'],
    [`SELECT * FROM parquet_metadata('${ROOT}/orders.parquet')`, 'forbidden_function'],
    ["SELECT * FROM query('SELECT 42')", 'forbidden_function'],
    ['SELECT * FROM duckdb_settings()', 'forbidden_function'],
    ['SELECT * FROM pragma_database_list()', 'forbidden_function'],
    ["SELECT * FROM read_text('/etc/passwd')", 'forbidden_function'],
    ["SELECT getenv('HOME')", 'forbidden_function'],
    ["SELECT current_setting('threads')", 'forbidden_function'],
    ['SELECT duckdb_version()', 'forbidden_function'],
    ['SELECT pragma_version()', 'forbidden_function'],
    ["SELECT repeat('x', 10001)", 'forbidden_function'],
    ["SELECT repeat('x', 2000000000)", 'forbidden_function'],
    ["SELECT rpad('x', (SELECT 5), ' ')", 'forbidden_function'],
    ['SELECT repeat(status, order_id) FROM orders', 'forbidden_function'],
  ])('%s → %s', async (sql, expected) => {
    expect(await verdict(sql)).toBe(expected);
  });

  it('an unknown table is named with the tables there are; with none, only its name', async () => {
    const named = refusal(() => checkSqlAst(JSON.stringify({ error: false, statements: [{ node: { from_table: { type: 'BASE_TABLE', table_name: 'nothing' } } }] }), ctx));
    expect(named.reason).toBe('there is no table named "nothing" (tables: customers, order_lines, orders)');
    const none = refusal(() => checkSqlAst(JSON.stringify({ error: false, statements: [{ node: { from_table: { type: 'BASE_TABLE', table_name: 'nothing' } } }] }), { tables: new Set(), fileRoots: [] }));
    expect(none.reason).toBe('there is no table named "nothing"');
  });

  it('the refusals name what they refused', () => {
    const tree = (node: object) => JSON.stringify({ error: false, statements: [{ node }] });
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'BASE_TABLE', table_name: 'tables', schema_name: 'information_schema' } }), ctx)).reason).toBe(
      'information_schema.tables is not one of the dataset tables; only the tables of the datasets can be read',
    );
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'BASE_TABLE', table_name: 'x.csv' } }), ctx)).reason).toBe('reading files by name ("x.csv") is not allowed; query the dataset tables instead');
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'Glob', children: [] } } }), ctx)).reason).toBe(
      'table function glob() is not allowed; read the dataset tables instead',
    );
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'range', schema: 'other', children: [] } } }), ctx)).reason).toBe('table function other.range is not allowed');
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'read_csv', children: [] } } }), ctx)).reason).toBe('read_csv needs a constant file path inside a dataset folder');
    expect(refusal(() => checkSqlAst(tree({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'read_csv', children: [{ class: 'CONSTANT', value: { value: '/etc/x' } }] } } }), ctx)).reason).toBe(
      'read_csv("/etc/x") reads outside the declared datasets; only dataset files can be read',
    );
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'GETENV', children: [] } }), ctx)).reason).toBe('function getenv() is not allowed');
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'repeat', children: [{}, { class: 'CONSTANT', value: { value: 10001 } }] } }), ctx)).reason).toBe(
      'repeat() needs a constant length of at most 10000',
    );
    // a table function in the default schema is checked like one without a schema
    expect(() => checkSqlAst(tree({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'range', schema: 'main', children: [] } } }), ctx)).not.toThrow();
    // a CTE name does not cover a qualified table of the same name
    const cte = { cte_map: { map: [{ key: 'Orders2' }] } };
    expect(() => checkSqlAst(tree({ ...cte, t: { type: 'BASE_TABLE', table_name: 'orders2' } }), ctx)).not.toThrow();
    expect(refusal(() => checkSqlAst(tree({ ...cte, t: { type: 'BASE_TABLE', table_name: 'orders2', schema_name: 'main' } }), ctx)).code).toBe('unknown_table');
    // sizes written as numeric strings are numbers; other strings are not constants
    expect(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'CONSTANT', value: { value: '10000.0' } }] } }), ctx)).not.toThrow();
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'CONSTANT', value: { value: '10001' } }] } }), ctx)).code).toBe('forbidden_function');
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'CONSTANT', value: { value: '1e3' } }] } }), ctx)).code).toBe('forbidden_function');
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'CONSTANT', value: { value: 5, is_null: true } }] } }), ctx)).code).toBe('forbidden_function');
    expect(refusal(() => checkSqlAst(tree({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'COLUMN_REF', value: { value: 5 } }] } }), ctx)).code).toBe('forbidden_function');
    // list_pack of constant paths is read like list_value
    const listed = {
      t: { type: 'TABLE_FUNCTION', function: { function_name: 'read_csv', children: [{ class: 'FUNCTION', function_name: 'list_pack', children: [{ class: 'CONSTANT', value: { value: `${ROOT}/a.csv` } }] }] } },
    };
    expect(() => checkSqlAst(tree(listed), ctx)).not.toThrow();
    const empty = { t: { type: 'TABLE_FUNCTION', function: { function_name: 'read_csv', children: [{ class: 'FUNCTION', function_name: 'list_value', children: [] }] } } };
    expect(refusal(() => checkSqlAst(tree(empty), ctx)).reason).toBe('read_csv needs a constant file path inside a dataset folder');
  });

  it('what DuckDB cannot parse, or says is not a SELECT, or holds other than one statement, is refused', () => {
    expect(refusal(() => checkSqlAst('not json', ctx)).code).toBe('parse_error');
    expect(refusal(() => checkSqlAst('[1]', ctx)).reason).toBe('the statement could not be parsed');
    expect(refusal(() => checkSqlAst('"text"', ctx)).code).toBe('parse_error');
    const notSelect = refusal(() => checkSqlAst(JSON.stringify({ error: true, error_message: 'Only SELECT statements can be serialized to json!' }), ctx));
    expect([notSelect.code, notSelect.reason]).toEqual(['not_select', 'only a SELECT (or WITH … SELECT) statement is allowed']);
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: true, error_message: 'syntax error at or near "FROM"' }), ctx)).reason).toBe('syntax error at or near "FROM"');
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: true }), ctx)).reason).toBe('parse error');
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: false, statements: [] }), ctx)).reason).toBe('only one statement is allowed');
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: false, statements: [{}, {}] }), ctx)).code).toBe('multiple_statements');
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: false }), ctx)).code).toBe('multiple_statements');
  });

  it('DuckDB’s own refusal of a statement that is not a SELECT reaches the tree stage as not_select', async () => {
    const serialized = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', ['SELECT 1; SELECT 2']);
    expect(refusal(() => checkSqlAst(String(serialized.getRows()[0]?.[0]), ctx)).code).toBe('multiple_statements');
  });
});

describe('insideRoots', () => {
  it.each([
    [`${ROOT}/a.csv`, true],
    [ROOT, true],
    [`${ROOT}/`, true],
    [`${ROOT}/x/../a.csv`, true],
    [`${ROOT}/../x.csv`, false],
    [`${ROOT}x/a.csv`, false],
    ['/data/one.csv', true],
    ['/data/one.csv/x', true],
    ['/data/one.csvx', false],
    ['sample/a.csv', false],
    ['file:///data/sets/sample/a.csv', false],
    ['s3://b/x', false],
  ])('%s: %s', (p, inside) => {
    expect(insideRoots(p, [ROOT, '/data/one.csv'])).toBe(inside);
  });

  it('a root given with a trailing separator matches the same paths', () => {
    expect(insideRoots(`${ROOT}/a.csv`, [`${ROOT}/`])).toBe(true);
    expect(insideRoots(`${ROOT}x/a.csv`, [`${ROOT}/`])).toBe(false);
  });
});

describe('the guard’s lists and edges, one by one', () => {
  const tree = (node: object) => JSON.stringify({ error: false, statements: [{ node }] });
  const astVerdict = (node: object, context: AstContext = ctx) => {
    try {
      checkSqlAst(tree(node), context);
      return 'accepted';
    } catch (e) {
      if (e instanceof QueryRejectedError) return e.code;
      throw e;
    }
  };

  // Every statement and clause of DuckDB's grammar that writes, configures, loads, transacts or
  // describes instead of selecting (written out from the DuckDB statement list, not read from the guard).
  const WRITE_OR_CONTROL = [
    'insert',
    'update',
    'delete',
    'merge',
    'upsert',
    'create',
    'drop',
    'alter',
    'truncate',
    'attach',
    'detach',
    'copy',
    'export',
    'import',
    'install',
    'load',
    'force',
    'pragma',
    'set',
    'reset',
    'call',
    'checkpoint',
    'vacuum',
    'analyze',
    'grant',
    'revoke',
    'begin',
    'commit',
    'rollback',
    'abort',
    'transaction',
    'use',
    'prepare',
    'execute',
    'deallocate',
    'comment',
    'describe',
    'show',
    'summarize',
    'explain',
    'secret',
  ];
  it.each(WRITE_OR_CONTROL)('the word %s anywhere in a SELECT is refused; quoted, it is a name', (word) => {
    expect(refusal(() => checkSqlText(`SELECT a FROM t WHERE ${word.toUpperCase()} = 1`, { maxSqlChars: 200 })).code).toBe('forbidden_keyword');
    expect(checkSqlText(`SELECT "${word}", '${word}' FROM t`, { maxSqlChars: 200 })).toBe(`SELECT "${word}", '${word}' FROM t`);
  });

  it('codes of the token stage: empty, multiple statements (a leading ";" too), parameters', () => {
    expect(refusal(() => checkSqlText('  ', { maxSqlChars: 100 })).code).toBe('empty');
    expect(refusal(() => checkSqlText(';', { maxSqlChars: 100 })).reason).toBe('the statement is empty');
    expect(refusal(() => checkSqlText('SELECT 1; SELECT 2', { maxSqlChars: 100 })).code).toBe('multiple_statements');
    expect(refusal(() => checkSqlText('; SELECT 1', { maxSqlChars: 100 })).code).toBe('multiple_statements');
    expect(refusal(() => checkSqlText('SELECT $1', { maxSqlChars: 100 })).code).toBe('not_select');
  });

  it('generators and dataset file readers by name: unnest, read_json_auto, read_ndjson inside the datasets are read', async () => {
    expect(await verdict('SELECT * FROM unnest([1, 2])')).toBe('accepted');
    expect(await verdict(`SELECT * FROM read_json_auto('${ROOT}/a.json')`)).toBe('accepted');
    expect(await verdict(`SELECT * FROM read_ndjson('${ROOT}/a.ndjson')`)).toBe('accepted');
    expect(await verdict(`SELECT * FROM read_csv_auto('${ROOT}/a.csv')`)).toBe('accepted');
  });

  it.each(['read_text', 'read_blob', 'query', 'query_table', 'getenv', 'current_setting', 'duckdb_x', 'pragma_x'])('the scalar %s() is refused', (name) => {
    expect(astVerdict({ f: { class: 'FUNCTION', function_name: name, children: [] } })).toBe('forbidden_function');
  });

  it('only a FUNCTION node names a function, only a BASE_TABLE a table, only a TABLE_FUNCTION a table function', () => {
    expect(astVerdict({ c: { class: 'CONSTANT', function_name: 'getenv' } })).toBe('accepted');
    expect(astVerdict({ c: { type: 'COLUMN_REF', table_name: 'nothing' } })).toBe('accepted');
    expect(astVerdict({ t: { type: 'BASE_TABLE' } })).toBe('accepted');
    expect(astVerdict({ t: { type: 'SUBQUERY', function: { function_name: 'glob' } } })).toBe('accepted');
    expect(astVerdict({ t: { type: 'TABLE_FUNCTION', function: 'glob' } })).toBe('accepted');
    expect(astVerdict({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'range', schema: 5, children: [] } } })).toBe('accepted');
    expect(astVerdict({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'range', schema: 'other', children: [] } } })).toBe('forbidden_function');
  });

  it('a tree with lists of plain values, nulls and odd CTE entries is walked without error', () => {
    expect(astVerdict({ list: ['abc', 1, null, true], cte_map: { map: [{ key: 5 }, 'x', { key: 'Big' }] }, t: { type: 'BASE_TABLE', table_name: 'BIG' } })).toBe('accepted');
    expect(refusal(() => checkSqlAst('null', ctx)).code).toBe('parse_error');
    expect(refusal(() => checkSqlAst('not json', ctx)).reason).toBe('the statement could not be parsed');
    expect(refusal(() => checkSqlAst(JSON.stringify({ error: true, error_message: 'syntax error' }), ctx)).code).toBe('parse_error');
  });

  it('a file path must be a constant string or a list_value/list_pack of them; other functions and nodes are not', () => {
    const reader = (arg: object | undefined) => ({ t: { type: 'TABLE_FUNCTION', function: { function_name: 'read_csv', ...(arg ? { children: [arg] } : {}) } } });
    const inside = { class: 'CONSTANT', value: { value: `${ROOT}/a.csv` } };
    expect(astVerdict(reader(inside))).toBe('accepted');
    expect(astVerdict(reader({ class: 'FUNCTION', function_name: 'concat', children: [inside] }))).toBe('file_outside_datasets');
    expect(astVerdict(reader({ class: 'OPERATOR', function_name: 'list_value', children: [inside] }))).toBe('file_outside_datasets');
    expect(astVerdict(reader({ class: 'FUNCTION', function_name: 'list_value', children: [inside, inside] }))).toBe('accepted');
    expect(astVerdict(reader(undefined))).toBe('file_outside_datasets');
  });

  it('an amplifier’s size may be written as a decimal string; no size at all is refused', () => {
    const pad = (size: unknown) => ({ f: { class: 'FUNCTION', function_name: 'lpad', children: [{}, { class: 'CONSTANT', value: { value: size } }] } });
    expect(astVerdict(pad('10000.00'))).toBe('accepted');
    expect(astVerdict(pad('-5'))).toBe('accepted');
    expect(astVerdict(pad(true))).toBe('forbidden_function');
    expect(astVerdict({ f: { class: 'FUNCTION', function_name: 'repeat' } })).toBe('forbidden_function');
  });

  it('an unknown table’s refusal lists at most 30 of the tables there are', () => {
    const many = new Set(Array.from({ length: 31 }, (_, i) => `t${String(i).padStart(2, '0')}`));
    const reason = refusal(() => checkSqlAst(tree({ t: { type: 'BASE_TABLE', table_name: 'nothing' } }), { tables: many, fileRoots: [] })).reason;
    expect(reason).toContain('t29)');
    expect(reason).not.toContain('t30');
  });

  it('paths: a relative path is never inside, even under a root that is the working directory; a colon inside an absolute path is fine', () => {
    expect(insideRoots('a.csv', [process.cwd()])).toBe(false);
    expect(insideRoots(`${ROOT}/a:b.csv`, [ROOT])).toBe(true);
    expect(insideRoots('/a:b', ['/'])).toBe(true);
  });
});
