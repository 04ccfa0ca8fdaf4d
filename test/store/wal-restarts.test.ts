/**
 * The WAL checkpointer thread keeps the log from starting over at every checkpoint (issue 26).
 * Each restart makes the writer — the event loop — sync the new log header; checkpointing every
 * 20 ms, that was several fsyncs a second on the loop. A restart is seen here by the log header's
 * checkpoint sequence number (bytes 12–15 of the -wal file), which SQLite raises by one on each.
 */
import { closeSync, mkdtempSync, openSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { WalCheckpointer } from '../../src/store/sqlite/checkpointer.js';
import { openSqliteStore } from '../../src/store/index.js';

requireBuilt('dist/store/sqlite/checkpoint-worker.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A writer set up as the store sets up its own connection, with the checkpointer thread beside it. */
function open(restartBytes?: number, copiedFirst = false, idleTruncateMs?: number) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'agentport-wal-')), 'agentport.db');
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  // The thread starting on a fully copied log: its first pin gets read mark 0, which holds nothing back.
  if (copiedFirst) db.pragma('wal_checkpoint(PASSIVE)');
  const checkpointer = WalCheckpointer.start(file, {
    intervalMs: 5,
    ...(restartBytes !== undefined ? { restartBytes } : {}),
    ...(idleTruncateMs !== undefined ? { idleTruncateMs } : {}),
  });
  expect(checkpointer).toBeDefined();
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('journal_size_limit = -1');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const commit = db.transaction((rows: number) => {
    for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000));
  });
  const restarts = () => {
    const fd = openSync(`${file}-wal`, 'r');
    try {
      const b = Buffer.alloc(4);
      readSync(fd, b, 0, 4, 12);
      return b.readUInt32BE(0);
    } finally {
      closeSync(fd);
    }
  };
  const close = async () => {
    await checkpointer!.stop();
    db.close();
  };
  opened.push(close);
  const walBytes = () => statSync(`${file}-wal`).size;
  return { commit, restarts, walBytes };
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

describe('the WAL checkpointer thread', () => {
  it('does not let the log start over after each checkpoint (each restart is an fsync on the writer)', async () => {
    const w = open();
    w.commit(1);
    // Let checkpoints run between commits: each one copies the whole log before the next commit.
    await sleep(100);
    const before = w.restarts();
    for (let i = 0; i < 20; i++) {
      w.commit(1);
      await sleep(30);
    }
    // Without the pin: about one restart per commit (every commit found the log fully copied).
    // With it: none, or the one a pin taken on a fully copied log cannot hold back.
    expect(w.restarts() - before).toBeLessThanOrEqual(1);
  });

  it('holds restarts back also when it starts on a fully copied log', async () => {
    const w = open(undefined, true);
    await sleep(100);
    const before = w.restarts();
    for (let i = 0; i < 20; i++) {
      w.commit(1);
      await sleep(30);
    }
    // The first pin has read mark 0: it holds no restart back, but it keeps checkpoints from copying
    // (mark-0 readers read the database file), so the next tick finds frames and moves the pin to a
    // mark of its own. At most the first commit restarts the log, not every one.
    expect(w.restarts() - before).toBeLessThanOrEqual(2);
  });

  it('still lets the log start over once it passes restartBytes', async () => {
    const restartBytes = 256 * 1024;
    const w = open(restartBytes);
    const before = w.restarts();
    // ~40 KiB a commit, with pauses the checkpoints can catch up in; a pin never let go would
    // allow at most one restart (the one at the start) however long this writes.
    for (let i = 0; i < 300 && w.restarts() - before < 2; i++) {
      w.commit(32);
      await sleep(20);
    }
    expect(w.restarts() - before).toBeGreaterThanOrEqual(2);
  });

  it('keeps the log file while commits go on, and truncates it once they stop, after each burst (ADR 0060)', async () => {
    const restartBytes = 256 * 1024;
    // Idle after 500 ms: fifty times the gap between commits, so a loaded machine does not see a pause mid-burst.
    const w = open(restartBytes, false, 500);
    for (let burst = 0; burst < 2; burst++) {
      const sizes: number[] = [];
      const before = w.restarts();
      // ~40 KiB a commit every 10 ms for 1 s: past restartBytes, with restarts, and two idle windows long.
      for (let i = 0; i < 100; i++) {
        w.commit(32);
        sizes.push(w.walBytes());
        await sleep(10);
      }
      expect(sizes.at(-1)!).toBeGreaterThan(restartBytes);
      expect(w.restarts() - before).toBeGreaterThanOrEqual(2);
      // Never shorter while written to: a truncation in the writer's commit or by the thread mid-burst.
      for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeGreaterThanOrEqual(sizes[i - 1]!);
      let bytes = w.walBytes();
      for (let i = 0; i < 150 && bytes > 0; i++) {
        await sleep(20);
        bytes = w.walBytes();
      }
      expect(bytes).toBe(0);
    }
  });

  it("is what truncates the store's log: the store's own connection never does, in a commit", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentport-wal-'));
    const limit = async (checkpointThread: boolean) => {
      const store = await openSqliteStore({ file: path.join(dir, `${checkpointThread}.db`), checkpointThread });
      try {
        return (store as unknown as { raw: Sqlite.Database }).raw.pragma('journal_size_limit', { simple: true });
      } finally {
        await store.close();
      }
    };
    expect(await limit(true)).toBe(-1);
    // Without the thread SQLite's own checkpoints restart the log, and the limit gives the disk back.
    expect(await limit(false)).toBe(64 * 1024 * 1024);
  });
});
