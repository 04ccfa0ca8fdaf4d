/**
 * The embedded store: SQLite through better-sqlite3, in WAL mode.
 *
 * better-sqlite3 is synchronous, so the commit hot path runs as one synchronous `db.transaction()`
 * over statements compiled by Kysely once at open: nothing else can interleave with it, and no
 * query is built per call. Everything else goes through Kysely as single statements, which are
 * atomic on their own. (A multi-statement Kysely transaction here would span awaits, and a
 * synchronous commit landing inside it would silently join it; only migrations do that, and they
 * run before the store is used.)
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { eventLog, logNeedsTaskRow, toOutboxEntry, toStoredTask, type OutboxRow, type TaskRowText } from '../rows.js';
import type { Database, TaskEventsTable, TasksTable } from '../schema.js';
import type { AuditAppender } from '../sql-audit-store.js';
import { toStoredApiKey, type ApiKeyStandingRow } from '../api-key-rows.js';
import { SqlStore } from '../sql-store.js';
import { sqliteAuditAppender } from './sqlite-audit-append.js';
import type { OutboxEntry, StoredApiKey, StoredTask, TaskCommit, TaskEventRecord } from '../store.js';
import { WalCheckpointer } from './checkpointer.js';
import { COMMIT_STATEMENTS, encodeBatch, newTaskOwners, writeBatch } from './commit-batch.js';
import { CommitThread, type CommitThreadData } from './commit-thread.js';
import { compileStatements, type StatementSql } from './sqlite-statements.js';
import { StatementCache } from './statement-cache.js';
import { SqliteUsageStore } from './sqlite-usage-store.js';
import { StoredMessageIds, type MessageIdBuild } from './stored-message-ids.js';
import { fileFailure } from './file-failure.js';

export interface SqliteStoreOptions {
  /** a database file path, or ':memory:' */
  file: string;
  /**
   * 'normal' (default): with WAL, a committed transaction survives a crash of the process
   * (kill -9) but may be lost on power failure. 'full': fsync on every commit, survives power loss.
   */
  synchronous?: 'normal' | 'full';
  /** how long a writer waits for another process's lock; default 5000 ms */
  busyTimeoutMs?: number;
  /** run WAL checkpoints on a worker thread instead of inside commits (default true for files) */
  checkpointThread?: boolean;
  /** called with the SQL of every statement the store's connection runs (better-sqlite3's `verbose`): diagnostics, tests */
  onStatement?: (sql: string) => void;
  /**
   * Another connection writes tasks to this file while this store is open (tests standing in for
   * replicas over one file; a server's data-dir lock rules it out): what relies on this store being
   * the only writer is off, so every idempotency lookup queries (ADR 0063). Default false.
   */
  sharedFile?: boolean;
  /**
   * run the task commits' transactions on a thread of their own, with its own connection to the
   * file (ADR 0062); default false. Not for ':memory:'.
   */
  commitThread?: boolean;
  /**
   * Told, with the cause, when the commit thread or the checkpointer thread ends without the store
   * closing it (ADR 0062's amendment); the server logs it. Default: a line on stderr.
   */
  onThreadStopped?: (err: Error) => void;
}

/** SQLite's automatic checkpoints and the log's size limit, as without the checkpointer thread. */
const AUTO_CHECKPOINT_PAGES = 1000;
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * Batches in flight at once with the commit thread. Two (ADR 0078): the next batch waits in the
 * thread's queue while it writes, not on the event loop for the answer of the one before, so a
 * late answer (the main thread in a pause, or without a core) no longer holds up the next batch.
 * The thread runs them one after another, in order; the group committer keeps a task out of the
 * second batch while its commit is in the first.
 */
const COMMIT_THREAD_CONCURRENCY = 2;

const taskCountKey = (agentId: string, owner: string) => `${agentId}\u0000${owner}`;
type Statements = { [K in keyof StatementSql]: Sqlite.Statement };

export class SqliteStore extends SqlStore {
  readonly dialect = 'sqlite' as const;
  readonly location: string;
  #statements: Statements | undefined;
  /** the commit's statements in plan order (commit-batch.ts), prepared on the first commit */
  #commitStatements: Sqlite.Statement[] | undefined;
  readonly #writeBatch: (plan: unknown[]) => void;
  #checkpointer: WalCheckpointer | undefined;
  /** agent and owner → how many tasks they have (knownTaskCount) */
  readonly #taskCounts = new Map<string, number>();
  /** what a failed commit said about the file itself (damaged, I/O error); stays until restart */
  #failure: string | undefined;
  /** the message ids the database holds, to skip a lookup that will miss (ADR 0063) */
  #messageIds: StoredMessageIds;
  readonly #sharedFile: boolean;
  /** the checkpointer thread ended on its own: SQLite's own checkpoints are back on */
  #checkpointerStopped = false;
  readonly usage: SqliteUsageStore;
  /** the commit thread (ADR 0062), when commits run there */
  readonly #thread: CommitThread | undefined;
  readonly commitConcurrency: number | undefined;

  constructor(
    private readonly raw: Sqlite.Database,
    cache: StatementCache,
    db: Kysely<Database>,
    private readonly statementSql: StatementSql,
    file: string,
    o: { checkpointer?: WalCheckpointer; thread?: CommitThread; sharedFile?: boolean; onThreadStopped: (err: Error) => void },
  ) {
    super(db);
    const { checkpointer, thread } = o;
    this.#sharedFile = o.sharedFile ?? false;
    this.#messageIds = new StoredMessageIds(raw, this.#sharedFile);
    this.location = file === ':memory:' ? 'SQLite database (in memory)' : `SQLite database ${file}`;
    this.#checkpointer = checkpointer;
    checkpointer?.onStopped((err) => {
      this.#checkpointerStopped = true;
      o.onThreadStopped(err);
      this.#checkpointWithoutThread();
    });
    this.usage = new SqliteUsageStore(raw, cache, db, thread);
    this.#writeBatch = raw.transaction((plan: unknown[]) => writeBatch((this.#commitStatements ??= COMMIT_STATEMENTS.map((name) => this.statements[name])), plan));
    this.#thread = thread;
    if (thread) this.commitConcurrency = COMMIT_THREAD_CONCURRENCY;
  }

  /**
   * The checkpointer thread has ended on its own: nothing copies the log into the database any
   * more, and with the writers' automatic checkpoints off (ADR 0060) the log would grow without
   * bound. So SQLite's own checkpoints come back on both connections that write: slower commits
   * now and then, as before the thread, but no failure to report (ADR 0062's amendment).
   */
  #checkpointWithoutThread(): void {
    if (!this.raw.open) return;
    this.raw.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    this.raw.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    this.#thread?.autoCheckpoint();
  }

  /**
   * Test seam (test/store/sqlite-thread-death.test.ts), never called by the server: ends one of the
   * store's threads for real, as a fatal error in it would (commit-thread.ts, checkpointer.ts).
   */
  killThreadForTests(which: 'commit' | 'checkpoint', how: 'terminate' | 'uncaught' = 'terminate'): void {
    if (which === 'commit') this.#thread?.killForTests(how);
    else this.#checkpointer?.killForTests();
  }

  /**
   * Test seam (test/support/sqlite-reuse.ts), never called by the server: a test has just put the
   * file's rows back to those of a freshly migrated database, under this open store, and the store
   * forgets what it remembered of the rows it had (task counts, the message-id filter), so that it
   * answers as a store opened on the file now would, its threads kept: starting them is most of a
   * new store's cost (issue 26). False, forgetting nothing, for a store that is no longer as it was
   * opened: closed, a thread ended, a commit failed on the file.
   */
  forgetRowsForTests(): boolean {
    if (!this.raw.open || this.#failure !== undefined || this.#thread?.stopped || this.#checkpointerStopped) return false;
    this.#taskCounts.clear();
    this.#messageIds = new StoredMessageIds(this.raw, this.#sharedFile);
    return true;
  }

  /** Whether the task commits run on the commit thread (ADR 0062). */
  get commitsOnThread(): boolean {
    return this.#thread !== undefined;
  }

  protected auditAppender(): AuditAppender {
    return sqliteAuditAppender(this.raw);
  }

  /** Prepared on first use: the tables exist only once `migrate()` has run. */
  private get statements(): Statements {
    if (this.#statements) return this.#statements;
    const prepared = {} as Statements;
    for (const name of Object.keys(this.statementSql) as (keyof StatementSql)[]) {
      prepared[name] = this.raw.prepare(this.statementSql[name]);
    }
    // The number alone, not a row object: this one runs on every request with an API key.
    prepared.selectCredentialsGeneration.pluck();
    return (this.#statements = prepared);
  }

  async commit(commits: TaskCommit[]): Promise<void> {
    if (commits.length === 0) return;
    // With the thread only the promise and the new tasks' owners wait for its answer, not the batch's plan (issue 26, tail21).
    const answered = this.#thread ? this.#handToThread(this.#thread, commits) : undefined;
    const plan = answered ? undefined : this.#encode(commits);
    try {
      if (answered) await answered;
      else this.#writeBatch(plan!);
    } catch (err) {
      this.#failure ??= fileFailure(err);
      throw err;
    }
    if (plan) this.#countNewTasks(newTaskOwners(commits));
  }

  /** The batch's plan (encodeBatch), its documents serialized before the write lock is taken, so the transaction holds it only for the inserts. */
  #encode(commits: TaskCommit[]): unknown[] {
    const plan = encodeBatch(commits);
    // Only a Kysely transaction (a migration) can be open here; joining it would be wrong.
    if (this.raw.inTransaction) throw new Error('sqlite store: commit while a migration is running');
    // Known to the message-id filter before any of it can be read (a failed batch leaves its keys: a "maybe" costs a query, never a wrong answer), on this thread.
    for (let i = 0; i < commits.length; i++) {
      const c = commits[i]!;
      if (c.expectedVersion === 0 && c.originMessageId !== undefined) this.#messageIds.add(c.agentId, c.owner, c.originMessageId);
    }
    return plan;
  }

  /** Counted in the answer's handler, in the order the thread committed (knownTaskCount). */
  #handToThread(thread: CommitThread, commits: TaskCommit[]): Promise<void> {
    const plan = this.#encode(commits);
    const created = newTaskOwners(commits);
    return thread.commit(plan, () => this.#countNewTasks(created));
  }

  /** The batch is committed whole (any failed insert throws and rolls it back): counts its new tasks. */
  #countNewTasks(created: readonly string[]): void {
    if (this.#taskCounts.size === 0) return;
    for (let i = 0; i < created.length; i += 2) {
      const key = taskCountKey(created[i]!, created[i + 1]!);
      const n = this.#taskCounts.get(key);
      if (n !== undefined) this.#taskCounts.set(key, n + 1);
    }
  }

  /**
   * Exact without counting: this process is the database's only writer (the embedded store), tasks
   * are never deleted, and every insert goes through commit() above, which adds to the figure. It
   * is counted once per agent and owner, on the first unfiltered ListTasks, synchronously, so no
   * commit can land between the count and the moment it is remembered. With the commit thread
   * (ADR 0062) commits land there, so the thread counts, in order with its commits: the figure is
   * remembered in the handler of its answer, which comes after the answers of every batch the
   * count saw and before those of every batch it did not.
   */
  protected override knownTaskCount(agentId: string, owner: string): number | Promise<number> {
    const key = taskCountKey(agentId, owner);
    let n = this.#taskCounts.get(key);
    if (n === undefined && this.#thread) {
      return this.#thread.countTasks(agentId, owner, (counted) => {
        // Another count of the same key answered first and has been kept up to date since.
        const known = this.#taskCounts.get(key);
        if (known !== undefined) return known;
        this.#taskCounts.set(key, counted);
        return counted;
      });
    }
    if (n === undefined) {
      n = Number((this.statements.countTasks.get(agentId, owner) as { n: number | bigint }).n);
      this.#taskCounts.set(key, n);
    }
    return n;
  }

  /**
   * Why the database file cannot be trusted, once a commit failed on the file itself (issue 25
   * D7b): `/readyz` reports it. A damaged file does not mend itself, so it stays until a restart
   * (whose integrity check then refuses to start on it). So does a commit thread that has stopped.
   */
  storageFailure(): string | undefined {
    // A commit thread that ended on its own fails every commit from then on (ADR 0062's amendment).
    return this.#failure ?? this.restartNeeded();
  }

  /** The commit thread stopped on its own: a restart starts a new one (/healthz fails, ADR 0062). */
  restartNeeded(): string | undefined {
    return this.#thread?.stopped ? 'commit thread stopped' : undefined;
  }

  /**
   * SQLite's `PRAGMA quick_check`: every page of every table and index read and its structure
   * checked (not the indexes against their tables: that is `integrity_check`, several times
   * slower). Undefined when it says ok, else its first finding. Damage SQLite meets on the way
   * is thrown as SQLITE_CORRUPT. Linear in the file's size (docs/cli.md gives a measure).
   */
  quickCheck(): string | undefined {
    const rows = this.raw.pragma('quick_check(1)') as Array<{ quick_check: string }>;
    const first = rows[0]?.quick_check;
    return first === undefined || first === 'ok' ? undefined : first;
  }

  override async close(): Promise<void> {
    // Commits in flight are answered first; the thread's connection closes before the store's.
    // The thread stays in place: commits arriving meanwhile are refused by it, not written here.
    await this.#thread?.close();
    const c = this.#checkpointer;
    this.#checkpointer = undefined;
    await c?.stop();
    await super.close();
  }

  override async getTask(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const row = this.statements.selectTask.get(taskId, agentId) as TasksTable | undefined;
    return row ? toStoredTask(row) : undefined;
  }

  override async findTaskByMessageId(agentId: string, owner: string, messageId: string): Promise<StoredTask | undefined> {
    return this.findTaskByMessageIdAtHand(agentId, owner, messageId);
  }

  /** The same read, answered at once (Store.findTaskByMessageIdAtHand: SendMessage waits no turn for it). */
  findTaskByMessageIdAtHand(agentId: string, owner: string, messageId: string): StoredTask | undefined {
    // SendMessage asks this for every fresh messageId: a key the filter proves absent is not looked up.
    if (!this.#messageIds.mayHold(agentId, owner, messageId)) return undefined;
    const row = this.statements.selectTaskByMessage.get(agentId, owner, messageId) as TasksTable | undefined;
    return row ? toStoredTask(row) : undefined;
  }

  /** The message-id filter (ADR 0063): whether lookups consult it yet, and its size. */
  messageIdFilterStatus(): { build: MessageIdBuild; keys: number; bytes: number; layers: number } {
    return this.#messageIds.status();
  }

  override async getApiKey(keyId: string): Promise<StoredApiKey | undefined> {
    const row = this.statements.selectApiKey.get(keyId) as ApiKeyStandingRow | undefined;
    return row ? toStoredApiKey(row) : undefined;
  }

  /**
   * The credentials generation (migration 0026, ADR 0052): raised by triggers on every write to a
   * row a key's standing is read from, by any connection. One step of a compiled statement on a
   * one-row table, a fraction of getApiKey's join, so StoredApiKeys may keep the records it read.
   */
  credentialsGeneration(): number {
    return this.statements.selectCredentialsGeneration.get() as number;
  }

  override async claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    const rows = this.statements.claimOutbox.all(now + leaseMs, now, now, limit) as OutboxRow[];
    return rows.map(toOutboxEntry).sort((a, b) => a.id - b.id);
  }

  override async readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEventRecord[]> {
    // LIMIT -1 is SQLite for "no limit".
    // Every row holds at least one event, so `limit` rows are enough for `limit` events.
    const rows = this.statements.selectEvents.all(taskId, afterSeq, limit ?? -1) as TaskEventsTable[];
    const taskRow = logNeedsTaskRow(rows, limit) ? (this.statements.selectTaskRowText.get(taskId) as TaskRowText | undefined) : undefined;
    return eventLog(taskId, rows, taskRow, afterSeq, limit);
  }
}

export async function openSqliteStore(opts: SqliteStoreOptions): Promise<SqliteStore> {
  const inMemory = opts.file === ':memory:';
  if (!inMemory) mkdirSync(dirname(opts.file), { recursive: true });
  const raw = new Sqlite(opts.file, opts.onStatement ? { verbose: (sql?: unknown) => opts.onStatement!(String(sql)) } : {});
  try {
    if (!inMemory) {
      raw.pragma('journal_mode = WAL');
      // A burst can grow the WAL file; give the disk back after checkpoints beyond 64 MiB.
      raw.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    }
    raw.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    raw.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    // 16 MiB page cache (default 2 MiB): the right edges of the indexes stay resident under load;
    // it is bounded, so RSS stays flat however many tasks are written.
    raw.pragma('cache_size = -16384');
    raw.pragma('temp_store = MEMORY');
    const cache = new StatementCache(raw);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cache.forKysely() }) });
    // Checkpoints move to a worker thread; if it cannot start, SQLite's automatic ones stay on.
    const checkpointer = inMemory || opts.checkpointThread === false ? undefined : WalCheckpointer.start(opts.file, { busyTimeoutMs: opts.busyTimeoutMs });
    if (checkpointer) {
      raw.pragma('wal_autocheckpoint = 0');
      // The thread gives the disk back once the log is idle. A limit here truncates the file in the
      // first commit after each restart, on the event loop: under load the log passes it, and that
      // commit spent 20-35 ms of CPU dropping the page cache beyond it, refilled at a cost (ADR 0060).
      raw.pragma('journal_size_limit = -1');
    }
    const statements = compileStatements(db);
    const onThreadStopped = opts.onThreadStopped ?? ((err: Error) => process.stderr.write(`agentport: ${err.message}\n`));
    const thread =
      inMemory || opts.commitThread !== true
        ? undefined
        : CommitThread.start(
            {
              file: opts.file,
              synchronous: opts.synchronous ?? 'normal',
              busyTimeoutMs: Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000)),
              checkpointThread: checkpointer !== undefined,
              sql: { ...Object.fromEntries(COMMIT_STATEMENTS.map((name) => [name, statements[name]])), countTasks: statements.countTasks } as CommitThreadData['sql'],
            },
            onThreadStopped,
          );
    return new SqliteStore(raw, cache, db, statements, opts.file, { checkpointer, thread, sharedFile: opts.sharedFile, onThreadStopped });
  } catch (err) {
    raw.close();
    throw err;
  }
}
