/**
 * The PostgreSQL usage store's flush of answers' timings (src/store/postgres/postgres-usage-store.ts):
 * amends alone are one statement, its own transaction, not BEGIN + insert + COMMIT (issue 26, pg9:
 * two round trips of three per flush); with call records beside them, records and amends still go
 * in one transaction. Amends alone go as a plain insert, and again as the upsert only when an id
 * already has its row (issue 26, pg21). What the rows hold is pinned by the usage contract (test/store/usage-contract.ts, run by the store contract).
 */
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../../src/store/index.js';
import { PostgresUsageStore } from '../../../src/store/postgres/postgres-usage-store.js';
import type { Database } from '../../../src/store/schema.js';
import { dropSchema } from '../../support/cluster.js';
import { callRecord } from '../usage-contract.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_amends_${randomBytes(4).toString('hex')}`;
let store: Store;
let pool: pg.Pool;
let db: Kysely<Database>;
let usage: PostgresUsageStore;
/** reads the rows back on a connection of its own, outside the statements counted */
let reader: pg.Client;
/** the first words of every statement the pool's connections were sent */
let statements: string[] = [];
/** the whole text of each */
let texts: string[] = [];

beforeAll(async () => {
  store = await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 });
  await store.migrate();
  pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 2 });
  const counted = new WeakSet<object>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!counted.has(client)) {
      counted.add(client);
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
        const text = typeof a[0] === 'string' ? a[0] : String((a[0] as { text?: string }).text);
        statements.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
        texts.push(text);
        return query(...a);
      };
    }
    return client;
  };
  db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  usage = new PostgresUsageStore(db);
  reader = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await reader.connect();
});

beforeEach(() => {
  statements = [];
  texts = [];
});

afterAll(async () => {
  await reader?.end();
  await db?.destroy();
  await store?.close();
  await dropSchema(url, schema);
});

async function timing(id: string): Promise<unknown> {
  const { rows } = await reader.query('select ttfb_ms, latency_ms, bytes_in::integer, bytes_out::integer from task_usage_timing where id = $1', [id]);
  return rows[0];
}

describe('PostgreSQL usage store: a flush of amends alone', () => {
  it('is one statement, with no BEGIN or COMMIT, and writes every id once with its amends merged', async () => {
    const a = `task-${randomBytes(4).toString('hex')}`;
    const b = `task-${randomBytes(4).toString('hex')}`;
    await usage.write(
      [],
      [
        { id: a, ttfbMs: 1.5 },
        { id: b, latencyMs: 3 },
        { id: a, latencyMs: 7, bytesOut: 40 },
      ],
    );
    expect(statements).toEqual(['insert into task_usage_timing']);
    expect(await timing(a)).toEqual({ ttfb_ms: 1.5, latency_ms: 7, bytes_in: null, bytes_out: 40 });
    expect(await timing(b)).toEqual({ ttfb_ms: null, latency_ms: 3, bytes_in: null, bytes_out: null });
  });

  it('with call records beside it is one transaction', async () => {
    const id = `call-${randomBytes(4).toString('hex')}`;
    const record = callRecord(id);
    await usage.write([record], [{ id: 'some-task', latencyMs: 2 }]);
    expect(statements[0]).toBe('begin');
    expect(statements.at(-1)).toBe('commit');
    expect(statements).toContain('insert into task_usage_timing');
  });

  it('of ids without a row is a plain insert, with no ON CONFLICT clause', async () => {
    const a = `task-${randomBytes(4).toString('hex')}`;
    await usage.write([], [{ id: a, ttfbMs: 2, bytesOut: 9 }]);
    expect(statements).toEqual(['insert into task_usage_timing']);
    expect(texts[0]).not.toMatch(/on\s+conflict/i);
    expect(await timing(a)).toEqual({ ttfb_ms: 2, latency_ms: null, bytes_in: null, bytes_out: 9 });
  });

  it('holding an id that has its row already is written again as the upsert, every id once, what an amend leaves out kept', async () => {
    const a = `task-${randomBytes(4).toString('hex')}`;
    const c = `task-${randomBytes(4).toString('hex')}`;
    await usage.write([], [{ id: a, ttfbMs: 1, bytesIn: 30 }]);
    statements = [];
    texts = [];
    await usage.write(
      [],
      [
        { id: c, ttfbMs: 4 },
        { id: a, latencyMs: 5, bytesIn: 31 },
      ],
    );
    // the plain insert failed on a's row and wrote nothing; the upsert wrote both
    expect(statements).toEqual(['insert into task_usage_timing', 'insert into task_usage_timing']);
    expect(texts[0]).not.toMatch(/on\s+conflict/i);
    expect(texts[1]).toMatch(/on\s+conflict/i);
    expect(await timing(a)).toEqual({ ttfb_ms: 1, latency_ms: 5, bytes_in: 31, bytes_out: null });
    expect(await timing(c)).toEqual({ ttfb_ms: 4, latency_ms: null, bytes_in: null, bytes_out: null });
    const { rows } = await reader.query('select count(*)::integer as n from task_usage_timing where id = any($1::text[])', [[a, c]]);
    expect(rows[0].n).toBe(2);
  });
});
