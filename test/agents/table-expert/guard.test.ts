/**
 * The query guard against hostile statements, sent as `query` requests over A2A to a real server:
 * every one is refused with a reason, or bounded by the time, row or memory limit; afterwards the
 * data is intact, nothing was written outside, and the server (and its other agents) still answer.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSqlText, QueryRejectedError } from '../../../src/agents/table-expert/sql/guard.js';
import { tokenize } from '../../../src/agents/table-expert/sql/lexer.js';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { send, startTableExpert } from './helpers.js';

type Outcome = 'refused' | 'bounded' | 'harmless';
const OUT = path.join(tmpdir(), `te-guard-${process.pid}`);
const SAMPLE = '<sample>';

/** [statement, expected outcome, what it tries] — `<sample>` is the sample folder of this server. */
const HOSTILE: Array<[string, Outcome, string]> = [
  // DDL
  ['DROP TABLE orders', 'refused', 'ddl'],
  ['CREATE TABLE x AS SELECT * FROM orders', 'refused', 'ddl'],
  ['CREATE VIEW v AS SELECT 1', 'refused', 'ddl'],
  ['CREATE OR REPLACE VIEW orders AS SELECT 1 AS order_id', 'refused', 'ddl'],
  ['ALTER TABLE orders ADD COLUMN x INTEGER', 'refused', 'ddl'],
  ['TRUNCATE orders', 'refused', 'ddl'],
  ['CREATE MACRO leak(x) AS x', 'refused', 'ddl'],
  ["CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')", 'refused', 'ddl'],
  // DML
  ["INSERT INTO orders VALUES (1, 1, DATE '2024-01-01', 'x', 'y')", 'refused', 'dml'],
  ["UPDATE orders SET status = 'x'", 'refused', 'dml'],
  ['DELETE FROM orders', 'refused', 'dml'],
  ['WITH x AS (SELECT 1) INSERT INTO orders SELECT * FROM x', 'refused', 'dml in a CTE'],
  ['MERGE INTO orders USING orders o2 ON orders.order_id = o2.order_id WHEN MATCHED THEN DELETE', 'refused', 'dml'],
  // several statements
  ['SELECT 1; DROP TABLE orders', 'refused', 'stacked'],
  ['SELECT 1;DELETE FROM orders;', 'refused', 'stacked'],
  ['SELECT 1; SELECT 2', 'refused', 'stacked'],
  // comments and strings hiding statements
  ['SELECT 1 /* ; */ ; DROP TABLE orders', 'refused', 'comment'],
  ['SELECT 1 -- comment\n; DROP TABLE orders', 'refused', 'comment'],
  ['/* SELECT */ DROP TABLE orders', 'refused', 'comment'],
  ['SELECT 1 --\nDROP TABLE orders', 'refused', 'comment'],
  ['SELECT 1 /* nested /* */ ; DROP TABLE orders */', 'harmless', 'nested comment: the DROP is inside it'],
  ["SELECT 'a'';DROP TABLE orders;--' AS s", 'harmless', 'string'],
  ['SELECT $$;DROP TABLE orders;$$ AS s', 'harmless', 'dollar string'],
  ["SELECT E'x\\';' ; DROP TABLE orders", 'refused', 'escape string'],
  ['SELECT 1 /* unterminated', 'refused', 'unterminated comment'],
  ['ＤＲＯＰ TABLE orders', 'refused', 'full-width letters'],
  // files and URLs outside the datasets
  ["SELECT * FROM read_csv('/etc/passwd')", 'refused', 'file'],
  ["SELECT * FROM read_csv_auto('/etc/passwd')", 'refused', 'file'],
  ["SELECT * FROM '/etc/passwd'", 'refused', 'replacement scan'],
  ["SELECT * FROM read_text('/etc/passwd')", 'refused', 'file'],
  ["SELECT * FROM read_blob('/etc/hostname')", 'refused', 'file'],
  ["SELECT * FROM glob('/*')", 'refused', 'glob'],
  [`SELECT * FROM read_parquet('${SAMPLE}/../../agentport.db')`, 'refused', 'path escape with ..'],
  ["SELECT * FROM read_json('/proc/self/environ')", 'refused', 'file'],
  ["SELECT * FROM read_parquet('https://example.com/x.parquet')", 'refused', 'url'],
  ["SELECT * FROM read_csv('s3://bucket/x.csv')", 'refused', 'url'],
  [`SELECT * FROM parquet_metadata('${SAMPLE}/orders.parquet')`, 'refused', 'metadata reader'],
  ["SELECT * FROM sniff_csv('/etc/passwd')", 'refused', 'file'],
  [`SELECT * FROM read_parquet(['${SAMPLE}/orders.parquet', '/etc/passwd'])`, 'refused', 'list with an outside path'],
  ["SELECT * FROM read_csv((SELECT '/etc/passwd'))", 'refused', 'computed path'],
  ["SELECT * FROM query('SELECT 42')", 'refused', 'query()'],
  ["SELECT * FROM query_table('orders')", 'refused', 'query_table()'],
  ["SELECT getenv('HOME')", 'refused', 'environment'],
  ["SELECT current_setting('allowed_directories')", 'refused', 'settings'],
  // extensions
  ['INSTALL httpfs', 'refused', 'extension'],
  ['LOAD httpfs', 'refused', 'extension'],
  ['FORCE INSTALL sqlite', 'refused', 'extension'],
  ["SELECT * FROM sqlite_scan('/tmp/x.db', 't')", 'refused', 'extension function'],
  // ATTACH, COPY, EXPORT, PRAGMA, SET and other statements
  [`ATTACH '${OUT}/x.db' AS x`, 'refused', 'attach'],
  ["ATTACH ':memory:' AS m", 'refused', 'attach'],
  ['DETACH memory', 'refused', 'detach'],
  [`COPY orders TO '${OUT}/out.csv'`, 'refused', 'copy'],
  [`COPY (SELECT 1) TO '${SAMPLE}/out.parquet'`, 'refused', 'copy into the dataset folder'],
  [`EXPORT DATABASE '${OUT}/export'`, 'refused', 'export'],
  ['PRAGMA database_list', 'refused', 'pragma'],
  ['SELECT * FROM pragma_database_list()', 'refused', 'pragma function'],
  ["SET memory_limit = '10GB'", 'refused', 'set'],
  ['SET enable_external_access = true', 'refused', 'set'],
  ['RESET memory_limit', 'refused', 'reset'],
  ['CALL pragma_version()', 'refused', 'call'],
  ['CHECKPOINT', 'refused', 'checkpoint'],
  ['BEGIN TRANSACTION', 'refused', 'transaction'],
  ['EXPLAIN ANALYZE SELECT * FROM orders', 'refused', 'explain'],
  ['DESCRIBE orders', 'refused', 'describe'],
  ['SELECT * FROM (SUMMARIZE orders)', 'refused', 'summarize in a subquery'],
  ['SELECT $1', 'refused', 'parameter'],
  // catalog probing
  ['SELECT * FROM duckdb_settings()', 'refused', 'settings table'],
  ['SELECT * FROM information_schema.tables', 'refused', 'information schema'],
  ['SELECT * FROM duckdb_tables()', 'refused', 'catalog'],
  ['SELECT * FROM pg_catalog.pg_tables', 'refused', 'catalog'],
  ['SELECT * FROM sqlite_master', 'refused', 'unknown table'],
  // resource abuse: bounded by the limits
  ['SELECT count(*) FROM order_lines a, order_lines b, order_lines c', 'bounded', 'huge cross join, aggregated'],
  ['SELECT * FROM order_lines a, order_lines b, order_lines c', 'bounded', 'huge cross join, streamed'],
  ['SELECT * FROM range(1000000000000)', 'bounded', 'endless rows'],
  ['SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000000) b', 'bounded', 'cpu'],
  ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', 'bounded', 'endless recursion'],
  ['SELECT list(range) FROM range(1000000000)', 'bounded', 'memory'],
  ["SELECT string_agg(s, '') FROM (SELECT repeat('x', 10000) AS s FROM range(1000000))", 'bounded', 'memory'],
  ["SELECT repeat('x', 2000000000)", 'refused', 'one huge value'],
];

describe('query guard: hostile statements over A2A', () => {
  let s: TestServer;
  let sample: string;
  beforeAll(async () => {
    s = await startTableExpert({ limits: { timeoutMs: 1000, maxRows: 100, memoryLimit: '128MiB' } }, [{ id: 'echo', builtin: 'echo' }]);
    sample = path.join(s.dataDir, 'table-expert', 'sample');
  });
  afterAll(async () => s?.stop());

  it(`has at least 50 hostile statements`, () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(50);
  });

  it.each(HOSTILE.map(([sql, outcome, what]) => [what, sql, outcome] as const))('%s: %s → %s', async (_what, sql, outcome) => {
    const text = sql.replaceAll(SAMPLE, sample);
    const t0 = Date.now();
    const r = await send(s, { skill: 'query', sql: text });
    const elapsed = Date.now() - t0;
    if (outcome === 'refused') {
      expect(r.state, `${sql}: ${r.text}`).toBe('TASK_STATE_REJECTED');
      expect(r.statusData.error.code, sql).toMatch(/^query_rejected\./);
      expect(r.text, sql).toMatch(/^Query rejected: .{10,}/);
    } else if (outcome === 'bounded') {
      if (r.state === 'TASK_STATE_COMPLETED') expect(r.data.truncated && r.data.rowCount === 100, `${sql}: completed but not cut at the row limit`).toBe(true);
      else {
        expect(r.state, `${sql}: ${r.text}`).toBe('TASK_STATE_FAILED');
        expect(['query_timeout', 'query_memory'], `${sql}: ${r.text}`).toContain(r.statusData.error.code);
      }
      // the time limit (1 s) plus the grace for statements that ignore interrupts, plus HTTP
      expect(elapsed, sql).toBeLessThan(4_000);
    } else {
      expect(r.state, `${sql}: ${r.text}`).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('leaves the data intact, writes nothing, and keeps answering', async () => {
    const count = await send(s, { skill: 'query', sql: 'SELECT count(*) AS n FROM orders' });
    expect(count.data.rows).toEqual([[20000]]);
    const described = await send(s, { skill: 'describe' });
    expect(described.data.tables.map((t: any) => t.name)).toEqual(['customers', 'order_lines', 'orders', 'products']);
    expect(existsSync(OUT)).toBe(false);
    expect(existsSync(path.join(sample, 'out.parquet'))).toBe(false);
  });

  it('keeps serving other requests while a statement runs into its time limit', async () => {
    const heavy = send(s, { skill: 'query', sql: 'SELECT count(*) FROM order_lines a, order_lines b, order_lines c' });
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const card = await fetch(`${s.http}/a2a/table-expert/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const quick = await rpc(`${s.http}/a2a/table-expert`, 'SendMessage', { message: userMessage('How many products are there?') });
    expect(quick.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const echo = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('still here') });
    expect(echo.body.result.task.artifacts[0].parts[0].text).toBe('still here');
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((await heavy).statusData.error.code).toBe('query_timeout');
  });

  it('accepts SQL sent as plain text and refuses it the same way', async () => {
    const ok = await send(s, 'SELECT status, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1');
    expect(ok.state).toBe('TASK_STATE_COMPLETED');
    expect(ok.data.rows.map((r: any[]) => r[0])).toEqual(['cancelled', 'completed', 'pending', 'returned']);
    const bad = await send(s, 'SELECT 1; DROP TABLE orders');
    expect(bad.state).toBe('TASK_STATE_REJECTED');
  });
});

describe('query guard: the token stage', () => {
  const reject = (sql: string) => {
    try {
      checkSqlText(sql, { maxSqlChars: 1000 });
    } catch (e) {
      return e instanceof QueryRejectedError ? e.code : 'other';
    }
    return 'accepted';
  };

  it('reads nested comments, doubled quotes, E-strings and dollar quotes as the database does', () => {
    expect(tokenize("SELECT /* a /* b */ c */ 'it''s', E'a\\'b', $x$;$x$, \"q\"\"id\"").map((t) => [t.kind, t.text])).toEqual([
      ['word', 'SELECT'],
      ['string', "it's"],
      ['comma', ','],
      ['string', "a'b"],
      ['comma', ','],
      ['string', ';'],
      ['comma', ','],
      ['ident', 'q"id'],
    ]);
  });

  it('names the reason for each refusal', () => {
    expect(reject('')).toBe('empty');
    expect(reject('   ;  ')).toBe('empty');
    expect(reject('x'.repeat(1001))).toBe('too_long');
    expect(reject("SELECT 'open")).toBe('unreadable');
    expect(reject('SELECT 1; SELECT 2')).toBe('multiple_statements');
    expect(reject('VACUUM')).toBe('not_select');
    expect(reject('SELECT * FROM t WHERE "load" = 1')).toBe('accepted');
    expect(reject('SELECT load FROM t')).toBe('forbidden_keyword');
    expect(reject('SELECT 1;;')).toBe('accepted');
    expect(reject('(SELECT 1) UNION (SELECT 2)')).toBe('accepted');
    expect(reject('FROM orders SELECT count(*)')).toBe('accepted');
    expect(reject('SELECT * RENAME (a AS b) EXCLUDE (c) FROM t')).toBe('accepted');
  });
});
