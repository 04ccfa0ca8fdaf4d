/**
 * The distributed store: PostgreSQL through a pg Pool of its own, in one schema.
 *
 * A commit is one transaction with few round trips whatever the batch size: new tasks go in one
 * multi-row insert, existing tasks in one conditional multi-row update, and all events and outbox
 * rows of the batch in one multi-row insert each.
 */
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { prepareCommit, type PreparedCommit } from '../rows.js';
import type { Database } from '../schema.js';
import type { AuditAppender } from '../sql-audit-store.js';
import { SqlStore } from '../sql-store.js';
import { postgresAuditAppender } from './postgres-audit-append.js';
import { ConcurrentUpdateError, type TaskCommit } from '../store.js';
import type { UsageRecord } from '../usage-record.js';
import { toUsageRow } from '../usage/usage-rows.js';
import { onUsageConflict } from '../usage/usage-sql.js';
import { PostgresUsageStore } from './postgres-usage-store.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** schema holding every table (created by migrate() if missing); default 'public' */
  schema?: string;
  /** pool size; default 10 */
  maxConnections?: number;
  /** fail a connection attempt after this long; default 10000 ms */
  connectionTimeoutMs?: number;
}

/** PG's 65535 bind parameters per statement, with room to spare for the widest row (12 columns). */
const ROWS_PER_INSERT = 1000;

/** Only plain lowercase identifiers: the name goes into the connection's search_path unquoted. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * int8 (epoch ms, counts, outbox ids) as numbers, for this pool only: pg's default is strings,
 * and changing the global parser would change every other pg user in the process.
 */
function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  if (oid === pg.types.builtins.INT8 && format !== 'binary') return (v: string) => Number(v);
  return pg.types.getTypeParser(oid, format);
}

export class PostgresStore extends SqlStore {
  readonly dialect = 'postgres' as const;
  readonly usage: PostgresUsageStore;

  constructor(
    db: Kysely<Database>,
    schema: string,
    readonly location: string,
  ) {
    super(db, schema);
    this.usage = new PostgresUsageStore(db);
  }

  protected auditAppender(): AuditAppender {
    return postgresAuditAppender(this.db);
  }

  async commit(commits: TaskCommit[]): Promise<void> {
    if (commits.length === 0) return;
    const batch = commits.map(prepareCommit);
    await this.db.transaction().execute(async (trx) => {
      await insertNewTasks(
        trx,
        batch.filter((p) => p.expectedVersion === 0),
      );
      await updateTasks(
        trx,
        batch.filter((p) => p.expectedVersion !== 0),
      );
      const events = batch.flatMap((p) => (p.eventsRow ? [{ task_id: p.taskId, seq: p.eventsRow.lastSeq, first_seq: p.eventsRow.firstSeq, events: p.eventsRow.json, created_at: p.eventsRow.createdAt }] : []));
      for (let i = 0; i < events.length; i += ROWS_PER_INSERT) {
        await trx
          .insertInto('task_events')
          .values(events.slice(i, i + ROWS_PER_INSERT))
          .execute();
      }
      const outbox = batch.flatMap((p) =>
        p.outbox.map((o) => ({
          task_id: p.taskId,
          config_id: o.configId,
          seq: o.seq,
          payload: o.json,
          next_attempt_at: p.createdAt,
          created_at: p.createdAt,
        })),
      );
      for (let i = 0; i < outbox.length; i += ROWS_PER_INSERT) {
        await trx
          .insertInto('push_outbox')
          .values(outbox.slice(i, i + ROWS_PER_INSERT))
          .execute();
      }
      await upsertUsage(
        trx,
        batch.flatMap((p) => (p.usage ? [p.usage] : [])),
      );
    });
  }
}

/**
 * TaskCommit.usage: one multi-row INSERT … ON CONFLICT (id) DO UPDATE per run of distinct ids
 * (a statement may update a row only once; a task committed twice in the batch starts a new run,
 * so its second record applies on top of the first, in order).
 */
async function upsertUsage(trx: Transaction<Database>, records: UsageRecord[]): Promise<void> {
  let run: UsageRecord[] = [];
  let ids = new Set<string>();
  const flush = async () => {
    if (run.length === 0) return;
    await trx.insertInto('usage_records').values(run.map(toUsageRow)).onConflict(onUsageConflict).execute();
    run = [];
    ids = new Set();
  };
  for (const r of records) {
    if (ids.has(r.id) || run.length === ROWS_PER_INSERT) await flush();
    run.push(r);
    ids.add(r.id);
  }
  await flush();
}

/**
 * Existing tasks change only from the version their writer read. One UPDATE … FROM (VALUES …) per
 * run of distinct tasks: a statement updates a row at most once, so a task's second commit within
 * the batch starts the next run, which keeps each task's commits in order.
 */
async function updateTasks(trx: Transaction<Database>, updates: PreparedCommit[]): Promise<void> {
  let run: PreparedCommit[] = [];
  let ids = new Set<string>();
  for (const p of updates) {
    if (ids.has(p.taskId) || run.length === ROWS_PER_INSERT) {
      await updateRun(trx, run);
      run = [];
      ids = new Set();
    }
    run.push(p);
    ids.add(p.taskId);
  }
  if (run.length > 0) await updateRun(trx, run);
}

async function updateRun(trx: Transaction<Database>, run: PreparedCommit[]): Promise<void> {
  const values = sql.join(
    run.map(
      (p) =>
        sql`(${p.taskId}::text, ${p.agentId}::text, ${p.expectedVersion}::integer, ${p.contextId}::text, ${p.state}::text, ${p.statusTime}::bigint, ${p.seq}::integer, ${p.expectedVersion + 1}::integer, ${p.taskJson}::text, ${p.lease?.owner ?? null}::text, ${p.lease?.expiresAt ?? null}::bigint)`,
    ),
  );
  // A commit with a lease writes it; one without (null owner in its row) keeps the stored lease.
  const { rows } = await sql<{ id: string }>`
    update tasks as t
       set context_id = v.context_id, state = v.state, status_time = v.status_time,
           seq = v.seq, version = v.version, task = v.task,
           lease_owner = case when v.lease_owner is null then t.lease_owner else v.lease_owner end,
           lease_expires_at = case when v.lease_owner is null then t.lease_expires_at else v.lease_expires_at end
      from (values ${values}) as v(id, agent_id, expected_version, context_id, state, status_time, seq, version, task, lease_owner, lease_expires_at)
     where t.id = v.id and t.agent_id = v.agent_id and t.version = v.expected_version
    returning t.id`.execute(trx);
  if (rows.length === run.length) return;
  const done = new Set(rows.map((r) => r.id));
  const lost = run.find((p) => !done.has(p.taskId));
  throw new ConcurrentUpdateError(lost?.taskId ?? run[0]!.taskId);
}

/** New tasks must not exist yet: a row that was not inserted is a concurrent create. */
async function insertNewTasks(trx: Transaction<Database>, created: PreparedCommit[]): Promise<void> {
  for (let i = 0; i < created.length; i += ROWS_PER_INSERT) {
    const chunk = created.slice(i, i + ROWS_PER_INSERT);
    const inserted = await trx
      .insertInto('tasks')
      .values(
        chunk.map((p) => ({
          id: p.taskId,
          agent_id: p.agentId,
          owner: p.owner,
          context_id: p.contextId,
          state: p.state,
          status_time: p.statusTime,
          created_at: p.createdAt,
          seq: p.seq,
          version: 1,
          task: p.taskJson,
          lease_owner: p.lease?.owner ?? null,
          lease_expires_at: p.lease?.expiresAt ?? null,
          origin_message_id: p.originMessageId,
          trace_parent: p.traceParent,
        })),
      )
      // DO NOTHING rather than a unique violation, which would abort the transaction before we
      // could name the task; a task twice in one batch is also caught here, and so is a second
      // task from the same (agent, owner, messageId).
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    if (inserted.length === chunk.length) continue;
    const done = new Set(inserted.map((r) => r.id));
    const lost = chunk.find((p) => !done.delete(p.taskId));
    throw new ConcurrentUpdateError(lost?.taskId ?? chunk[0]!.taskId);
  }
}

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const schema = opts.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.maxConnections ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    options: `-c search_path=${schema}`,
    types: { getTypeParser: typeParser as pg.CustomTypesConfig['getTypeParser'] },
  });
  // A connection the server drops (restart, failover, idle timeout) is reported as an 'error' event
  // on the pool or on the client; unheard, Node would end the process. The pool replaces the
  // connection, and the query that was running fails on its own with the same cause.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return new PostgresStore(db, schema, describePostgres(opts.connectionString, schema));
}

/** host:port/database (schema) as the operator configured it; the password never appears. */
function describePostgres(connectionString: string, schema: string): string {
  try {
    const u = new URL(connectionString);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `PostgreSQL ${user}${u.host || 'localhost'}${u.pathname || '/'} (schema ${schema})`;
  } catch {
    return `PostgreSQL (schema ${schema})`;
  }
}
