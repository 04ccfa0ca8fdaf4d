/**
 * The usage store on PostgreSQL: writes as one transaction of multi-row statements, rollup steps
 * as transactions that lock the watermark row first, so replicas rolling up at once take turns
 * and the second finds the hours already done.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { UsageAmend, UsageRecord } from '../usage-record.js';
import { planRollupStep, SqlUsageStore, type RollupStep } from '../usage/sql-usage-store.js';
import { toUsageRow } from '../usage/usage-rows.js';
import { firstSourceTime, rolledUntilOf, rollupStatements, type RollupLevel } from '../usage/usage-sql.js';
import { arrayLiteral } from './array-literal.js';

/** 28 columns per record: well under PG's 65535 bind parameters. */
const ROWS_PER_INSERT = 1000;

export class PostgresUsageStore extends SqlUsageStore {
  constructor(db: Kysely<Database>) {
    super(db);
  }

  async write(records: readonly UsageRecord[], amends: readonly UsageAmend[]): Promise<void> {
    if (records.length === 0 && amends.length === 0) return;
    const timings = latestAmends(amends);
    if (records.length === 0 && timings.length <= ROWS_PER_INSERT) {
      // The usual flush of a blocking workload: the answers' timings and nothing else. One
      // statement is its own transaction, so BEGIN and COMMIT would only add two round trips
      // (issue 26, pg9).
      await amendAlone(this.db, timings);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
        const chunk = records.slice(i, i + ROWS_PER_INSERT);
        await trx
          .insertInto('usage_records')
          .values(chunk.map(toUsageRow))
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        // A call record with the id of a task's record (kept in the task row, migration 0023) is
        // skipped like a duplicate: taken out again in the same transaction. Call ids are fresh
        // UUIDv7s, so in practice this removes nothing.
        await sql`delete from usage_records as r where r.id in (${sql.join(chunk.map((x) => x.id))}) and exists (select 1 from tasks as t where t.id = r.id and t.usage_time is not null)`.execute(trx);
      }
      await amendRows(trx, timings, true);
    });
  }

  protected async rollupStep(level: RollupLevel, end: number): Promise<RollupStep> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ rolled_until: number | string }>`${rolledUntilOf(level)} for update`.execute(trx);
      const rolledUntil = Number(rows[0]?.rolled_until ?? 0);
      const first = (await firstSourceTime(level, rolledUntil, end).execute(trx)).rows[0]?.first;
      const plan = planRollupStep(level, rolledUntil, first === null || first === undefined ? null : Number(first), end);
      if (!plan) return { units: 0, done: true };
      for (const statement of rollupStatements(level, plan.start, plan.stop)) await statement.execute(trx);
      return { units: plan.units, done: plan.stop >= end };
    });
  }
}

/**
 * One amend per id, a later one's values over an earlier one's: a statement writes a row once. An
 * id amended once (nearly every id) is passed on as it is, without a copy.
 */
function latestAmends(amends: readonly UsageAmend[]): UsageAmend[] {
  const latest = new Map<string, UsageAmend>();
  for (const a of amends) {
    const earlier = latest.get(a.id);
    latest.set(a.id, earlier === undefined ? a : laterOver(earlier, a));
  }
  return [...latest.values()];
}

/** `later`'s values, and `earlier`'s where `later` carries none. */
function laterOver(earlier: UsageAmend, later: UsageAmend): UsageAmend {
  return {
    id: later.id,
    ttfbMs: later.ttfbMs ?? earlier.ttfbMs,
    latencyMs: later.latencyMs ?? earlier.latencyMs,
    bytesIn: later.bytesIn ?? earlier.bytesIn,
    bytesOut: later.bytesOut ?? earlier.bytesOut,
  };
}

/** What an insert raises when a row's id is taken: unique_violation. */
const TAKEN = '23505';

/**
 * A flush of amends alone, as its own statement: first as a plain insert, and only if an id
 * already has its row (the insert fails whole and writes nothing), again as amendRows' upsert.
 *
 * Why (issue 26, pg21): a task's timing is amended once, by the call that created it, after its
 * answer, so its row is nearly always new; the commit writes one only when the record had its
 * timing before the commit (commitTiming), and a retried flush may find its own rows. An
 * INSERT … ON CONFLICT inserts each row speculatively (a check of the key, a speculative heap
 * insert, the key's insert with a second check, a confirmation record in the WAL). Counted with
 * callgrind on a PostgreSQL 15 backend, 250 rows a statement: 49.7 k instructions a row as the
 * upsert, 34.3 k as the plain insert, and 300 against 252 WAL bytes a row (docs/benchmarks.md,
 * "Issue 26 — pg21").
 */
async function amendAlone(db: Kysely<Database>, all: readonly UsageAmend[]): Promise<void> {
  try {
    await amendRows(db, all, false);
  } catch (err) {
    const e = err as { code?: unknown; table?: unknown };
    if (e.code !== TAKEN || e.table !== 'task_usage_timing') throw err;
    await amendRows(db, all, true);
  }
}

/**
 * Task records' timings (one amend per id) into task_usage_timing (migration 0023): one insert per
 * chunk; with `upsert`, an amend of an id that has its row only fills the columns it carries, and
 * without it such an amend fails the statement (amendAlone).
 *
 * The chunk goes as five arrays, one per column, unnested by a statement whose text never changes
 * (issue 26, pg12): the blocking echo's flush is ~250 amends, and as a VALUES list of 1,250 bound
 * parameters PostgreSQL parsed and planned a statement that size every flush, and the query
 * builder compiled it on the event loop (backend ~11 µs a row against ~8 µs over arrays, scratch
 * measurement on PostgreSQL 15; docs/benchmarks.md, "pg12"). A missing value is a NULL element.
 * The arrays go as array input text written here (array-literal.ts): pg's own conversion of ~1,250
 * elements a flush cost the event loop ~7 µs a request (issue 26, pgsrv15).
 */
async function amendRows(db: Kysely<Database> | Transaction<Database>, all: readonly UsageAmend[], upsert: boolean): Promise<void> {
  for (let i = 0; i < all.length; i += ROWS_PER_INSERT) {
    const chunk = all.slice(i, i + ROWS_PER_INSERT);
    const ids: string[] = [];
    const ttfb: (number | null)[] = [];
    const latency: (number | null)[] = [];
    const bytesIn: (number | null)[] = [];
    const bytesOut: (number | null)[] = [];
    for (const a of chunk) {
      ids.push(a.id);
      ttfb.push(a.ttfbMs ?? null);
      latency.push(a.latencyMs ?? null);
      bytesIn.push(a.bytesIn ?? null);
      bytesOut.push(a.bytesOut ?? null);
    }
    await sql`
      insert into task_usage_timing as u (id, ttfb_ms, latency_ms, bytes_in, bytes_out)
      select id, ttfb_ms, latency_ms, bytes_in, bytes_out
        from unnest(${arrayLiteral(ids)}::text[], ${arrayLiteral(ttfb)}::double precision[], ${arrayLiteral(latency)}::double precision[], ${arrayLiteral(bytesIn)}::bigint[], ${arrayLiteral(bytesOut)}::bigint[]) as v(id, ttfb_ms, latency_ms, bytes_in, bytes_out)
      ${upsert ? UPSERT : sql``}`.execute(db);
  }
}

const UPSERT = sql`on conflict (id) do update
         set ttfb_ms = coalesce(excluded.ttfb_ms, u.ttfb_ms), latency_ms = coalesce(excluded.latency_ms, u.latency_ms),
             bytes_in = coalesce(excluded.bytes_in, u.bytes_in), bytes_out = coalesce(excluded.bytes_out, u.bytes_out)`;
