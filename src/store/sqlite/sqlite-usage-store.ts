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

/**
 * A task record's timing (UsageAmend, or a commit that carries it): one narrow row per task,
 * inserted once and merged on a repeat (a value given replaces, an absent one keeps). Binds
 * id, ttfb_ms, latency_ms, bytes_in, bytes_out.
 */
export const UPSERT_TIMING_SQL = `insert into "task_usage_timing" ("id", "ttfb_ms", "latency_ms", "bytes_in", "bytes_out") values (?, ?, ?, ?, ?)
  on conflict ("id") do update set "ttfb_ms" = coalesce("excluded"."ttfb_ms", "ttfb_ms"), "latency_ms" = coalesce("excluded"."latency_ms", "latency_ms"),
  "bytes_in" = coalesce("excluded"."bytes_in", "bytes_in"), "bytes_out" = coalesce("excluded"."bytes_out", "bytes_out")`;

/**
 * A call record is written once: a duplicate id (a retried flush) is skipped, and so is the id of
 * a task's record, which lives in the task row (migration 0023). Binds USAGE_RECORD_COLUMNS' values, then the id.
 */
const INSERT_CALL_SQL = `insert into "usage_records" (${USAGE_RECORD_COLUMNS.map((c) => `"${c}"`).join(', ')})
  select ${USAGE_RECORD_COLUMNS.map(() => '?').join(', ')} where not exists (select 1 from "tasks" where "id" = ? and "usage_time" is not null)
  on conflict ("id") do nothing`;

export class SqliteUsageStore extends SqlUsageStore {
  #prepared: { insertCall: Sqlite.Statement; amend: Sqlite.Statement } | undefined;
  readonly #write: (records: readonly UsageRecord[], amends: readonly UsageAmend[]) => void;
  readonly #rollupStep: (level: RollupLevel, end: number) => RollupStep;

  constructor(
    private readonly raw: Sqlite.Database,
    private readonly cache: StatementCache,
    db: Kysely<Database>,
  ) {
    super(db);
    this.#write = raw.transaction((records: readonly UsageRecord[], amends: readonly UsageAmend[]) => {
      const s = this.statements;
      for (const r of records) s.insertCall.run(...usageRowValues(r), r.id);
      for (const a of amends) s.amend.run(a.id, a.ttfbMs ?? null, a.latencyMs ?? null, a.bytesIn ?? null, a.bytesOut ?? null);
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

  /** Prepared on first use: the table exists only once `migrate()` has run. */
  private get statements() {
    this.#prepared ??= { insertCall: this.raw.prepare(INSERT_CALL_SQL), amend: this.raw.prepare(UPSERT_TIMING_SQL) };
    return this.#prepared;
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
    this.#write(records, amends);
  }

  protected async rollupStep(level: RollupLevel, end: number): Promise<RollupStep> {
    if (this.raw.inTransaction) throw new Error('sqlite usage store: rollup while a migration is running');
    return this.#rollupStep(level, end);
  }
}
