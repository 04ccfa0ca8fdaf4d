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
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { ConcurrentUpdateError } from '../store.js';
import { prepareCommitStatements, writePlan } from './commit-batch.js';
import type { CommitThreadData, CommitThreadReplies, CommitThreadReply, CommitThreadRequest } from './commit-thread.js';

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

/**
 * Batches that were all waiting when the thread took the first of them, as one transaction: each
 * in a savepoint of its own (`write` nested in a transaction is one), so a batch that fails rolls
 * back alone and is answered with its own failure while the others commit. One COMMIT and one
 * answer for all of them (tail39): a batch waits here only when the thread was late (without a
 * core, or writing the batch before), and then the late batch's requests need no second COMMIT
 * nor a second message back. The answers go only after the COMMIT, as before.
 */
const writeMerged = db.transaction((plans: { id: number; plan: unknown[] }[]): CommitThreadReply[] => {
  const replies: CommitThreadReply[] = [];
  for (const m of plans) {
    try {
      write(m.plan);
      replies.push({ id: m.id });
    } catch (err) {
      // Some failures (a full disk, an I/O error) make SQLite roll back the whole transaction, not
      // only the savepoint: the batches before this one are gone with it and the next would run
      // outside any transaction, so every batch here fails instead.
      if (!db.inTransaction) throw err;
      replies.push(failure(m.id, err));
    }
  }
  return replies;
});

function failure(id: number, err: unknown): CommitThreadReply {
  if (err instanceof ConcurrentUpdateError) return { id, conflict: err.taskId };
  const e = err as { message?: unknown; code?: unknown } | undefined;
  return { id, error: { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined } };
}

/** A batch, or several taken together (writeMerged): one answer message either way. */
function commitBatches(plans: { id: number; plan: unknown[] }[]): void {
  if (plans.length === 1) {
    const m = plans[0]!;
    let reply: CommitThreadReply;
    try {
      write(m.plan);
      reply = { id: m.id };
    } catch (err) {
      reply = failure(m.id, err);
    }
    port.postMessage(reply);
    return;
  }
  let replies: CommitThreadReply[];
  try {
    replies = writeMerged(plans);
  } catch (err) {
    replies = plans.map((m) => failure(m.id, err));
  }
  port.postMessage({ answers: replies } satisfies CommitThreadReplies);
}

function handleOther(msg: Exclude<CommitThreadRequest, { plan: unknown[] }>): boolean {
  if ('close' in msg) {
    db.close();
    port.close();
    return false;
  }
  if ('autoCheckpoint' in msg) {
    // The checkpointer thread has stopped: SQLite's own checkpoints keep the log bounded again.
    db.pragma('wal_autocheckpoint = 1000');
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    return true;
  }
  let reply: CommitThreadReply;
  try {
    countTasks ??= db.prepare(data.sql.countTasks);
    reply = { id: msg.id, n: Number((countTasks.get(msg.agentId, msg.owner) as { n: number | bigint }).n) };
  } catch (err) {
    reply = failure(msg.id, err);
  }
  port.postMessage(reply);
  return true;
}

const port = parentPort!;
port.on('message', (first: CommitThreadRequest) => {
  // Everything already waiting is taken now, in order: consecutive batches go as one transaction,
  // anything else (a count, a close) runs where it was in the order, after the batches before it.
  let plans: { id: number; plan: unknown[] }[] | undefined;
  let msg: CommitThreadRequest | undefined = first;
  while (msg !== undefined) {
    if ('plan' in msg) (plans ??= []).push(msg);
    else {
      if (plans) commitBatches(plans);
      plans = undefined;
      if (!handleOther(msg)) return;
    }
    msg = (receiveMessageOnPort(port)?.message as CommitThreadRequest | undefined) ?? undefined;
  }
  if (plans) commitBatches(plans);
});
