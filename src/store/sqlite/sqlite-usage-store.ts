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
import { compileWithSlots, slot } from './compiled-statement.js';
import type { StatementCache } from './statement-cache.js';

const AMEND_COLUMNS = ['ttfb_ms', 'latency_ms', 'bytes_in', 'bytes_out'] as const;

function compileStatements(k: Kysely<Database>) {
  const values = Object.fromEntries(USAGE_RECORD_COLUMNS.map((c) => [c, slot(c)]));
  return {
    // A call record is written once; a duplicate id (a retried flush) is skipped.
    insertCall: compileWithSlots(
      k
        .insertInto('usage_records')
        .values(values as never)
        .onConflict((oc) => oc.column('id').doNothing()),
      USAGE_RECORD_COLUMNS,
    ),
    amend: compileWithSlots(
      k
        .updateTable('usage_records')
        .set((eb) => Object.fromEntries(AMEND_COLUMNS.map((c) => [c, eb.fn.coalesce(slot(c), eb.ref(c))])))
        .where('id', '=', slot<string>('id')),
      [...AMEND_COLUMNS, 'id'],
    ),
  };
}

export class SqliteUsageStore extends SqlUsageStore {
  readonly #sql: ReturnType<typeof compileStatements>;
  #prepared: { insertCall: Sqlite.Statement; amend: Sqlite.Statement } | undefined;
  readonly #write: (records: readonly UsageRecord[], amends: readonly UsageAmend[]) => void;
  readonly #rollupStep: (level: RollupLevel, end: number) => RollupStep;

  constructor(
    private readonly raw: Sqlite.Database,
    private readonly cache: StatementCache,
    db: Kysely<Database>,
  ) {
    super(db);
    this.#sql = compileStatements(db);
    this.#write = raw.transaction((records: readonly UsageRecord[], amends: readonly UsageAmend[]) => {
      const s = this.statements;
      for (const r of records) s.insertCall.run(...usageRowValues(r));
      for (const a of amends) s.amend.run(a.ttfbMs ?? null, a.latencyMs ?? null, a.bytesIn ?? null, a.bytesOut ?? null, a.id);
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
    this.#prepared ??= { insertCall: this.raw.prepare(this.#sql.insertCall), amend: this.raw.prepare(this.#sql.amend) };
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
