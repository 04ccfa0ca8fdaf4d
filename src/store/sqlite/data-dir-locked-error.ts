/**
 * The refusal of a data directory another live server holds (data-dir-lock.ts). Apart from the
 * lock, so that naming it loads neither SQLite nor the store: every CLI command's start-up
 * failure message checks for it (issue 26, suite time).
 */

/** What the holder wrote about itself. */
export interface LockHolder {
  pid: number;
  /** ISO 8601 */
  startedAt: string;
}

/** The directory is held by another live process; `holder` is absent if it has not said who yet. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`the data directory ${dir} is in use by ${holder ? `process ${holder.pid} (started ${holder.startedAt})` : 'another process'}`);
  }
}
