/**
 * For the tests that run the compiled server (dist/: the CLI as a child process, worker threads,
 * replicas): dist/ is rebuilt when a source is newer than the newest compiled file, so such a test
 * never passes or fails on yesterday's code. `npm test` builds first; a bare `npx vitest run` after
 * an edit gets the build here. Test processes run in parallel, so the build runs under a lock
 * (a directory, created atomically) and each waiter checks again once it holds it.
 *
 * A test that needs a file of the build fails naming it when it is still missing (`requireBuilt`);
 * it is never skipped silently.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LOCK = path.join(ROOT, 'dist.build-lock');
const LOCK_STALE_MS = 300_000;

function newestMtime(dir: string, pattern: RegExp): number {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !pattern.test(entry.name)) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Why dist/ must be built again, or undefined when it is up to date. */
export function staleBuild(): string | undefined {
  const built = newestMtime(path.join(ROOT, 'dist'), /\.js$/);
  if (built === 0) return 'dist/ is missing';
  const sources = Math.max(newestMtime(path.join(ROOT, 'src'), /\.(ts|mts|json)$/), statSync(path.join(ROOT, 'tsconfig.build.json')).mtimeMs, statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs);
  return sources > built ? 'a source under src/ is newer than dist/' : undefined;
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function withLock(fn: () => void): void {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // a lock left by a killed run
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) rmdirSync(LOCK);
      pause(200);
    }
  }
  try {
    fn();
  } finally {
    rmdirSync(LOCK);
  }
}

/** Compiles src/ to dist/ (tsc, as `npm run build` does for the server) when dist/ is missing or older than src/. */
export function ensureFreshBuild(): void {
  if (!staleBuild()) return;
  withLock(() => {
    if (!staleBuild()) return; // another test process built it while this one waited
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe', timeout: 300_000 });
  });
}

/** Fails, naming the file, when a compiled file a test runs is missing after the build. */
export function requireBuilt(...files: string[]): void {
  ensureFreshBuild();
  for (const f of files) {
    if (!existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing after building dist/ (npx tsc -p tsconfig.build.json): this test runs the compiled code`);
  }
}
