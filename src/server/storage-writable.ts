/**
 * Whether a directory accepts new data right now: a small file is written, synced and removed.
 * A full disk, a file system remounted read-only or a permission taken away all show here, while
 * a store's ping (a read) still succeeds; /readyz reports it and start refuses such a data dir.
 */
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/** One file-system block: a write of this size needs a free block, so a full disk fails it. */
const PROBE = Buffer.alloc(4096, 0x61);

let probes = 0;

/** Resolves if `dir` took a 4 KiB write and fsync; else rejects with the errno error (its path named). */
export async function probeWritable(dir: string): Promise<void> {
  // Own name per probe: concurrent /readyz requests never share (and unlink) one file.
  const file = path.join(dir, `.agentport-write-probe-${process.pid}-${++probes}`);
  const handle = await open(file, 'w');
  try {
    await handle.write(PROBE, 0, PROBE.length, 0);
    await handle.sync();
  } finally {
    await handle.close().catch(() => {});
    await unlink(file).catch(() => {});
  }
}

/**
 * Creates `dir` if needed and probes it. Rejects with the errno error of the directory that
 * refused: recursive mkdir reports a read-only or forbidden parent as ENOENT, so the nearest
 * existing ancestor is probed to name the real cause.
 */
export async function ensureWritableDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    let parent = path.dirname(dir);
    while (parent !== path.dirname(parent) && !(await stat(parent).catch(() => undefined))) parent = path.dirname(parent);
    await probeWritable(parent).catch((refused: NodeJS.ErrnoException) => {
      throw Object.assign(refused, { path: parent });
    });
    throw Object.assign(error as NodeJS.ErrnoException, { path: dir });
  }
  await probeWritable(dir).catch((error: NodeJS.ErrnoException) => {
    throw Object.assign(error, { path: dir });
  });
}

const REASONS: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'directory missing',
  EIO: 'I/O error',
};

/** What /readyz says about a failed probe: the reason, never the path (the endpoint is public). */
export function notWritableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return `not writable (${(code && REASONS[code]) ?? code ?? 'write failed'})`;
}
