/**
 * The distributed store: PostgreSQL through a pg Pool of its own, in one schema.
 *
 * A commit is one prepared statement whatever the batch size (postgres-commit.ts), and several
 * batches may be in flight at once over the pool (commitConcurrency, used by the GroupCommitter).
 */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { prepareCommit, toStoredTask } from '../rows.js';
import type { Database } from '../schema.js';
import type { AuditAppender } from '../sql-audit-store.js';
import { SqlStore } from '../sql-store.js';
import { postgresAuditAppender } from './postgres-audit-append.js';
import type { StoredTask, TaskCommit } from '../store.js';
import { connectionOptions } from './connection-options.js';
import { MessageIdLookups } from './message-id-lookups.js';
import { SoleWriterMessageIds, type SoleWriterBuild } from './sole-writer-message-ids.js';
import { PlannerStatistics } from './planner-statistics.js';
import { PostgresCommitter } from './postgres-commit.js';
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

  /** Batches in flight at once: all of the pool but one connection, left for reads and leases. */
  readonly commitConcurrency: number;
  private readonly committer: PostgresCommitter;
  private readonly messageIdLookups: MessageIdLookups;
  /** the keys this store knows, consulted while this replica writes alone (ADR 0095) */
  readonly #messageIds: SoleWriterMessageIds;
  /** the server's store keeps the hot tables' statistics current; a CLI command's store does not */
  readonly plannerStatistics: PlannerStatistics;

  constructor(
    db: Kysely<Database>,
    pool: pg.Pool,
    schema: string,
    readonly location: string,
  ) {
    super(db, schema);
    this.usage = new PostgresUsageStore(db);
    this.commitConcurrency = Math.max(1, pool.options.max - 1);
    this.committer = new PostgresCommitter(pool);
    this.messageIdLookups = new MessageIdLookups(pool);
    this.#messageIds = new SoleWriterMessageIds(pool);
    this.plannerStatistics = new PlannerStatistics(pool);
  }

  override async close(): Promise<void> {
    await this.plannerStatistics.stop();
    await super.close();
  }

  /** A migration may have created the commit's row type again, under a new oid. */
  override async applyMigrations(): Promise<string[]> {
    const applied = await super.applyMigrations();
    this.committer.forgetRowType();
    return applied;
  }

  protected auditAppender(): AuditAppender {
    return postgresAuditAppender(this.db);
  }

  async commit(commits: TaskCommit[]): Promise<void> {
    if (commits.length === 0) return;
    // Known to the message-id filter before the write is sent (a failed batch leaves a "maybe": a query, never a wrong answer).
    for (let i = 0; i < commits.length; i++) {
      const c = commits[i]!;
      if (c.expectedVersion === 0 && c.originMessageId !== undefined) this.#messageIds.add(c.agentId, c.owner, c.originMessageId);
    }
    await this.committer.commit(commits.map(prepareCommit));
  }

  /**
   * The sum of the agent + owner's task_counts rows (migration 0014), which every commit adds its
   * new tasks to in the statement that inserts them: at most TASK_COUNT_SHARDS rows of the primary
   * key, instead of counting every task. Several replicas write, so no process could keep the
   * figure in memory as the embedded store does.
   */
  protected override async knownTaskCount(agentId: string, owner: string): Promise<number> {
    const row = await this.db
      .selectFrom('task_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
      .where('agent_id', '=', agentId)
      .where('owner', '=', owner)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  trustMessageIdsWhileAlone(aloneSpell: () => number | undefined): void {
    this.#messageIds.trustWhile(aloneSpell);
  }

  /** The message-id filter (ADR 0095): whether lookups consult it now, the spell it was read in, keys added. */
  messageIdFilterStatus(): { build: SoleWriterBuild; spell: number | undefined; keys: number } {
    return this.#messageIds.status();
  }

  override async findTaskByMessageId(agentId: string, owner: string, messageId: string): Promise<StoredTask | undefined> {
    // Nearly every SendMessage asks with a fresh messageId: while this replica writes alone, the filter proves most absent.
    if (!this.#messageIds.mayHold(agentId, owner, messageId)) return undefined;
    const row = await this.messageIdLookups.find(agentId, owner, messageId);
    return row ? toStoredTask(row) : undefined;
  }
}

/**
 * The store's pool. Its connections are kept while idle (`idleTimeoutMillis: 0`; pg's default
 * closes a connection idle for 10 s). The pool hands out the connection released last, so under a
 * steady load the few it keeps busy serve most statements and the rest sit idle: with the default,
 * they were closed and opened again at the next burst (five of ten within 30 s at ~1,000 req/s; issue
 * 26, pg37), each a new backend process to start and the hot statements to parse and plan again
 * (their first five executions planned for their values, ADR 0090). At most `maxConnections` are
 * held, as under load.
 */
export function storePoolConfig(opts: PostgresStoreOptions, schema: string): pg.PoolConfig {
  return {
    ...connectionOptions(opts.connectionString, schema),
    max: opts.maxConnections ?? 10,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    types: { getTypeParser: typeParser as pg.CustomTypesConfig['getTypeParser'] },
  };
}

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const schema = opts.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
  const pool = new pg.Pool(storePoolConfig(opts, schema));
  // A connection the server drops (restart, failover, idle timeout) is reported as an 'error' event
  // on the pool or on the client; unheard, Node would end the process. The pool replaces the
  // connection, and the query that was running fails on its own with the same cause.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return new PostgresStore(db, pool, schema, describePostgres(opts.connectionString, schema));
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
