/**
 * The coalesced message-id lookups of the PostgreSQL store (src/store/postgres/message-id-lookups.ts)
 * on a real PostgreSQL: lookups asked in one tick go out as one statement and each is answered by
 * its own key (the join returns only hits, in no set order); more than 500 keys go out as several
 * statements; a failed statement rejects every lookup of its batch and no other.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../../src/store/index.js';
import { MessageIdLookups, TASK_COLUMNS } from '../../../src/store/postgres/message-id-lookups.js';
import { newTask } from '../fixtures.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_msgids_${randomBytes(4).toString('hex')}`;
let store: Store;
let pool: pg.Pool;
/** statements the pool was asked to run, and the number of keys of each */
let statements = 0;
const keysPerStatement: number[] = [];
const ids: Record<string, string> = {};

/** The elements of a statement's first parameter: a JS array, or array input text (`{"a","b"}`) as the lookups send it. */
function elementCount(param: unknown): number {
  if (Array.isArray(param)) return param.length;
  return typeof param === 'string' ? (param.match(/"(?:[^"\\]|\\.)*"|NULL/g) ?? []).length : 0;
}

beforeAll(async () => {
  store = await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 });
  await store.migrate();
  for (const [owner, messageId] of [
    ['alice', 'm-1'],
    ['bob', 'm-2'],
    ['alice', 'm-3'],
  ] as const) {
    const t = { ...newTask({ agentId: 'agent-a', owner }), originMessageId: messageId };
    await store.commit([t]);
    ids[`${owner}/${messageId}`] = t.task.id;
  }
  pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 2 });
  const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
    statements++;
    keysPerStatement.push(elementCount((a[0] as { values?: unknown[] }).values?.[0]));
    return query(...a);
  };
});

afterAll(async () => {
  await pool?.end();
  await store?.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
});

describe('MessageIdLookups', () => {
  it('answers lookups of one tick with one statement, each by its own key', async () => {
    const lookups = new MessageIdLookups(pool);
    const before = statements;
    const asked: Array<[string, string, string | undefined]> = [
      ['bob', 'm-1', undefined],
      ['alice', 'm-3', ids['alice/m-3']],
      ['alice', 'none', undefined],
      ['bob', 'm-2', ids['bob/m-2']],
      ['alice', 'm-1', ids['alice/m-1']],
    ];
    const found = await Promise.all(asked.map(([owner, m]) => lookups.find('agent-a', owner, m)));
    expect(statements - before).toBe(1);
    expect(found.map((r) => r?.id)).toEqual(asked.map((a) => a[2]));
    // the row comes back whole, without the batch's own index column
    expect(found[1]).toMatchObject({ agent_id: 'agent-a', owner: 'alice', origin_message_id: 'm-3' });
    expect(found[1]).not.toHaveProperty('i');
  });

  it("gives a found task's row with every column's value, as the table holds it", async () => {
    const lookups = new MessageIdLookups(pool);
    const found = await lookups.find('agent-a', 'bob', 'm-2');
    // read apart, by id and column by column; int8 comes as text from this test's pool
    const { rows } = await pool.query(`select ${TASK_COLUMNS} from tasks where id = $1`, [ids['bob/m-2']]);
    const expected = Object.fromEntries(Object.entries(rows[0] as Record<string, unknown>).map(([k, v]) => [k, ['status_time', 'created_at', 'lease_expires_at'].includes(k) && v !== null ? Number(v) : v]));
    expect(Object.keys(expected)).toHaveLength(15);
    expect(found).toEqual(expected);
  });

  it('lookups of a later tick go in a statement of their own', async () => {
    const lookups = new MessageIdLookups(pool);
    const before = statements;
    expect((await lookups.find('agent-a', 'alice', 'm-1'))?.id).toBe(ids['alice/m-1']);
    expect((await lookups.find('agent-a', 'bob', 'm-2'))?.id).toBe(ids['bob/m-2']);
    expect(statements - before).toBe(2);
  });

  it('splits more than 500 keys into statements of 500, answering each by key', async () => {
    const lookups = new MessageIdLookups(pool);
    const before = statements;
    const asked = Array.from({ length: 1001 }, (_, i) => (i === 0 ? 'm-1' : i === 500 ? 'm-3' : i === 1000 ? 'm-3' : `miss-${i}`));
    const sent = keysPerStatement.length;
    const found = await Promise.all(asked.map((m) => lookups.find('agent-a', 'alice', m)));
    expect(statements - before).toBe(3);
    expect(keysPerStatement.slice(sent)).toEqual([500, 500, 1]);
    expect(found.flatMap((r, i) => (r ? [[i, r.id]] : []))).toEqual([
      [0, ids['alice/m-1']],
      [500, ids['alice/m-3']],
      [1000, ids['alice/m-3']],
    ]);
  });

  it('sends exactly 500 keys as one statement, with no empty one after it', async () => {
    const lookups = new MessageIdLookups(pool);
    const sent = keysPerStatement.length;
    await Promise.all(Array.from({ length: 500 }, (_, i) => lookups.find('agent-a', 'alice', `miss-${i}`)));
    expect(keysPerStatement.slice(sent)).toEqual([500]);
  });

  it('rejects every lookup of a batch whose statement fails, with the driver error', async () => {
    const broken = new pg.Pool({ connectionString: url, options: '-c search_path=no_such_schema_here', max: 1 });
    try {
      const lookups = new MessageIdLookups(broken);
      const results = await Promise.allSettled([lookups.find('agent-a', 'alice', 'm-1'), lookups.find('agent-a', 'bob', 'm-2')]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: '42P01' }); // undefined_table
    } finally {
      await broken.end();
    }
  });
});
