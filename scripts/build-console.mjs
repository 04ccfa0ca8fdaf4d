#!/usr/bin/env node
// `npm run build:console`: the console's `vite build` into dist/console, kept under
// .cache/console-build/<hash of its inputs> and copied from there while the inputs stay the same
// (issue 26). `npm test` builds before every run, and on a clean clone `npm install` has built
// already (`prepare`): the same sources bundled again cost ~8 s of CPU (12 s wall at load 10) for
// the same bytes. The inputs are every file under console/ (sources, index.html, vite.config.ts)
// and package-lock.json (the versions of Vite, Preact, Vega and the rest it bundles).
// AGENTPORT_CONSOLE_CACHE=0 builds without reading or writing the cache.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/console');
const cacheRoot = path.join(root, '.cache/console-build');
/** Entries kept: the current one and a few a branch switch may come back to. */
const KEEP = 4;

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) =>
      path
        .relative(root, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .sort();
}

function inputsHash() {
  const hash = createHash('sha256');
  // This script is an input too: a change to what it copies must not reuse an old entry.
  for (const file of [...filesUnder(path.join(root, 'console')), 'package-lock.json', 'scripts/build-console.mjs']) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function viteBuild() {
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', 'console/vite.config.ts'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (process.env.AGENTPORT_CONSOLE_CACHE === '0') {
  viteBuild();
  process.exit(0);
}

const key = inputsHash();
const entry = path.join(cacheRoot, key);
if (existsSync(path.join(entry, 'index.html'))) {
  rmSync(out, { recursive: true, force: true });
  cpSync(entry, out, { recursive: true });
  const now = new Date();
  utimesSync(entry, now, now); // the entries kept are the ones last used
  console.log(`console: unchanged sources, the build of ${key} copied from .cache/console-build`);
  process.exit(0);
}

viteBuild();
// Written beside, then renamed: a run stopped halfway, or two at once, never leaves a partial entry.
mkdirSync(cacheRoot, { recursive: true });
const partial = `${entry}.partial-${process.pid}`;
cpSync(out, partial, { recursive: true });
try {
  renameSync(partial, entry);
} catch {
  rmSync(partial, { recursive: true, force: true }); // another build of the same inputs got there first
}
const entries = readdirSync(cacheRoot)
  .filter((name) => !name.includes('.partial-'))
  .map((name) => ({ name, at: statSync(path.join(cacheRoot, name)).mtimeMs }))
  .sort((a, b) => b.at - a.at);
for (const old of entries.slice(KEEP)) rmSync(path.join(cacheRoot, old.name), { recursive: true, force: true });
