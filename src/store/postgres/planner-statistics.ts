/**
 * Keeps PostgreSQL's planner statistics of the hot tables current, whatever autovacuum does.
 *
 * Why: the commit, the message-id lookup and the lease statements run as named prepared
 * statements, and PostgreSQL caches the plan it made for them. A plan made while a table was
 * nearly empty (a fresh deployment) joins by scanning the whole table, and that plan stays cached
 * until the table's statistics change. With autovacuum off or behind, that never happens: measured
 * on a fresh schema (issue 18), the message-id lookup grew to 5 ms per call after 20,000 tasks
 * (a sequential scan per lookup), 0.14 ms once the table had been analyzed. ANALYZE invalidates
 * the cached plans on every connection, so the next execution plans with the real sizes.
 *
 * The rule: a table analyzed once it changed by 1,000 rows plus as many rows as it held at its last
 * analysis (it about doubled), from pg_stat_user_tables, which counts the changes of every replica:
 * each replica checks, and ANALYZE (SKIP_LOCKED) lets one of them do it while another one already
 * is. For `tasks` the change is its growth (live rows less the rows at its last analysis), not its
 * modifications since: an ANALYZE of some columns does not reset that count (see below).
 * Not autoanalyze's 10 % (issue 26, pg10): an ANALYZE of `tasks` reads a 30,000-row sample and
 * sorts it per column, ~0.3 s of the database's CPU at 30,000 tasks, so at 10 % it cost ~40 µs of
 * database CPU per task written over a 250,000-task bench, more than the task's own commit. What
 * this class is for, a plan cached while a table was nearly empty, turns into an index plan in the
 * first doublings; the finer statistics stay autovacuum's job, where it runs.
 *
 * A small sample (issue 26, pg13): this ANALYZE runs with a statistics target of 10, a 3,000-row
 * sample and 10-bucket histograms, not the default 100's 30,000 rows. What it must tell the
 * planner is how large a table is and that its keys are selective, which a small sample shows as
 * well; the sample and its per-column sorts were the cost (measured at 22,782 echo tasks: 330–510
 * ms of the backend's CPU at 100, 20–50 ms at 10). Autovacuum's own analyses keep the server's
 * target, and a column given a target of its own keeps it.
 *
 * Only the columns a statement filters, joins or sorts `tasks` by (issue 26, pg38): the payload
 * (`task`, `final_events`), the usage dimensions and the other texts never decide a plan's shape,
 * and computing their statistics was half of each ANALYZE. PostgreSQL reads a sampled row's
 * column by walking every column before it (`nocachegetattr`, 28 % of the instructions), so the
 * table's 37 columns cost far more than these 13. Counted with callgrind on a PostgreSQL 15
 * backend (single-user, 10,726 echo tasks, target 10): 181.5 M instructions an ANALYZE of every
 * column, 93.4 M of these. Such an ANALYZE still sets the table's size (reltuples) but does not
 * reset pg_stat_user_tables' modification count, hence the growth rule above for `tasks`.
 * Autovacuum's analyses, where it runs, still cover every column.
 */
import type pg from 'pg';

/** The tables read by joins and lookups on the request path. */
const HOT_TABLES = ['tasks', 'task_events', 'usage_records', 'push_outbox'] as const;
const CHECK_EVERY_MS = 5_000;
const BASE_CHANGES = 1_000;
/** of the rows at the last analysis (reltuples): 1, the table about doubled (see the file comment) */
const SHARE_OF_ROWS = 1;
/** default_statistics_target of the refresh's ANALYZE: 300 × this many rows sampled (see the file comment) */
export const REFRESH_STATISTICS_TARGET = 10;

/**
 * The columns of `tasks` the refresh analyzes: every one a statement's condition, join or order
 * reads (the commit's update, the lookups, ListTasks, leases and orphans, the usage rollup's time
 * range), and no payload or usage dimension: the rollup's grouping by those is estimated without
 * them, as it was before the first ANALYZE (see the file comment).
 */
export const TASKS_PLANNED_COLUMNS = [
  'id',
  'agent_id',
  'owner',
  'context_id',
  'state',
  'status_time',
  'created_at',
  'version',
  'lease_owner',
  'lease_expires_at',
  'origin_message_id',
  'usage_time',
  'usage_final',
] as const;

/** The ANALYZE's target: `tasks` by its planned columns, any other hot table whole. */
function analyzed(table: string): string {
  return table === 'tasks' ? `tasks (${TASKS_PLANNED_COLUMNS.join(', ')})` : table;
}

/**
 * `tasks` is due by its growth since its last analysis (an ANALYZE of some columns leaves
 * n_mod_since_analyze as it was); the other tables by their modifications since.
 */
const DUE_TABLES = `
select c.relname as name
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_stat_user_tables s on s.relid = c.oid
 where n.nspname = current_schema()
   and c.relname = any($1::text[])
   and (case when c.relname = 'tasks' then s.n_live_tup - greatest(c.reltuples, 0) else s.n_mod_since_analyze end) >= $2::float8 + $3::float8 * greatest(c.reltuples, 0)`;

export class PlannerStatistics {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly pool: pg.Pool) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.refresh().finally(() => (this.running = undefined));
    }, CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** Analyzes every hot table that changed enough since its last ANALYZE; returns their names. */
  async refresh(): Promise<string[]> {
    try {
      const { rows } = await this.pool.query<{ name: string }>(DUE_TABLES, [HOT_TABLES, BASE_CHANGES, SHARE_OF_ROWS]);
      // One simple query is one implicit transaction, so SET LOCAL ends with it: the pooled
      // connection keeps the server's target for everything else.
      for (const { name } of rows) await this.pool.query(`set local default_statistics_target = ${REFRESH_STATISTICS_TARGET}; analyze (skip_locked) ${analyzed(name)}`);
      return rows.map((r) => r.name);
    } catch {
      // An optimisation only: a failed round (connection lost, shutting down) is retried by the
      // next one, and autovacuum, where it runs, does the same work.
      return [];
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
