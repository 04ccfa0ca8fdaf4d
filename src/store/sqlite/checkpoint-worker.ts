/**
 * The WAL checkpointer thread: copies committed WAL frames into the database file on its own
 * connection, so neither the copy nor its fsync ever blocks the event loop that commits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';

const { file, intervalMs, busyTimeoutMs } = workerData as { file: string; intervalMs: number; busyTimeoutMs: number };
const db = new Sqlite(file);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('wal_autocheckpoint = 0');

/**
 * WAL size (pages, 256 MiB) past which the checkpointer forces the log to start afresh. Normally
 * frequent PASSIVE checkpoints keep up, and the writer itself restarts the log whenever it finds
 * it fully copied; RESTART holds the writer for a moment, so it is only the safety net.
 */
const RESTART_PAGES = 65_536;

const timer = setInterval(() => {
  try {
    // PASSIVE never waits for the writer or readers: it copies what it can now and returns.
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    if (r && r.log > RESTART_PAGES) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // busy or closed: the next tick tries again
  }
}, intervalMs);

parentPort!.on('message', (msg: { close?: true }) => {
  if (msg.close) {
    clearInterval(timer);
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // leave the rest to the next start
    }
    db.close();
    parentPort!.close();
  }
});
