/**
 * Datasets from options: CSV, JSON and Parquet files, globs and folders, SQLite files and
 * PostgreSQL tables (loaded through our own drivers), read-only; profiles refreshed when files
 * change; usecase scopes; and option errors that name the key.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableExpertAgent } from '../../../src/agents/table-expert/index.js';
import { parseTableExpertOptions } from '../../../src/agents/table-expert/options.js';
import { QueryRejectedError, TableExpertError } from '../../../src/agents/table-expert/skills.js';
import { ConfigError } from '../../../src/config/index.js';
import { StartFailure } from '../../../src/server/start-failure.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { send, startTableExpert } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'te-datasets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const csv = (rows: number) => `${['id,city,amount,day', ...Array.from({ length: rows }, (_, i) => `${i + 1},${i % 2 ? 'Oslo' : 'Lima'},${(i + 1) * 1.5},2024-01-${String((i % 28) + 1).padStart(2, '0')}`)].join('\n')}\n`;

describe('file datasets', () => {
  let s: TestServer;
  beforeAll(async () => {
    writeFileSync(path.join(dir, 'visits.csv'), csv(10));
    writeFileSync(
      path.join(dir, 'people.json'),
      JSON.stringify([
        { person_id: 1, name: 'Ada' },
        { person_id: 2, name: 'Linus' },
      ]),
    );
    await mkdir(path.join(dir, 'folder'));
    writeFileSync(path.join(dir, 'folder', 'events.ndjson'), '{"kind":"a","n":1}\n{"kind":"b","n":2}\n');
    writeFileSync(path.join(dir, 'folder', 'Daily Stats 2024.csv'), 'k,v\nx,1\n');
    await mkdir(path.join(dir, 'parts'));
    writeFileSync(path.join(dir, 'parts', 'p1.csv'), 'k,v\na,1\n');
    writeFileSync(path.join(dir, 'parts', 'p2.csv'), 'k,v\nb,2\n');
    s = await startTableExpert({
      datasets: [
        { name: 'visits', path: path.join(dir, 'visits.csv'), usecase: 'travel' },
        { name: 'people', path: path.join(dir, 'people.json') },
        { name: 'misc', path: path.join(dir, 'folder') },
        { name: 'parts', path: path.join(dir, 'parts', '*.csv') },
      ],
    });
  });
  afterAll(async () => s?.stop());

  it('serves a file, a JSON file, a folder (one table per file) and a glob (one table), and no sample', async () => {
    const r = await send(s, { skill: 'describe' });
    expect(r.data.tables.map((t: any) => [t.name, t.rowCount, t.format])).toEqual([
      ['daily_stats_2024', 1, 'csv'],
      ['events', 2, 'json'],
      ['parts', 2, 'csv'],
      ['people', 2, 'json'],
      ['visits', 10, 'csv'],
    ]);
    const q = await send(s, { skill: 'query', sql: 'SELECT city, sum(amount) AS total FROM visits GROUP BY 1 ORDER BY 1' });
    expect(q.data.rows).toEqual([
      ['Lima', 37.5],
      ['Oslo', 45],
    ]);
  });

  it('reads a dataset file by path through the guard, but nothing next to it', async () => {
    const ok = await send(s, { skill: 'query', sql: `SELECT count(*) FROM read_csv('${path.join(dir, 'parts', 'p1.csv')}')` });
    expect(ok.data.rows).toEqual([[1]]);
    const outside = await send(s, { skill: 'query', sql: `SELECT * FROM read_csv('${path.join(dir, 'visits.csv')}.bak')` });
    expect(outside.state).toBe('TASK_STATE_REJECTED');
  });

  it('re-profiles a file when it changes, and picks up a new file in a folder', async () => {
    const before = await send(s, { skill: 'describe', table: 'visits' });
    expect(before.data.tables[0].rowCount).toBe(10);
    writeFileSync(path.join(dir, 'visits.csv'), csv(25));
    const after = await send(s, { skill: 'describe', table: 'visits' });
    expect(after.data.tables[0].rowCount).toBe(25);
    const again = await send(s, { skill: 'describe', table: 'visits' });
    expect(again.data.tables[0].profiledAt).toBe(after.data.tables[0].profiledAt);
    writeFileSync(path.join(dir, 'folder', 'late.csv'), 'a\n1\n2\n3\n');
    const late = await send(s, { skill: 'describe', table: 'late' });
    expect(late.data.tables[0].rowCount).toBe(3);
  });

  it('lets the planner answer over an unknown schema', async () => {
    const r = await send(s, 'Total amount by city');
    expect(r.state, r.text).toBe('TASK_STATE_COMPLETED');
    expect(r.sql).toContain('"visits"."city"');
  });
});

describe('SQLite and PostgreSQL datasets', () => {
  const sqliteFile = path.join(dir, 'shop.db');
  const pgUrl = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `te_${process.pid}_${Date.now().toString(36)}`;
  let s: TestServer;

  beforeAll(async () => {
    const db = new Database(sqliteFile);
    db.exec(`CREATE TABLE items (item_id INTEGER PRIMARY KEY, label TEXT, price NUMERIC(8,2), added DATE, weight REAL);
             INSERT INTO items VALUES (1, 'pen', 1.25, '2024-02-01', 0.01), (2, 'desk', 150.00, '2024-03-15', 20.5), (3, 'lamp', 35.5, '2024-03-20', NULL);`);
    db.close();
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`PostgreSQL unreachable at ${pgUrl} (set AGENTPORT_TEST_PG): ${(err as Error).message}`);
    }
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`CREATE TABLE "${schema}".invoices (invoice_id int PRIMARY KEY, customer text, total numeric(10,2), issued date, paid boolean, created timestamptz)`);
    await client.query(
      `INSERT INTO "${schema}".invoices VALUES (1, 'acme', 100.10, '2024-01-31', true, '2024-01-31T10:00:00Z'), (2, 'acme', 20.00, '2024-02-29', false, NULL), (3, 'initech', 5.55, '2024-03-01', true, '2024-03-01T00:00:00Z')`,
    );
    await client.end();
    s = await startTableExpert({
      datasets: [
        { name: 'shop', sqlite: { file: sqliteFile } },
        { name: 'billing', usecase: 'finance', postgres: { url: pgUrl, schema, tables: ['invoices'] } },
      ],
    });
  });
  afterAll(async () => {
    await s?.stop();
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('copies SQLite tables with their declared types, without writing to the file', async () => {
    const mtime = statSync(sqliteFile).mtimeMs;
    const bytes = readFileSync(sqliteFile);
    const r = await send(s, { skill: 'query', sql: 'SELECT label, price, added, weight FROM items ORDER BY item_id' });
    expect(r.data.columns.map((c: any) => c.type)).toEqual(['VARCHAR', 'DECIMAL(8,2)', 'DATE', 'DOUBLE']);
    expect(r.data.rows).toEqual([
      ['pen', 1.25, '2024-02-01', 0.01],
      ['desk', 150, '2024-03-15', 20.5],
      ['lamp', 35.5, '2024-03-20', null],
    ]);
    expect(statSync(sqliteFile).mtimeMs).toBe(mtime);
    expect(readFileSync(sqliteFile).equals(bytes)).toBe(true);
  });

  it('reloads a SQLite table when the file changes', async () => {
    const db = new Database(sqliteFile);
    db.exec(`INSERT INTO items VALUES (4, 'chair', 80, '2024-04-01', 7)`);
    db.close();
    const r = await send(s, { skill: 'describe', table: 'items' });
    expect(r.data.tables[0].rowCount).toBe(4);
  });

  it('copies PostgreSQL tables with their types, inside a read-only transaction', async () => {
    const r = await send(s, { skill: 'query', sql: 'SELECT customer, total, issued, paid, created FROM invoices ORDER BY invoice_id' });
    expect(r.data.columns.map((c: any) => c.type)).toEqual(['VARCHAR', 'DECIMAL(10,2)', 'DATE', 'BOOLEAN', 'TIMESTAMP WITH TIME ZONE']);
    expect(r.data.rows.map((row: any[]) => row.slice(0, 4))).toEqual([
      ['acme', 100.1, '2024-01-31', true],
      ['acme', 20, '2024-02-29', false],
      ['initech', 5.55, '2024-03-01', true],
    ]);
    const asked = await send(s, 'Sum of total by customer');
    expect(asked.data.rows).toEqual([
      ['acme', 120.1],
      ['initech', 5.55],
    ]);
  });
});

describe('usecase scopes (the seam MCP tokens use)', () => {
  const opts = parseTableExpertOptions(
    {
      datasets: [
        { name: 'alpha', usecase: 'a', path: path.join(dir, 'scope-a.csv') },
        { name: 'beta', usecase: 'b', path: path.join(dir, 'scope-b.csv') },
      ],
    },
    { index: 0, baseDir: dir },
  );
  const agent = createTableExpertAgent({ options: opts, dataDir: dir });
  const scope = { usecases: ['a'] };
  beforeAll(() => {
    writeFileSync(path.join(dir, 'scope-a.csv'), 'code,n\nred,1\n');
    writeFileSync(path.join(dir, 'scope-b.csv'), 'code,n\nsecret,2\n');
  });
  afterAll(() => agent.expert.close());

  it('shows only the tables, rows and files of the caller’s usecases', async () => {
    expect((await agent.expert.describe({}, { scope })).tables.map((t) => t.name)).toEqual(['alpha']);
    expect((await agent.expert.search({ query: 'secret' }, { scope })).results).toEqual([]);
    expect((await agent.expert.search({ query: 'secret' })).results.length).toBeGreaterThan(0);
    await expect(agent.expert.query({ sql: 'SELECT * FROM beta' }, { scope })).rejects.toThrow(QueryRejectedError);
    await expect(agent.expert.query({ sql: `SELECT * FROM read_csv('${path.join(dir, 'scope-b.csv')}')` }, { scope })).rejects.toThrow(/outside the declared datasets/);
    await expect(agent.expert.fetch({ id: 'table:beta' }, { scope })).rejects.toThrow(TableExpertError);
    const all = await agent.expert.query({ sql: 'SELECT * FROM beta' });
    expect(all.result.rows).toEqual([['secret', 2]]);
    await expect(agent.expert.fetch({ id: all.resultId }, { scope })).rejects.toThrow(TableExpertError);
    const answer = await agent.expert.ask({ question: 'Total n by code' }, { scope });
    expect(answer.kind === 'answer' && answer.result.rows).toEqual([['red', 1]]);
  });
});

describe('option errors name the key', () => {
  const startWith = (options: unknown) =>
    startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'data', builtin: 'table-expert', options },
      ],
    });

  it.each([
    [{ datasets: [{ name: 'x' }] }, 'agents[1].options.datasets[0]: must have exactly one of path, sqlite, postgres'],
    [{ datasets: [{ name: 'Bad Name', path: 'x.csv' }] }, 'agents[1].options.datasets[0].name: must be a lowercase SQL identifier'],
    [
      {
        datasets: [
          { name: 'x', path: 'a.csv' },
          { name: 'x', path: 'b.csv' },
        ],
      },
      'agents[1].options.datasets[1].name: duplicates datasets[0].name',
    ],
    [{ datasets: [{ name: 'x', postgres: { url: 'mysql://h/db', table: 't' } }] }, 'agents[1].options.datasets[0].postgres.url: must be a postgres:// or postgresql:// URL'],
    [{ limits: { timeoutMs: 'soon' } }, 'agents[1].options.limits.timeoutMs: must be a duration'],
    [{ llm: { baseUrl: 'ftp://x', model: 'm' } }, 'agents[1].options.llm.baseUrl: must be an absolute http:// or https:// URL'],
    [{ datasetz: [] }, 'agents[1].options.datasetz: unknown key (did you mean "datasets"?)'],
  ])('%j', async (options, message) => {
    const err = await startWith(options).then(
      (s) => s.stop().then(() => undefined),
      (e: unknown) => e,
    );
    // startServer names every start-up failure (src/server/start-failure.ts); an invalid option
    // is a configuration failure (exit 2) whose cause is the ConfigError naming the key.
    expect(err).toBeInstanceOf(StartFailure);
    expect((err as StartFailure).kind).toBe('configuration');
    expect((err as StartFailure).cause).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(message);
  });

  it('reports a dataset file that does not exist when the agent is first used', async () => {
    const s = await startWith({ datasets: [{ name: 'gone', path: path.join(dir, 'missing.csv') }] });
    try {
      const res = await fetch(`${s.http}/a2a/data`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { skill: 'describe' } }] } } }),
      });
      const task = (await res.json()).result.task;
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(task.status.message.parts[0].text).toContain('dataset "gone": not found');
    } finally {
      await s.stop();
    }
  });
});
