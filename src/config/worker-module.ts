/**
 * Where a worker thread's compiled module is. Under the test runner the calling module is
 * TypeScript source in src/, which a worker thread cannot load; its built twin in dist/ is used
 * then (`npm test` builds first). Undefined when neither exists: the caller does the work on the
 * event loop instead.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `relative` to `importMetaUrl` (the caller's `import.meta.url`), e.g. './checkpoint-worker.js'. */
export function workerModuleUrl(relative: string, importMetaUrl: string): URL | undefined {
  const here = new URL(relative, importMetaUrl);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL(here.href.replace('/src/', '/dist/'));
  return built.href !== here.href && existsSync(fileURLToPath(built)) ? built : undefined;
}

/**
 * The Node options a worker thread starts with: the process's own (a worker inherits them) less
 * those that only apply to the main script's input. `node --input-type=module -e …` passed on to a
 * worker makes Node refuse to start it (ERR_INPUT_TYPE_NOT_ALLOWED), so a store opened from such
 * a script lost its commit and checkpoint threads.
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) kept.push(arg);
  }
  return kept;
}
