/**
 * The PostgreSQL store's hot statements over arrays (the message-id lookup, the new-tasks commit)
 * are planned once a connection whatever their batch's size (issue 26, ADR 0090): after the plan
 * cache's first five executions, a batch of one or two keys or tasks runs on the kept plan instead
 * of being planned again. Read from the connection's own `pg_prepared_statements` (PostgreSQL 14+:
 * how many executions were planned for their values, how many ran on the kept plan), on a pool of
 * one connection so that every execution and the read share the session. The answers stay right.
 * The new-tasks commit was planned once already (its larger plan's own planning cost tips the
 * cache's comparison to the kept plan); its test pins that, the lookup's is the change's.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../../src/store/postgres/array-literal.js';
import { FIND_BY_MESSAGE_IDS } from '../../../src/store/postgres/message-id-lookups.js';
import { queryNamed } from '../../../src/store/postgres/named-query.js';
import { PostgresCommitter } from '../../../src/store/postgres/postgres-commit.js';
import { prepareCommit } from '../../../src/store/rows.js';
import { postgresStoreWithPool } from '../../support/postgres-store-with-pool.js';
import { echoCommit } from '../fixtures.js';

const db = postgresStoreWithPool('t_planned');
const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
/** More executions than the plan cache's five planned ones, so the rest show which plan ran. */
const EXECUTIONS = 12;

const unique = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A one-connection pool on the test's schema: its statements and the plan counts share a session. */
async function withOneConnection<T>(use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${db.schema}`, max: 1 });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

/** How the session's executions of statement `name` were planned. */
async function plansOf(pool: pg.Pool, name: string): Promise<{ generic: number; custom: number }> {
  const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name]);
  expect(rows).toHaveLength(1);
  return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
}

describe('PostgreSQL hot statements: planned once a connection', () => {
  it('message-id lookups of two keys each run on the kept plan after the first five, and find their task', async () => {
    const stored = echoCommit(unique('echo'));
    stored.originMessageId = unique('msg');
    await db.store.commit([stored]);
    await withOneConnection(async (pool) => {
      for (let i = 0; i < EXECUTIONS; i++) {
        const keys = [
          [stored.agentId, stored.owner, stored.originMessageId!],
          [stored.agentId, stored.owner, unique('missing')],
        ];
        const { rows } = await queryNamed(pool, FIND_BY_MESSAGE_IDS, [arrayLiteral(keys.map((k) => k[0]!)), arrayLiteral(keys.map((k) => k[1]!)), arrayLiteral(keys.map((k) => k[2]!))]);
        expect(rows.map((r) => [r.i, r.row.id])).toEqual([[1, stored.task.id]]);
      }
      expect(await plansOf(pool, FIND_BY_MESSAGE_IDS.name)).toEqual({ custom: 5, generic: EXECUTIONS - 5 });
    });
  });

  it('new-task commits of one task each run on the kept plan after the first five, and write their rows', async () => {
    const ids: string[] = [];
    await withOneConnection(async (pool) => {
      const committer = new PostgresCommitter(pool);
      for (let i = 0; i < EXECUTIONS; i++) {
        const c = echoCommit(unique('echo'));
        c.originMessageId = unique('msg');
        ids.push(c.task.id);
        await committer.commit([prepareCommit(c)]);
      }
      expect(await plansOf(pool, 'agentport_commit_new_tasks')).toEqual({ custom: 5, generic: EXECUTIONS - 5 });
    });
    const { rows } = await db.pool.query<{ n: string }>('select count(*) as n from tasks where id = any($1::text[])', [ids]);
    expect(Number(rows[0]!.n)).toBe(EXECUTIONS);
  });
});
