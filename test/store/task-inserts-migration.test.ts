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
import { expectMessageIdUniquePerAgentAndOwner, expectOtherTaskIndexesUnchanged, genericPlanOf, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

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
      await expectMessageIdUniquePerAgentAndOwner(db);
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
      const lookup = await genericPlanOf(db, LOOKUP_AT_0028, [`array['echo']`, `array['anon']`, `array['m-1']`]);
      expect(lookup).toMatch(/Index Scan using tasks_origin_message_idx on tasks/);
      // all three columns are the index's condition, not a filter over the rows it found
      expect(lookup).toMatch(/Index Cond: \(\(origin_message_id = k\.message_id\) AND \(agent_id = k\.agent_id\) AND \(owner = k\.owner\)\)/);
      expect(lookup).not.toMatch(/Seq Scan on tasks/);

      const whoLost = await genericPlanOf(db, WHO_LOST_ROWS, [`array['t-1']`, `array['m-1']`]);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_pkey/);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_origin_message_idx/);
      expect(whoLost).not.toMatch(/Seq Scan on tasks/);
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    await expectSqliteTaskIndexesUnchanged(dir, BEFORE, AFTER, 'tasks_origin_message_idx');
  });
});
