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
