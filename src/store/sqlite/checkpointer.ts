/**
 * Runs SQLite WAL checkpoints on a worker thread (checkpoint-worker.ts). With SQLite's automatic
 * checkpoints, every ~1000 pages one commit on the event loop also copied the WAL into the
 * database and waited for its fsync: measured, that stalled the loop enough to cost ~10–15% of
 * throughput under load (docs/benchmarks.md). The thread also keeps the log from starting over
 * more than once per `restartBytes` (see checkpoint-worker.ts): each restart syncs the new log
 * header on the event loop.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker, workerModuleUrl } from '../../config/worker-module.js';

/**
 * How long the WAL grows before the checkpoints let it start over. Under load they rarely catch
 * up with the writer before the 256 MiB safety net (checkpoint-worker.ts), so the file grows to
 * that much while writes go on; it is truncated once they stop (ADR 0060).
 */
export const DEFAULT_RESTART_BYTES = 32 * 1024 * 1024;

/**
 * How long no commit writes to the log before the thread truncates it (the writer never does):
 * long enough that bursty traffic does not regrow the file, allocating and zeroing pages on the
 * event loop, after every pause.
 */
export const DEFAULT_IDLE_TRUNCATE_MS = 5_000;

export class WalCheckpointer {
  /** Settles when the thread ends, however it ends (closed, or crashed on a database it cannot open). */
  readonly #exited: Promise<void>;
  /** stop() has asked the thread to end: its exit is expected */
  #stopping = false;
  /** why the thread ended when nobody stopped it */
  #stopped: Error | undefined;
  #onStopped: ((err: Error) => void) | undefined;

  private constructor(private readonly worker: Worker) {
    this.#exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // An uncaught exception emits 'error' and then 'exit'; the first names the cause.
    worker.on('error', (err) => this.#died(`an uncaught error: ${err.message}`, err));
    worker.on('exit', (code) => this.#died(`exit code ${code}`));
  }

  /** Undefined when no worker module is available; the caller keeps automatic checkpoints then. */
  static start(file: string, opts: { intervalMs?: number; busyTimeoutMs?: number; restartBytes?: number; idleTruncateMs?: number } = {}): WalCheckpointer | undefined {
    const url = workerModuleUrl('./checkpoint-worker.js', import.meta.url);
    if (!url) return undefined;
    const workerData = {
      file,
      intervalMs: opts.intervalMs ?? 20,
      busyTimeoutMs: opts.busyTimeoutMs ?? 5000,
      restartBytes: opts.restartBytes ?? DEFAULT_RESTART_BYTES,
      idleTruncateMs: opts.idleTruncateMs ?? DEFAULT_IDLE_TRUNCATE_MS,
    };
    const worker = startWorker(url, workerData);
    worker.unref();
    return new WalCheckpointer(worker);
  }

  /**
   * `listener` is told once if the thread ends without stop(): nothing checkpoints the log then,
   * so the store turns SQLite's automatic checkpoints back on (ADR 0062's amendment).
   */
  onStopped(listener: (err: Error) => void): void {
    this.#onStopped = listener;
    // It may have ended before anyone listened (a database it could not open).
    if (this.#stopped) listener(this.#stopped);
  }

  /** Test seam (test/store/sqlite-thread-death.test.ts), never called by the server: ends the thread where it is. */
  killForTests(): void {
    void this.worker.terminate();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    // The thread is unref'd so that it never keeps a process alive; but while it is stopping,
    // its exit is the only thing stop() waits on. Without a ref, a process whose listeners are
    // already closed (a start that failed) has an empty event loop: Node ends it with status 13
    // and nothing printed, before the exit event can settle this promise.
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await this.#exited;
  }

  #died(cause: string, err?: Error): void {
    if (this.#stopping || this.#stopped) return;
    this.#stopped = new Error(`the sqlite checkpoint thread stopped (${cause}): SQLite's automatic checkpoints are back on`, { cause: err });
    this.#onStopped?.(this.#stopped);
  }
}
