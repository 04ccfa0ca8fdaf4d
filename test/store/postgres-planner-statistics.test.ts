/**
 * The PostgreSQL store keeps its hot tables' planner statistics current (planner-statistics.ts),
 * against a real PostgreSQL (AGENTPORT_TEST_PG; the local server by default, where autovacuum may
 * be off). The motivating case is checked as PostgreSQL sees it: a join of keys to `tasks` (the
 * message-id lookup's shape before issue 26), its cached generic plan made while `tasks` was empty,
 * scans the whole table; after the store's ANALYZE it is replanned to the unique index. The store's
 * own lookup no longer depends on this: it probes the index even on an empty table.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIND_BY_MESSAGE_IDS } from '../../src/store/postgres/message-id-lookups.js';
import { PlannerStatistics } from '../../src/store/postgres/planner-statistics.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_${randomBytes(5).toString('hex')}_stats`;
let store: PostgresStore;

async function withClient<T>(f: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return await f(client);
  } finally {
    await client.end();
  }
}

/** A plain join of keys to tasks: the shape whose plan the table's statistics decide. */
const JOIN_LOOKUP = `select k.i, t.id
  from unnest($1::text[], $2::text[], $3::text[]) with ordinality as k(agent_id, owner, message_id, i)
  join tasks t on t.agent_id = k.agent_id and t.owner = k.owner and t.origin_message_id = k.message_id`;

async function planOf(c: pg.Client, statement = 'lookup'): Promise<string> {
  const { rows } = await c.query<{ 'QUERY PLAN': string }>(`explain execute ${statement}(array['echo'], array['anon'], array['m-1'])`);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** Rows of the table as the statistics say, and whether it was ever analyzed. */
async function statsOf(table: string): Promise<{ analyzed: boolean }> {
  return withClient(async (c) => {
    const { rows } = await c.query<{ analyzed: boolean }>(
      `select (s.last_analyze is not null or s.last_autoanalyze is not null) as analyzed
         from pg_stat_user_tables s where s.schemaname = $1 and s.relname = $2`,
      [schema, table],
    );
    return rows[0]!;
  });
}

async function fillTasks(n: number, from = 1): Promise<void> {
  // A client of its own, ended afterwards: a backend reports its table changes when it goes idle or exits.
  await withClient((c) =>
    c.query(
      `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
       select 't-' || g, 'echo', 'anon', 'c-' || g, 'TASK_STATE_COMPLETED', g, g, 1, 1, json_build_object('id', 't-' || g)::text, 'm-' || g from generate_series($2::int, $2::int + $1::int - 1) g`,
      [n, from],
    ),
  );
}

/**
 * Waits until the statistics system counts at least `changes` more live rows of `table` than its
 * last analysis found (the refresh's rule for `tasks`, which these tests fill).
 */
async function changesCounted(table: string, changes: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const n = await withClient(async (c) => {
      const { rows } = await c.query<{ n: string }>('select s.n_live_tup - greatest(c.reltuples, 0) as n from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.schemaname = $1 and s.relname = $2', [
        schema,
        table,
      ]);
      return Number(rows[0]!.n);
    });
    if (n >= changes) return;
    if (Date.now() > deadline) throw new Error(`${table}: ${n} changes counted, ${changes} expected`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** refresh() until it analyzed something; the statistics system may lag the inserting backend by a moment. */
async function refreshUntilAnalyzed(): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const analyzed = await store.plannerStatistics.refresh();
    if (analyzed.length > 0 || Date.now() > deadline) return analyzed;
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  store = await openPostgresStore({ connectionString: url, schema, maxConnections: 3, connectionTimeoutMs: 5000 });
  await store.migrate();
});

afterAll(async () => {
  await store?.close();
  await withClient((c) => c.query(`drop schema if exists "${schema}" cascade`));
});

describe('planner statistics of the PostgreSQL store', () => {
  it('analyzes nothing while the tables have barely changed', async () => {
    expect(await store.plannerStatistics.refresh()).toEqual([]);
    expect((await statsOf('tasks')).analyzed).toBe(false);
  });

  it('analyzes a table that grew, which replans the cached lookup from a full scan to the index', async () => {
    await withClient(async (c) => {
      await c.query('set plan_cache_mode = force_generic_plan');
      await c.query(`prepare lookup(text[], text[], text[]) as ${JOIN_LOOKUP}`);
      // Planned while tasks is empty: scanning it is the cheapest plan there is.
      expect(await planOf(c)).toMatch(/Seq Scan on tasks/);
      // The store's lookup probes the unique index per key all the same.
      await c.query(`prepare store_lookup(text[], text[], text[]) as ${FIND_BY_MESSAGE_IDS.text}`);
      const storePlan = await planOf(c, 'store_lookup');
      expect(storePlan).toMatch(/Nested Loop[\s\S]*Index Scan using tasks_origin_message_idx on tasks/);
      expect(storePlan).not.toMatch(/Seq Scan on tasks/);

      // The table grows; its statistics do not. (The cached plan is not asserted here: another
      // session's DDL can overflow PostgreSQL's invalidation queue, which replans every cached
      // plan at random — what other test files creating schemas do all the time.)
      await fillTasks(20_000);

      expect(await refreshUntilAnalyzed()).toContain('tasks');
      expect((await statsOf('tasks')).analyzed).toBe(true);
      const plan = await planOf(c);
      expect(plan).toMatch(/Index Scan using tasks_origin_message_idx on tasks/);
      expect(plan).not.toMatch(/Seq Scan on tasks/);
    });
    // Just analyzed: not due again.
    expect(await store.plannerStatistics.refresh()).not.toContain('tasks');
  });

  it("analyzes it again once it about doubled, not at autoanalyze's 10 %", async () => {
    // 25 % more rows: autoanalyze's rule (50 + 10 %) would analyze; ANALYZE of a large table is
    // costly enough to matter per task written (issue 26, pg10), so this waits for a doubling.
    await fillTasks(5_000, 20_001);
    await changesCounted('tasks', 5_000);
    expect(await store.plannerStatistics.refresh()).not.toContain('tasks');
    // 1,000 + the 20,000 rows it held: due.
    await fillTasks(16_500, 25_001);
    await changesCounted('tasks', 21_500);
    expect(await refreshUntilAnalyzed()).toContain('tasks');
  });

  it('analyzes with a small sample, and the connection keeps its own statistics target', async () => {
    // A pool of one connection, so the target is read on the connection that ran the ANALYZE.
    const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
    try {
      const before = (await pool.query<{ t: string }>("select current_setting('default_statistics_target') as t")).rows[0]!.t;
      const stats = new PlannerStatistics(pool);
      // 41,500 rows were analyzed at 20,000: another 42,500 make it due.
      await fillTasks(42_500, 41_501);
      await changesCounted('tasks', 42_500);
      const deadline = Date.now() + 10_000;
      while (!(await stats.refresh()).includes('tasks')) {
        if (Date.now() > deadline) throw new Error('tasks never due');
        await new Promise((r) => setTimeout(r, 200));
      }
      // status_time is distinct in every row, so a histogram has as many buckets as the target
      // allows: 10 buckets (11 bounds) at a target of 10, 100 (101 bounds) at the default 100.
      const { rows } = await pool.query<{ n: number }>(`select array_length(histogram_bounds::text::text[], 1) as n from pg_stats where schemaname = $1 and tablename = 'tasks' and attname = 'status_time'`, [schema]);
      expect(rows[0]!.n).toBe(11);
      expect((await pool.query<{ t: string }>("select current_setting('default_statistics_target') as t")).rows[0]!.t).toBe(before);
      expect(before).toMatch(/^[0-9]+$/);
    } finally {
      await pool.end();
    }
  });

  it("analyzes the columns tasks' statements are planned by, not its payload or usage dimensions", async () => {
    // Written here, not read from the source: what the statements filter, join and sort by.
    const planned = ['id', 'agent_id', 'owner', 'context_id', 'state', 'status_time', 'created_at', 'version', 'lease_owner', 'lease_expires_at', 'origin_message_id', 'usage_time', 'usage_final'];
    const { analyzed, autoanalyzed } = await withClient(async (c) => {
      const stats = await c.query<{ attname: string }>(`select attname from pg_stats where schemaname = $1 and tablename = 'tasks'`, [schema]);
      const auto = await c.query<{ n: string }>(`select autoanalyze_count as n from pg_stat_user_tables where schemaname = $1 and relname = 'tasks'`, [schema]);
      return { analyzed: stats.rows.map((r) => r.attname), autoanalyzed: Number(auto.rows[0]!.n) > 0 };
    });
    for (const column of planned) expect(analyzed).toContain(column);
    // Autovacuum's own analyses cover every column (on a server where it runs and got to this table).
    if (!autoanalyzed) for (const column of ['task', 'final_events', 'caller', 'trace_parent', 'seq', 'usage_subject', 'usage_replica', 'usage_cost']) expect(analyzed).not.toContain(column);
  });

  it('finds a stored task by message id through the same statement after the refresh', async () => {
    const found = await store.findTaskByMessageId('echo', 'anon', 'm-12345');
    expect(found?.task.id).toBe('t-12345');
    expect(await store.findTaskByMessageId('echo', 'anon', 'm-none')).toBeUndefined();
  });
});
