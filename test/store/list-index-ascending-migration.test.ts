import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { FIND_BY_MESSAGE_IDS } from '../../src/store/postgres/message-id-lookups.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { WHO_LOST_ROWS } from '../../src/store/postgres/postgres-commit.js';
import { expectSqliteTaskIndexesUnchanged } from '../support/sqlite-indexes-unchanged.js';
import { migrateTo } from '../support/migrate-to.js';
import { withPgSchema } from '../support/pg-schema.js';
import { expectMessageIdUniquePerAgentAndOwner, expectOtherTaskIndexesUnchanged, genericPlanOf, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

const BEFORE = '0028_postgres_task_inserts';
const AFTER = '0029_postgres_list_index_ascending';
const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

/** 20,000 tasks of one agent and owner (and 100 of another owner), never analyzed. */
const FILL = `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
  select 't-' || lpad(g::text, 6, '0'), 'echo', case when g % 200 = 0 then 'other' else 'anon' end, 'c-' || g,
         case when g % 3 = 0 then 'TASK_STATE_FAILED' else 'TASK_STATE_COMPLETED' end, g / 4, g / 4, 1, 1,
         json_build_object('id', 't-' || lpad(g::text, 6, '0'), 'contextId', 'c-' || g)::text, md5(g::text)
    from generate_series(1, 20000) as g`;

/** ListTasks' page, as sql-store.ts searchTasks writes it (the columns aside). */
const PAGE = (extra: string) => `select id, status_time, state, task from tasks where agent_id = $1 and owner = $2 ${extra} order by status_time desc, id desc limit 51`;

describe('migration 0029 (the list index ascending; the message-id index keys agent and owner under "C")', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0029-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds the two indexes on PostgreSQL under their names, and back on down', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      const across = await pgTaskIndexesAcross(db, schema, migrator, { before: BEFORE, after: AFTER });
      expect(across.before.tasks_list_idx).toBe(`CREATE INDEX tasks_list_idx ON ${schema}.tasks USING btree (agent_id, owner, status_time DESC, id DESC)`);
      expect(across.after.tasks_list_idx).toBe(`CREATE INDEX tasks_list_idx ON ${schema}.tasks USING btree (agent_id, owner, status_time, id)`);
      expect(across.after.tasks_origin_message_idx).toBe(`CREATE UNIQUE INDEX tasks_origin_message_idx ON ${schema}.tasks USING btree (origin_message_id, agent_id COLLATE "C", owner COLLATE "C")`);
      expectOtherTaskIndexesUnchanged(across, ['tasks_list_idx', 'tasks_origin_message_idx']);
    });
  });

  it('keeps a message id unique per agent and owner, and only there', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await expectMessageIdUniquePerAgentAndOwner(db);
    });
  });

  it('the lookup probes the message-id index by all three columns on a table never analyzed; ListTasks reads the list index backward', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql.raw(FILL).execute(db);
      const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = 'tasks'::regclass`.execute(db);
      expect(Number(rows[0]!.reltuples)).toBe(-1); // never analyzed: the case pg21's ascending index lost

      const lookup = await genericPlanOf(db, FIND_BY_MESSAGE_IDS.text, [`array['echo']`, `array['anon']`, `array['m-1']`]);
      expect(lookup).toMatch(/Index Scan using tasks_origin_message_idx on tasks/);
      expect(lookup).toMatch(/Index Cond: \(\(origin_message_id = k\.message_id\) AND \(agent_id = \(k\.agent_id\)::text\) AND \(owner = \(k\.owner\)::text\)\)/);
      expect(lookup).not.toMatch(/tasks_list_idx|Seq Scan on tasks|Filter/);

      const whoLost = await genericPlanOf(db, WHO_LOST_ROWS, [`array['t-1']`, `array['m-1']`]);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_origin_message_idx/);
      expect(whoLost).not.toMatch(/Seq Scan on tasks/);

      await sql`analyze tasks`.execute(db);
      for (const [extra, params] of [
        ['', [`'echo'`, `'anon'`]],
        ['and (status_time, id) < ($3, $4)', [`'echo'`, `'anon'`, '4000', `'t-016000'`]],
        [`and state = $3`, [`'echo'`, `'anon'`, `'TASK_STATE_FAILED'`]],
        [`and status_time >= $3`, [`'echo'`, `'anon'`, '100']],
      ] as const) {
        const plan = await genericPlanOf(db, PAGE(extra), [...params]);
        expect(plan, extra).toMatch(/Index Scan Backward using tasks_list_idx on tasks/);
        expect(plan, extra).not.toMatch(/Sort/);
      }
    });
  });

  it('a store over the migrated schema lists the tasks newest first, ties by id, page after page', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql.raw(FILL).execute(db);
      const store = await openPostgresStore({ connectionString: url, schema, maxConnections: 2 });
      try {
        const seen: string[] = [];
        let after: { statusTime: number; taskId: string } | undefined;
        for (let page = 0; page < 4; page++) {
          const { tasks, next } = await store.listTasks({ agentId: 'echo', owner: 'anon', pageSize: 7, knownTotal: 0, ...(after ? { after } : {}) });
          expect(tasks).toHaveLength(7);
          seen.push(...tasks.map((t) => t.task.id));
          after = next;
        }
        const { rows } = await sql<{ id: string }>`select id from tasks where agent_id = 'echo' and owner = 'anon' order by status_time desc, id desc limit 28`.execute(db);
        expect(seen).toEqual(rows.map((r) => r.id));
        // four tasks share each status time: the ties came newest id first
        expect(seen.slice(0, 5)).toEqual(['t-019999', 't-019998', 't-019997', 't-019996', 't-019995']);
      } finally {
        await store.close();
      }
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    await expectSqliteTaskIndexesUnchanged(dir, BEFORE, AFTER, 'tasks_list_idx');
  });
});
