/**
 * The WAL checkpointer thread: copies committed WAL frames into the database file on its own
 * connection, so neither the copy nor its fsync ever blocks the event loop that commits.
 *
 * It also decides when the WAL starts over. SQLite restarts the log at the next write after a
 * checkpoint has copied all of it, and that write syncs the new log header (wal.c, even with
 * synchronous=NORMAL) — an fsync on the event loop. Checkpointing every 20 ms, that happened
 * several times a second under load and each took 1–25 ms (issue 26, the blocking echo's p99).
 * So a read transaction on a second connection holds the checkpoints one step behind the log
 * ("the pin"): the log is never fully copied, and SQLite appends instead of restarting. Only
 * once the log passes `restartBytes` is the pin let go, so it restarts once per that many bytes.
 *
 * The writer never truncates the log (its journal_size_limit is off, ADR 0060): this thread gives
 * the disk back, once the log has been idle for `idleTruncateMs`.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';

const { file, intervalMs, busyTimeoutMs, restartBytes, idleTruncateMs } = workerData as {
  file: string;
  intervalMs: number;
  busyTimeoutMs: number;
  restartBytes: number;
  idleTruncateMs: number;
};
const db = new Sqlite(file);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('wal_autocheckpoint = 0');
const pin = new Sqlite(file);
pin.pragma('wal_autocheckpoint = 0');
const pageSize = db.pragma('page_size', { simple: true }) as number;
const restartPages = Math.max(1, Math.floor(restartBytes / pageSize));

/**
 * WAL size (pages, 256 MiB) past which the checkpointer forces the log to start afresh. Normally
 * the writer restarts the log once the pin is let go; RESTART holds the writer for a moment, so
 * it is only the safety net.
 */
const FORCE_RESTART_PAGES = 65_536;

const begin = pin.prepare('BEGIN');
const commit = pin.prepare('COMMIT');
// Any read starts the read transaction (a bare BEGIN takes no snapshot).
const touch = pin.prepare('SELECT 1 FROM sqlite_schema LIMIT 1');

/**
 * Moves the pin to the log's end: the next checkpoint copies up to here, not what follows. Taken
 * while the log holds frames not yet copied, the pin gets a read mark of its own, which holds a
 * restart back; taken on a fully copied log it gets mark 0, which does not (one restart then, at
 * the next write, after which the frames it wrote are there to pin).
 */
function repin(): void {
  unpin();
  begin.run();
  touch.get();
}

function unpin(): void {
  if (pin.inTransaction) commit.run();
}

/** The pin is let go for one restart: from when the log passes restartPages until it has started over. */
let restarting = false;

/**
 * While a restart is wanted, checkpoints run back to back (every RESTART_POLL_MS): the writer
 * restarts the log only if a checkpoint has just copied all of it when its next transaction
 * begins, which under steady writes a checkpoint every 20 ms rarely achieves.
 */
const RESTART_POLL_MS = 1;

/** The log's length at the last checkpoint, since when it has had that length, and whether that quiet was seen to. */
let lastLog = -1;
let quietSince = Date.now();
let quietDone = false;

/**
 * Truncates the log file to nothing once no commit has written to it for `idleTruncateMs` and it
 * is longer than `restartBytes`. Under load the file keeps its length: each restart writes over
 * pages already in the page cache, where a truncation in the writer dropped them on the event
 * loop and the log's regrowth allocated and zeroed them again (ADR 0060). It does not wait: a
 * writer or reader on the log makes it give up until the next tick.
 */
function giveDiskBackWhenIdle(): void {
  if (quietDone || lastLog <= 0 || Date.now() - quietSince < idleTruncateMs) return;
  let bytes = 0;
  try {
    bytes = statSync(`${file}-wal`).size;
  } catch {
    return;
  }
  if (bytes <= restartBytes) {
    quietDone = true;
    return;
  }
  unpin();
  restarting = false;
  db.pragma('busy_timeout = 0');
  try {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    quietDone = r?.busy === 0;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
}

let timer: NodeJS.Timeout | undefined = setTimeout(tick, intervalMs);

function tick(): void {
  try {
    giveDiskBackWhenIdle();
    if (!restarting && !pin.inTransaction) repin();
    // PASSIVE never waits for the writer or readers: it copies what it can now (up to the pin) and returns.
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    if (!r) return;
    if (r.log !== lastLog) {
      lastLog = r.log;
      quietSince = Date.now();
      quietDone = false;
    }
    if (!restarting && r.log >= restartPages) {
      restarting = true;
      unpin();
    } else if (restarting && r.log < restartPages) {
      restarting = false;
    }
    // Frames past the pin: move it to their end (only this thread checkpoints, so they are still
    // not copied). None: the pin stays where it is, holding a restart back.
    if (!restarting && r.log > r.checkpointed) repin();
    if (r.log > FORCE_RESTART_PAGES) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // busy or closed: the next tick tries again
  }
  if (timer) timer = setTimeout(tick, restarting ? RESTART_POLL_MS : intervalMs);
}

parentPort!.on('message', (msg: { close?: true }) => {
  if (msg.close) {
    clearTimeout(timer);
    timer = undefined;
    try {
      unpin();
      pin.close();
      // A courtesy, not owed: the store's own connection, closed after this thread, is the last
      // one and checkpoints the log as it goes. So it does not wait: with the busy timeout it had
      // held a stop for 5 s whenever a reader was still in the log (seen under a loaded test run).
      db.pragma('busy_timeout = 0');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // leave the rest to the next start
    }
    db.close();
    parentPort!.close();
  }
});
