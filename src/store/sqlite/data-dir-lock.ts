/**
 * One server per data directory (issue 25 L1): an embedded database has one owner, and a second
 * server on it would mark the first one's running tasks FAILED as "cut off by a restart".
 *
 * The lock is an operating-system file lock, taken through SQLite on a small file of its own
 * (`agentport.lock`): SQLite holds POSIX advisory locks (LockFileEx on Windows), which the kernel
 * drops when the process ends however it ends. So a lock left by a dead process is no lock at all,
 * and taking it over needs no guess about pids or ages (docs/decisions/0026-data-dir-lock.md).
 * Who holds it is written beside it (`agentport.lock.json`) only to be named in the refusal.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { DataDirLockedError, type LockHolder } from './data-dir-locked-error.js';

export { DataDirLockedError, type LockHolder } from './data-dir-locked-error.js';

export const LOCK_FILE = 'agentport.lock';
export const HOLDER_FILE = 'agentport.lock.json';

export interface DataDirLock {
  /** releases the lock (idempotent); the lock file stays, see below */
  release(): void;
}

/**
 * Takes the lock on `dir` (which must exist) or throws DataDirLockedError at once (no waiting).
 * Other errors (permissions, a full disk) are thrown as they are.
 */
export function lockDataDir(dir: string, self: LockHolder = { pid: process.pid, startedAt: new Date().toISOString() }): DataDirLock {
  const lockFile = path.join(dir, LOCK_FILE);
  const holderFile = path.join(dir, HOLDER_FILE);
  // timeout 0: a held lock is refused at once, not waited for (better-sqlite3 waits 5 s by default).
  const db = new Sqlite(lockFile, { timeout: 0 });
  try {
    // EXCLUSIVE locking mode keeps the lock for the life of the connection; the open transaction takes it.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY' || (error as { code?: unknown }).code === 'SQLITE_LOCKED') {
      throw new DataDirLockedError(dir, readHolder(holderFile));
    }
    throw error;
  }
  writeFileSync(holderFile, `${JSON.stringify(self)}\n`);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // The holder note goes first, while the lock still guards it. The lock file itself is never
      // removed: a process that opened it just before would lock the removed file while a third
      // locks a new one at the same path, and both would run.
      rmSync(holderFile, { force: true });
      db.close();
    },
  };
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return typeof parsed.pid === 'number' && typeof parsed.startedAt === 'string' ? { pid: parsed.pid, startedAt: parsed.startedAt } : undefined;
  } catch {
    // Not written yet (the holder is between taking the lock and saying so), or unreadable.
    return undefined;
  }
}
