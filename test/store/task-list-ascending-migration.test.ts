/**
 * Migration 0029 (PostgreSQL: `tasks_list_idx` in ascending order, issue 26, pg21): up and down
 * on both dialects, nothing else on `tasks` changed; and ListTasks' pages, read in descending
 * order, still come from the index, scanned backward, without a sort, on a table of 20,000 tasks
 * (generic plans, as the pool's prepared statements settle).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { InCodeMigrationProvider } from '../../src/store/migrations/index.js';
import { migrateTo } from '../support/migrate-to.js';
import { withPgSchema } from '../support/pg-schema.js';

const BEFORE = '0028_postgres_task_inserts';
const AFTER = '0029_postgres_task_list_ascending';

async function pgTaskIndexes(db: Kysely<unknown>, schema: string): Promise<Record<string, string>> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = 'tasks'`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
}

/** The generic plan PostgreSQL keeps for a compiled query, its parameters given as literals. */
async function planOf(db: Kysely<unknown>, q: CompiledQuery): Promise<string> {
  const name = `p_${randomBytes(4).toString('hex')}`;
  await sql.raw(`prepare ${name} as ${q.sql}`).execute(db);
  await sql`set plan_cache_mode = force_generic_plan`.execute(db);
  const literals = q.parameters.map((p) => (typeof p === 'number' ? String(p) : `'${String(p).replace(/'/g, "''")}'`));
  const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute ${name}(${literals.join(', ')})`).execute(db);
  await sql.raw(`deallocate ${name}`).execute(db);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('migration 0029 (the list index of tasks in ascending order on PostgreSQL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentport-0029-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns the list index ascending on PostgreSQL under the same name, and back on down', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
      const before = await pgTaskIndexes(db, schema);
      expect(before.tasks_list_idx).toBe(`CREATE INDEX tasks_list_idx ON ${schema}.tasks USING btree (agent_id, owner, status_time DESC, id DESC)`);

      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      const after = await pgTaskIndexes(db, schema);
      expect(after.tasks_list_idx).toBe(`CREATE INDEX tasks_list_idx ON ${schema}.tasks USING btree (agent_id, owner, status_time, id)`);
      // nothing else on tasks changed
      const { tasks_list_idx: _a, ...rest } = after;
      const { tasks_list_idx: _b, ...restBefore } = before;
      expect(rest).toEqual(restBefore);

      expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
      expect(await pgTaskIndexes(db, schema)).toEqual(before);
    });
  });

  it('keeps the tasks of a database migrated with them, and ListTasks pages read backward through the index among 20,000 tasks', async () => {
    await withPgSchema('0029', async (db, schema, migrator) => {
      expect((await migrateTo(migrator, BEFORE, schema)).error).toBeUndefined();
      // 20,000 tasks over two agents, stored before the migration
      await sql
        .raw(
          `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task)
           select 't-' || lpad(g::text, 6, '0'), case when g % 2 = 0 then 'echo' else 'other' end, 'anon', 'c-' || g,
                  case when g % 10 = 0 then 'TASK_STATE_WORKING' else 'TASK_STATE_COMPLETED' end, g / 3, g, 1, 1, '{}'
             from generate_series(1, 20000) as g`,
        )
        .execute(db);
      expect((await migrateTo(migrator, AFTER, schema)).error).toBeUndefined();
      await sql`analyze tasks`.execute(db);
      const { rows: count } = await sql<{ n: string }>`select count(*) as n from tasks`.execute(db);
      expect(Number(count[0]!.n)).toBe(20000);

      // the store's searchTasks (src/store/sql-store.ts), as it builds a page
      const page = (after?: [number, string], state?: string, from?: number) => {
        let q = db
          .selectFrom('tasks' as never)
          .select(['id' as never, 'task' as never])
          .where('agent_id' as never, '=', 'echo' as never)
          .where('owner' as never, '=', 'anon' as never);
        if (state !== undefined) q = q.where('state' as never, '=', state as never);
        if (from !== undefined) q = q.where('status_time' as never, '>=', from as never);
        if (after) q = q.where((eb) => eb(eb.refTuple('status_time' as never, 'id' as never), '<', eb.tuple(after[0], after[1]) as never));
        return q
          .orderBy('status_time' as never, 'desc')
          .orderBy('id' as never, 'desc')
          .limit(21);
      };
      for (const q of [page(), page([5000, 't-015000']), page(undefined, 'TASK_STATE_WORKING'), page([5000, 't-015000'], undefined, 4000)]) {
        const plan = await planOf(db, q.compile());
        expect(plan).toMatch(/Index Scan Backward using tasks_list_idx on tasks/);
        expect(plan).not.toMatch(/Sort/);
        expect(plan).not.toMatch(/Seq Scan/);
      }
      const keyset = await planOf(db, page([5000, 't-015000']).compile());
      expect(keyset).toMatch(/Index Cond: \(\(agent_id = .*\) AND \(owner = .*\) AND \(ROW\(status_time, id\) < ROW\(/);

      // and the rows come in the page's order: status time, then id, both descending
      const rows = await page([5000, 't-015000']).execute();
      expect(rows.map((r) => (r as { id: string }).id)).toEqual([
        't-014998',
        't-014996',
        't-014994',
        't-014992',
        't-014990',
        't-014988',
        't-014986',
        't-014984',
        't-014982',
        't-014980',
        't-014978',
        't-014976',
        't-014974',
        't-014972',
        't-014970',
        't-014968',
        't-014966',
        't-014964',
        't-014962',
        't-014960',
        't-014958',
      ]);
    });
  });

  it('changes nothing on SQLite, up or down', async () => {
    const file = join(dir, 'store.db');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Sqlite(file) }) });
    const indexes = () => {
      const raw = new Sqlite(file, { readonly: true });
      try {
        return raw.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'tasks' order by name").all();
      } finally {
        raw.close();
      }
    };
    try {
      const migrator = new Migrator({ db, provider: new InCodeMigrationProvider('sqlite') });
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const before = indexes();
      expect(JSON.stringify(before)).toContain('tasks_list_idx');
      expect((await migrator.migrateTo(AFTER)).error).toBeUndefined();
      expect(indexes()).toEqual(before);
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      expect(indexes()).toEqual(before);
    } finally {
      await db.destroy();
    }
  });
});
