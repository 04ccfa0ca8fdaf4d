import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSqliteTaskIndexesUnchanged } from '../support/sqlite-indexes-unchanged.js';
import { migrateTo } from '../support/migrate-to.js';
import { withPgSchema } from '../support/pg-schema.js';
import { expectOtherTaskIndexesUnchanged, pgTaskIndexesAcross } from '../support/pg-task-indexes.js';

const BEFORE = '0029_postgres_list_index_ascending';
const AFTER = '0030_postgres_usage_time_brin';

/**
 * 20,000 tasks in usage-time order (task g ended at 1,000 + g), every fifth with no usage record
 * (usage_time null), each row ~1 KB so the table spans many 128-page ranges.
 */
const FILL = `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id, usage_time, usage_final)
  select 't-' || lpad(g::text, 6, '0'), 'echo', 'anon', 'c-' || g, 'TASK_STATE_COMPLETED', g, g, 1, 1, repeat('x', 1000), 'm-' || g,
         case when g % 5 = 0 then null else 1000 + g end, case when g % 5 = 0 then null else 1 end
    from generate_series(1, 20000) as g`;

/** How many of FILL's tasks have a usage time in [from, to): counted here from FILL's rule, not by the database. */
function expectedInRange(from: number, to: number): number {
  let n = 0;
  for (let g = 1; g <= 20000; g++) if (g % 5 !== 0 && 1000 + g >= from && 1000 + g < to) n++;
  return n;
}

describe('migration 0030 (the usage-time index of tasks as a BRIN index on PostgreSQL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0030-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds tasks_usage_time_idx as a partial BRIN index that summarizes itself, under its name, and back to the B-tree on down', async () => {
    await withPgSchema('0030', async (db, schema, migrator) => {
      const across = await pgTaskIndexesAcross(db, schema, migrator, { before: BEFORE, after: AFTER });
      expect(across.before.tasks_usage_time_idx).toBe(`CREATE INDEX tasks_usage_time_idx ON ${schema}.tasks USING btree (usage_time) WHERE (usage_time IS NOT NULL)`);
      expect(across.after.tasks_usage_time_idx).toBe(`CREATE INDEX tasks_usage_time_idx ON ${schema}.tasks USING brin (usage_time) WITH (autosummarize='on') WHERE (usage_time IS NOT NULL)`);
      expectOtherTaskIndexesUnchanged(across, ['tasks_usage_time_idx']);
    });
  });

  it('a read by usage-time range goes through the index and finds exactly the tasks in range, summarized or not', async () => {
    await withPgSchema('0030', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql.raw(FILL).execute(db);
      await sql`analyze tasks`.execute(db);
      const count = async (from: number, to: number) => {
        const { rows } = await sql<{ n: string }>`select count(*) as n from tasks where usage_time >= ${from} and usage_time < ${to}`.execute(db);
        return Number(rows[0]!.n);
      };
      const ranges = [
        [1001, 1101],
        [5000, 5050],
        [20900, 21001],
        [0, 100000],
        [30000, 40000],
      ] as const;
      // Before any summary (autosummarize waits for autovacuum): every range is read, the answer is the same.
      for (const [from, to] of ranges) expect(await count(from, to), `${from}..${to}`).toBe(expectedInRange(from, to));
      await sql`select brin_summarize_new_values('tasks_usage_time_idx')`.execute(db);
      for (const [from, to] of ranges) expect(await count(from, to), `${from}..${to}`).toBe(expectedInRange(from, to));
      // Rows written after the summary: a range already summarized widens, a new range stays unsummarized.
      await sql`insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id, usage_time, usage_final)
                values ('t-late', 'echo', 'anon', 'c-late', 'TASK_STATE_COMPLETED', 1, 1, 1, 1, '{}', 'm-late', 500, 1)`.execute(db);
      expect(await count(500, 501)).toBe(1);

      await sql`set enable_seqscan = off`.execute(db);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain select count(*) from tasks where usage_time >= 5000 and usage_time < 5050`.execute(db);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Bitmap Index Scan on tasks_usage_time_idx/);
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    await expectSqliteTaskIndexesUnchanged(dir, BEFORE, AFTER, 'tasks_usage_time_idx');
  });
});
