/**
 * An operator's startup options in the PostgreSQL URL (`?options=-c …`) and the store's own
 * search_path (src/store/postgres/connection-options.ts): pg lets a URL parameter replace the
 * pool's, so without the merge a URL `options` put the store's tables in `public`. The first half
 * pins the rewrite as text; the second opens a store on a real PostgreSQL with such a URL and asks
 * the connection what it got.
 */
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/store/index.js';
import { connectionOptions } from '../../../src/store/postgres/connection-options.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_connopts_${randomBytes(4).toString('hex')}`;

describe('connectionOptions', () => {
  it('a URL without a query keeps the URL and gets the search_path alone', () => {
    expect(connectionOptions('postgres://u@h:5432/db', 's1')).toEqual({ connectionString: 'postgres://u@h:5432/db', options: '-c search_path=s1' });
  });

  it('a query without options is left as written', () => {
    const u = 'postgres://u:p%40ss@h/db?sslmode=require&application_name=a%20b';
    expect(connectionOptions(u, 's1')).toEqual({ connectionString: u, options: '-c search_path=s1' });
  });

  it("the URL's options (decoded) come first, the search_path last, and leave the URL", () => {
    expect(connectionOptions('postgres://u@h/db?options=-c%20synchronous_commit%3Doff', 's1')).toEqual({
      connectionString: 'postgres://u@h/db',
      options: '-c synchronous_commit=off -c search_path=s1',
    });
  });

  it('the other parameters stay, in order; a plus in the query is a space, as pg reads it', () => {
    expect(connectionOptions('postgres://u@h/db?sslmode=require&options=-c+statement_timeout%3D5s&application_name=x', 's2')).toEqual({
      connectionString: 'postgres://u@h/db?sslmode=require&application_name=x',
      options: '-c statement_timeout=5s -c search_path=s2',
    });
  });

  it('of repeated options the last counts, as in pg; a fragment is no parameter', () => {
    expect(connectionOptions('postgres://u@h/db?options=-c%20a%3D1&options=-c%20b%3D2#options=-c%20c%3D3', 's3')).toEqual({
      connectionString: 'postgres://u@h/db',
      options: '-c b=2 -c search_path=s3',
    });
  });

  it('an empty options parameter adds nothing before the search_path', () => {
    expect(connectionOptions('postgres://u@h/db?options=', 's4').options).toBe('-c search_path=s4');
  });
});

describe('a store opened with startup options in its URL (real PostgreSQL)', () => {
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      for (const s of [schema, `${schema}_url`]) await client.query(`drop schema if exists "${s}" cascade`);
    } finally {
      await client.end();
    }
  });

  // The URL's own search_path names a schema that does not exist: a store that obeyed it would fail
  // to create its tables there rather than write them into a schema another test or helper uses.
  it('keeps its schema, migrates into it and runs with the operator’s setting', async () => {
    const withOptions = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c synchronous_commit=off -c search_path=${schema}_url`)}`;
    const store = await openPostgresStore({ connectionString: withOptions, schema, connectionTimeoutMs: 5000 });
    try {
      await store.migrate();
      // The store's own connections, as each of its statements meets them.
      const db = (store as unknown as { db: Kysely<unknown> }).db;
      const { rows } = await sql<{ schema: string; sync: string }>`select current_schema() as schema, current_setting('synchronous_commit') as sync`.execute(db);
      expect(rows).toEqual([{ schema, sync: 'off' }]);
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = 'tasks'`, [schema]);
      expect(rows[0]!.n).toBe(1);
    } finally {
      await client.end();
    }
  });
});
