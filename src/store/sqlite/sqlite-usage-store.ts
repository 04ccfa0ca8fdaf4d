/**
 * The usage store on SQLite. Its transactions (write, each rollup step) run as synchronous
 * better-sqlite3 transactions like the task commit, never as Kysely transactions: one spanning
 * awaits would be joined by a task commit landing meanwhile (see sqlite-store.ts).
 */
import type Sqlite from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { UsageAmend, UsageRecord } from '../usage-record.js';
import { planRollupStep, SqlUsageStore, type RollupStep } from '../usage/sql-usage-store.js';
import { USAGE_RECORD_COLUMNS, usageRowValues } from '../usage/usage-rows.js';
import { firstSourceTime, rolledUntilOf, rollupStatements, type RollupLevel } from '../usage/usage-sql.js';
import type { StatementCache } from './statement-cache.js';
import type { CommitThread } from './commit-thread.js';
import { planOf, putPlanValue } from './commit-batch.js';

/**
 * A task record's timing (UsageAmend, or a commit that carries it): one narrow row per task,
 * inserted once and merged on a repeat (a value given replaces, an absent one keeps). Binds
 * id, ttfb_ms, latency_ms, bytes_in, bytes_out.
 */
export const UPSERT_TIMING_SQL = upsertTimingSql(1);

/**
 * UPSERT_TIMING_SQL for `rows` rows in one statement (binds 5 values a row, in row order). SQLite
 * inserts the rows in order, so an id given twice is merged like two statements in a row.
 */
function upsertTimingSql(rows: number): string {
  const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ');
  return `insert into "task_usage_timing" ("id", "ttfb_ms", "latency_ms", "bytes_in", "bytes_out") values ${values}
  on conflict ("id") do update set "ttfb_ms" = coalesce("excluded"."ttfb_ms", "ttfb_ms"), "latency_ms" = coalesce("excluded"."latency_ms", "latency_ms"),
  "bytes_in" = coalesce("excluded"."bytes_in", "bytes_in"), "bytes_out" = coalesce("excluded"."bytes_out", "bytes_out")`;
}

/**
 * Amends written per statement at most (320 values, far under SQLite's 32,766). Issue 26: one
 * statement a row cost each blocking task ~2.7 k instructions of statement overhead on the main
 * thread (step, reset, bind set-up); a flush carries one amend per task answered since the last.
 */
const AMENDS_PER_STATEMENT = 64;

/**
 * A call record is written once: a duplicate id (a retried flush) is skipped, and so is the id of
 * a task's record, which lives in the task row (migration 0023). Binds USAGE_RECORD_COLUMNS' values, then the id.
 */
const INSERT_CALL_SQL = `insert into "usage_records" (${USAGE_RECORD_COLUMNS.map((c) => `"${c}"`).join(', ')})
  select ${USAGE_RECORD_COLUMNS.map(() => '?').join(', ')} where not exists (select 1 from "tasks" where "id" = ? and "usage_time" is not null)
  on conflict ("id") do nothing`;

/** amends[from, to)'s values as upsertTimingSql(to - from) binds them */
function amendValues(amends: readonly UsageAmend[], from: number, to: number): unknown[] {
  const values: unknown[] = [];
  pushAmendValues(values, amends, from, to);
  return values;
}

function pushAmendValues(into: unknown[], amends: readonly UsageAmend[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const a = amends[i]!;
    into.push(a.id, a.ttfbMs ?? null, a.latencyMs ?? null, a.bytesIn ?? null, a.bytesOut ?? null);
  }
}

/** upsertTimingSql(n) by n, made once each (a flush's statements are all 64 rows but its last) */
const upsertTexts: string[] = [];
const upsertText = (rows: number): string => (upsertTexts[rows] ??= upsertTimingSql(rows));

/**
 * The same write as SqliteUsageStore's #write, as a plan of SQL texts and values for the commit
 * thread (commit-batch.ts). Values are put straight into the plan, which is allocated once at its
 * size, and each statement's text is made once: issue 26, the flush's part on the main thread
 * (~0.2 ms for 250 amends on the bench VM) lands on the requests in flight, like a scavenge.
 */
function writePlan(records: readonly UsageRecord[], amends: readonly UsageAmend[]): unknown[] {
  return planOf(() => {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const values = usageRowValues(r);
      putPlanValue(INSERT_CALL_SQL);
      putPlanValue(values.length + 1);
      for (let k = 0; k < values.length; k++) putPlanValue(values[k]);
      putPlanValue(r.id);
    }
    for (let i = 0; i < amends.length; i += AMENDS_PER_STATEMENT) {
      const to = Math.min(amends.length, i + AMENDS_PER_STATEMENT);
      putPlanValue(upsertText(to - i));
      putPlanValue(5 * (to - i));
      for (let j = i; j < to; j++) {
        const a = amends[j]!;
        // amendValues' order: upsertTimingSql binds these
        putPlanValue(a.id);
        putPlanValue(a.ttfbMs ?? null);
        putPlanValue(a.latencyMs ?? null);
        putPlanValue(a.bytesIn ?? null);
        putPlanValue(a.bytesOut ?? null);
      }
    }
  });
}

export class SqliteUsageStore extends SqlUsageStore {
  #insertCall: Sqlite.Statement | undefined;
  /** upsertTimingSql(n) by its row count n, prepared when first needed */
  readonly #amendStatements = new Map<number, Sqlite.Statement>();
  readonly #write: (records: readonly UsageRecord[], amends: readonly UsageAmend[]) => void;
  readonly #rollupStep: (level: RollupLevel, end: number) => RollupStep;

  constructor(
    private readonly raw: Sqlite.Database,
    private readonly cache: StatementCache,
    db: Kysely<Database>,
    /** the commit thread (ADR 0062): the flush's write goes there too, not competing with it for the lock */
    private readonly thread?: CommitThread,
  ) {
    super(db);
    this.#write = raw.transaction((records: readonly UsageRecord[], amends: readonly UsageAmend[]) => {
      if (records.length > 0) {
        const insertCall = (this.#insertCall ??= this.raw.prepare(INSERT_CALL_SQL));
        for (const r of records) insertCall.run(...usageRowValues(r), r.id);
      }
      for (let i = 0; i < amends.length; i += AMENDS_PER_STATEMENT) this.#amend(amends, i, Math.min(amends.length, i + AMENDS_PER_STATEMENT));
    });
    this.#rollupStep = raw.transaction((level: RollupLevel, end: number): RollupStep => {
      const state = this.run(rolledUntilOf(level), 'get') as { rolled_until: number } | undefined;
      const rolledUntil = Number(state?.rolled_until ?? 0);
      const first = this.run(firstSourceTime(level, rolledUntil, end), 'get') as { first: number | null } | undefined;
      const plan = planRollupStep(level, rolledUntil, first?.first ?? null, end);
      if (!plan) return { units: 0, done: true };
      for (const statement of rollupStatements(level, plan.start, plan.stop)) this.run(statement, 'run');
      return { units: plan.units, done: plan.stop >= end };
    });
  }

  /** amends[from, to) as one statement; prepared on first use (the table exists only once `migrate()` has run). */
  #amend(amends: readonly UsageAmend[], from: number, to: number): void {
    const rows = to - from;
    let statement = this.#amendStatements.get(rows);
    if (!statement) this.#amendStatements.set(rows, (statement = this.raw.prepare(upsertTimingSql(rows))));
    statement.run(...amendValues(amends, from, to));
  }

  /** Runs a Kysely-built statement synchronously, inside the caller's better-sqlite3 transaction. */
  private run(q: Compilable | RawBuilder<unknown>, how: 'get' | 'run'): unknown {
    // A raw `sql` builder compiles against a database; a query builder ignores the argument.
    const compiled = (q as { compile(db: Kysely<Database>): CompiledQuery }).compile(this.db);
    // The rollup's statements differ only in their values: prepared once each (statement-cache.ts).
    const statement = this.cache.prepare(compiled.sql);
    return how === 'get' ? statement.get(...compiled.parameters) : statement.run(...compiled.parameters);
  }

  async write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void> {
    if (records.length === 0 && amends.length === 0) return;
    if (this.raw.inTransaction) throw new Error('sqlite usage store: write while a migration is running');
    if (this.thread) return this.thread.commit(writePlan(records, amends), () => {});
    this.#write(records, amends);
  }

  protected async rollupStep(level: RollupLevel, end: number): Promise<RollupStep> {
    if (this.raw.inTransaction) throw new Error('sqlite usage store: rollup while a migration is running');
    return this.#rollupStep(level, end);
  }
}
