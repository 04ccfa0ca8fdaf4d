/**
 * Where a worker thread's compiled module is. Under the test runner the calling module is
 * TypeScript source in src/, which a worker thread cannot load; its built twin in dist/ is used
 * then (`npm test` builds first). Undefined when neither exists: the caller does the work on the
 * event loop instead.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/** `relative` to `importMetaUrl` (the caller's `import.meta.url`), e.g. './checkpoint-worker.js'. */
export function workerModuleUrl(relative: string, importMetaUrl: string): URL | undefined {
  const here = new URL(relative, importMetaUrl);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL(here.href.replace('/src/', '/dist/'));
  return built.href !== here.href && existsSync(fileURLToPath(built)) ? built : undefined;
}

/**
 * A worker thread on `url` with `workerData`. It inherits the process's Node options, except in a
 * process started with `--input-type` (`node --input-type=module -e …`): inherited, that option makes
 * Node refuse to start the worker (ERR_INPUT_TYPE_NOT_ALLOWED), so a store opened from such a script
 * lost its commit and checkpoint threads. Options passed explicitly are parsed again, and Node
 * refuses V8's own among them (`--max-semi-space-size`, say) where it keeps inherited ones, and
 * offers no list to tell them apart: so options are passed only when one must go, and none at all
 * when Node refuses what is left (the thread then runs without the process's preloads).
 */
export function startWorker(url: URL, workerData: unknown): Worker {
  const kept = withoutInputType(process.execArgv);
  if (kept.length === process.execArgv.length) return new Worker(url, { workerData });
  try {
    return new Worker(url, { workerData, execArgv: kept });
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    return new Worker(url, { workerData, execArgv: [] });
  }
}

/** `execArgv` less `--input-type=…` and `--input-type …`, the other options in order. */
export function withoutInputType(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) kept.push(arg);
  }
  return kept;
}
