/**
 * Migration 0029 (PostgreSQL: the list index ascending; the message-id index keys agent and owner
 * under "C" so that the lookup has no condition the list index could serve): up and down on both
 * dialects; the same uniqueness; the message-id lookup probes its index on a table never analyzed
 * (where pg21's ascending index took the lookup over), and ListTasks' pages read the list index
 * backward with no Sort; a store over the migrated schema pages through tasks of equal status
 * times in the same order as before.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { FIND_BY_MESSAGE_IDS } from '../../src/store/postgres/message-id-lookups.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { WHO_LOST_ROWS } from '../../src/store/postgres/postgres-commit.js';
import { expectSqliteTaskIndexesUnchanged } from '../support/sqlite-indexes-unchanged.js';
import { migrateTo } from '../support/migrate-to.js';
import { withPgSchema } from '../support/pg-schema.js';
import { expectOtherTaskIndexesUnchanged, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

const BEFORE = '0028_postgres_task_inserts';
const AFTER = '0029_postgres_list_index_ascending';
const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

const insertTask = (id: string, agent: string, owner: string, messageId: string) =>
  sql`insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
      values (${id}, ${agent}, ${owner}, ${`c-${id}`}, 'TASK_STATE_COMPLETED', 1, 1, 1, 1, '{}', ${messageId})`;

/** 20,000 tasks of one agent and owner (and 100 of another owner), never analyzed. */
const FILL = `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
  select 't-' || lpad(g::text, 6, '0'), 'echo', case when g % 200 = 0 then 'other' else 'anon' end, 'c-' || g,
         case when g % 3 = 0 then 'TASK_STATE_FAILED' else 'TASK_STATE_COMPLETED' end, g / 4, g / 4, 1, 1,
         json_build_object('id', 't-' || lpad(g::text, 6, '0'), 'contextId', 'c-' || g)::text, md5(g::text)
    from generate_series(1, 20000) as g`;

/** The plan PostgreSQL keeps for `text` with these literal parameters (a generic plan), as one string. */
async function planOf(db: Kysely<unknown>, text: string, params: string[]): Promise<string> {
  const name = `p_${randomBytes(4).toString('hex')}`;
  await sql.raw(`prepare ${name} as ${text}`).execute(db);
  await sql`set plan_cache_mode = force_generic_plan`.execute(db);
  const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute ${name}(${params.join(', ')})`).execute(db);
  await sql.raw(`deallocate ${name}`).execute(db);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

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
      await insertTask('t-1', 'a', 'o', 'm-1').execute(db);
      await expect(insertTask('t-2', 'a', 'o', 'm-1').execute(db)).rejects.toMatchObject({ code: '23505', constraint: 'tasks_origin_message_idx' });
      // the same message id from another owner, or to another agent (case apart too), is another message
      await insertTask('t-3', 'a', 'p', 'm-1').execute(db);
      await insertTask('t-4', 'b', 'o', 'm-1').execute(db);
      await insertTask('t-5', 'A', 'o', 'm-1').execute(db);
      const { rows } = await sql<{ n: string }>`select count(*) as n from tasks where origin_message_id = 'm-1'`.execute(db);
      expect(Number(rows[0]!.n)).toBe(4);
    });
  });

  it('the lookup probes the message-id index by all three columns on a table never analyzed; ListTasks reads the list index backward', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql.raw(FILL).execute(db);
      const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = 'tasks'::regclass`.execute(db);
      expect(Number(rows[0]!.reltuples)).toBe(-1); // never analyzed: the case pg21's ascending index lost

      const lookup = await planOf(db, FIND_BY_MESSAGE_IDS.text, [`array['echo']`, `array['anon']`, `array['m-1']`]);
      expect(lookup).toMatch(/Index Scan using tasks_origin_message_idx on tasks/);
      expect(lookup).toMatch(/Index Cond: \(\(origin_message_id = k\.message_id\) AND \(agent_id = \(k\.agent_id\)::text\) AND \(owner = \(k\.owner\)::text\)\)/);
      expect(lookup).not.toMatch(/tasks_list_idx|Seq Scan on tasks|Filter/);

      const whoLost = await planOf(db, WHO_LOST_ROWS, [`array['t-1']`, `array['m-1']`]);
      expect(whoLost).toMatch(/Bitmap Index Scan on tasks_origin_message_idx/);
      expect(whoLost).not.toMatch(/Seq Scan on tasks/);

      await sql`analyze tasks`.execute(db);
      for (const [extra, params] of [
        ['', [`'echo'`, `'anon'`]],
        ['and (status_time, id) < ($3, $4)', [`'echo'`, `'anon'`, '4000', `'t-016000'`]],
        [`and state = $3`, [`'echo'`, `'anon'`, `'TASK_STATE_FAILED'`]],
        [`and status_time >= $3`, [`'echo'`, `'anon'`, '100']],
      ] as const) {
        const plan = await planOf(db, PAGE(extra), [...params]);
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
