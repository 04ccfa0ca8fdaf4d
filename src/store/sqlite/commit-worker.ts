/**
 * The commit thread (ADR 0062): runs the task commit's transactions on a connection of its own, so
 * SQLite's work on them (the statements, the B-trees, the WAL append and its checksums) leaves
 * the event loop. The batch arrives serialized already (prepareCommit ran on the event loop); the
 * answer goes back once COMMIT has returned, so a commit is acknowledged only once it is as
 * durable as on the store's own connection (the same `synchronous`).
 *
 * Messages are handled strictly in order: a count (knownTaskCount) answered here sees exactly
 * the batches answered before it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { ConcurrentUpdateError } from '../store.js';
import { prepareCommitStatements, writePlan } from './commit-batch.js';
import type { CommitThreadData, CommitThreadReply, CommitThreadRequest } from './commit-thread.js';

const data = workerData as CommitThreadData;
/** The store connection's limit on the log file kept after a checkpoint, without the checkpointer thread. */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
const db = new Sqlite(data.file);
db.pragma(`synchronous = ${data.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
db.pragma('cache_size = -16384');
if (data.checkpointThread) {
  // The checkpointer thread copies the log; the writer neither checkpoints nor truncates (ADR 0060).
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('journal_size_limit = -1');
} else {
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
}

/** Prepared on the first batch: the store's migrations have run by then (they run before any commit). */
let statements: Sqlite.Statement[] | undefined;
let countTasks: Sqlite.Statement | undefined;

/** The other writes' statements (the usage flush's), by their SQL text: a handful of texts, each prepared once. */
const other = new Map<string, Sqlite.Statement>();
function prepareOther(sql: string): Sqlite.Statement {
  let statement = other.get(sql);
  if (!statement) other.set(sql, (statement = db.prepare(sql)));
  return statement;
}

const write = db.transaction((plan: unknown[]) => writePlan((statements ??= prepareCommitStatements(db, data.sql)), plan, prepareOther));

function failure(id: number, err: unknown): CommitThreadReply {
  if (err instanceof ConcurrentUpdateError) return { id, conflict: err.taskId };
  const e = err as { message?: unknown; code?: unknown } | undefined;
  return { id, error: { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined } };
}

const port = parentPort!;
port.on('message', (msg: CommitThreadRequest) => {
  if ('close' in msg) {
    db.close();
    port.close();
    return;
  }
  if ('autoCheckpoint' in msg) {
    // The checkpointer thread has stopped: SQLite's own checkpoints keep the log bounded again.
    db.pragma('wal_autocheckpoint = 1000');
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    return;
  }
  let reply: CommitThreadReply;
  try {
    if ('plan' in msg) {
      write(msg.plan);
      reply = { id: msg.id };
    } else {
      countTasks ??= db.prepare(data.sql.countTasks);
      reply = { id: msg.id, n: Number((countTasks.get(msg.agentId, msg.owner) as { n: number | bigint }).n) };
    }
  } catch (err) {
    reply = failure(msg.id, err);
  }
  port.postMessage(reply);
});
