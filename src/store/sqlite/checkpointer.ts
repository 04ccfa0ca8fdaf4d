/**
 * Runs SQLite WAL checkpoints on a worker thread (checkpoint-worker.ts). With SQLite's automatic
 * checkpoints, every ~1000 pages one commit on the event loop also copied the WAL into the
 * database and waited for its fsync: measured, that stalled the loop enough to cost ~10–15% of
 * throughput under load (docs/benchmarks.md).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * The compiled worker module. Under the test runner this module is TypeScript source, which a
 * worker thread cannot load; `npm test` builds first, so its built twin in dist/ is used.
 */
function workerUrl(): URL | undefined {
  const here = new URL('./checkpoint-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL(here.href.replace('/src/store/', '/dist/store/'));
  return existsSync(fileURLToPath(built)) ? built : undefined;
}

export class WalCheckpointer {
  private constructor(private readonly worker: Worker) {}

  /** Undefined when no worker module is available; the caller keeps automatic checkpoints then. */
  static start(file: string, opts: { intervalMs?: number; busyTimeoutMs?: number } = {}): WalCheckpointer | undefined {
    const url = workerUrl();
    if (!url) return undefined;
    const worker = new Worker(url, { workerData: { file, intervalMs: opts.intervalMs ?? 20, busyTimeoutMs: opts.busyTimeoutMs ?? 5000 } });
    worker.unref();
    worker.on('error', () => {});
    return new WalCheckpointer(worker);
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Unref'd so that it never keeps a process alive; but a stop waits for it, and with nothing
    // else pending the event loop would end before the exit arrives (close() never resolving).
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await exited;
  }
}
