/**
 * Migration 0028 (PostgreSQL: the message-id index leads with the message id; the commit's row type
 * for new tasks): up and down on both dialects; the same uniqueness; and every PostgreSQL statement
 * that reads tasks by message id still probes the index on a table of 20,000 tasks (the store's
 * lookup, the lost-commit check). The row type's attribute order: test/store/postgres/commit-record-rows.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { FIND_BY_MESSAGE_IDS } from '../../src/store/postgres/message-id-lookups.js';
import { WHO_LOST_ROWS } from '../../src/store/postgres/postgres-commit.js';
import { expectSqliteTaskIndexesUnchanged } from '../support/sqlite-indexes-unchanged.js';
import { migrateTo } from '../support/migrate-to.js';
import { withPgSchema } from '../support/pg-schema.js';
import { expectOtherTaskIndexesUnchanged, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

/**
 * The store's lookup as it was written while 0028 was the latest migration: 0029 keys agent and
 * owner under "C" and the lookup now compares them so (list-index-ascending-migration.test.ts).
 */
const LOOKUP_AT_0028 = FIND_BY_MESSAGE_IDS.text.replace('agent_id = k.agent_id collate "C" and owner = k.owner collate "C"', 'agent_id = k.agent_id and owner = k.owner');

const BEFORE = '0027_task_final_events';
const AFTER = '0028_postgres_task_inserts';
const _url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

async function hasRowType(db: Kysely<unknown>, schema: string): Promise<boolean> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from pg_type where typname = 'task_commit_new_row' and typnamespace = ${schema}::regnamespace`.execute(db);
  return Number(rows[0]!.n) === 1;
}

const insertTask = (id: string, agent: string, owner: string, messageId: string) =>
  sql`insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
      values (${id}, ${agent}, ${owner}, ${`c-${id}`}, 'TASK_STATE_COMPLETED', 1, 1, 1, 1, '{}', ${messageId})`;

/** The plan PostgreSQL would run for `text` with these literal parameters, as one string. */
async function planOf(db: Kysely<unknown>, text: string, params: string[]): Promise<string> {
  const name = `p_${randomBytes(4).toString('hex')}`;
  await sql.raw(`prepare ${name} as ${text}`).execute(db);
  // A generic plan: what a named statement keeps once PostgreSQL stops making custom plans.
  await sql`set plan_cache_mode = force_generic_plan`.execute(db);
  const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute ${name}(${params.join(', ')})`).execute(db);
  await sql.raw(`deallocate ${name}`).execute(db);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('migration 0028 (the message-id index leads with the message id; the row type of new tasks)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0028-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reorders the unique index on PostgreSQL under the same name, and back on down', async () => {
    await withPgSchema('0028', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
      expect(await hasRowType(db, schema)).toBe(false);
      const across = await pgTaskIndexesAcross(db, schema, migrator, { before: BEFORE, after: AFTER }, async () => {
        expect(await hasRowType(db, schema)).toBe(true);
      });
      expect(await hasRowType(db, schema)).toBe(false);
      expect(across.before.tasks_origin_message_idx).toBe(`CREATE UNIQUE INDEX tasks_origin_message_idx ON ${schema}.tasks USING btree (agent_id, owner, origin_message_id)`);
      expect(across.after.tasks_origin_message_idx).toBe(`CREATE UNIQUE INDEX tasks_origin_message_idx ON ${schema}.tasks USING btree (origin_message_id, agent_id, owner)`);
      expectOtherTaskIndexesUnchanged(across, ['tasks_origin_message_idx']);
    });
  });

  it('keeps a message id unique per agent and owner, and only there', async () => {
    await withPgSchema('0028', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await insertTask('t-1', 'a', 'o', 'm-1').execute(db);
      await expect(insertTask('t-2', 'a', 'o', 'm-1').execute(db)).rejects.toMatchObject({ code: '23505', constraint: 'tasks_origin_message_idx' });
      // the same message id from another owner, or to another agent, is another message
      await insertTask('t-3', 'a', 'p', 'm-1').execute(db);
      await insertTask('t-4', 'b', 'o', 'm-1').execute(db);
      const { rows } = await sql<{ n: string }>`select count(*) as n from tasks where origin_message_id = 'm-1'`.execute(db);
      expect(Number(rows[0]!.n)).toBe(3);
    });
  });

  it("PostgreSQL's statements by message id probe the index among 20,000 tasks", async () => {
    await withPgSchema('0028', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql
        .raw(
          `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
           select 't-' || g, 'echo', 'anon', 'c-' || g, 'TASK_STATE_COMPLETED', g, g, 1, 1, '{}', md5(g::text) from generate_series(1, 20000) as g`,
        )
        .execute(db);
      await sql`analyze tasks`.execute(db);

      expect(LOOKUP_AT_0028).not.toBe(FIND_BY_MESSAGE_IDS.text);
      const lookup = await planOf(db, LOOKUP_AT_0028, [`array['echo']`, `array['anon']`, `array['m-1']`]);
      expect(lookup).toMatch(/Index Scan using tasks_origin_message_idx on tasks/);
      // all three columns are the index's condition, not a filter over the rows it found
      expect(lookup).toMatch(/Index Cond: \(\(origin_message_id = k\.message_id\) AND \(agent_id = k\.agent_id\) AND \(owner = k\.owner\)\)/);
      expect(lookup).not.toMatch(/Seq Scan on tasks/);

      const whoLost = await planOf(db, WHO_LOST_ROWS, [`array['t-1']`, `array['m-1']`]);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_pkey/);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_origin_message_idx/);
      expect(whoLost).not.toMatch(/Seq Scan on tasks/);
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    await expectSqliteTaskIndexesUnchanged(dir, BEFORE, AFTER, 'tasks_origin_message_idx');
  });
});
