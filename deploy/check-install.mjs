#!/usr/bin/env node
// Run by deploy/Dockerfile right after `npm ci` and after `npm prune`: exit 1, naming them, unless
// every package package-lock.json lists is installed at its locked version. npm has been seen to
// stop half-way and still exit 0 (a TLS failure ending in "npm error Exit handler never called!");
// without this check the build failed later, at `tsc: not found`, far from the cause.
//   node check-install.mjs [--omit=dev] [DIR]     DIR: where package-lock.json is (default .)
// Optional packages (other platforms' builds) may be absent; with --omit=dev, dev packages too.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const omitDev = args.includes('--omit=dev');
const dir = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.');

const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
const problems = [];
let checked = 0;
for (const [where, entry] of Object.entries(lock.packages ?? {})) {
  if (!where.startsWith('node_modules/') && !where.includes('/node_modules/')) continue; // the project itself, workspaces
  if (entry.link) continue;
  const mayBeAbsent = entry.optional || entry.devOptional || (omitDev && entry.dev);
  let installed;
  try {
    installed = JSON.parse(readFileSync(path.join(dir, where, 'package.json'), 'utf8')).version;
  } catch {
    if (!mayBeAbsent) problems.push(`${where}: not installed`);
    continue;
  }
  checked++;
  if (entry.version && installed !== entry.version) problems.push(`${where}: ${installed} installed, ${entry.version} locked`);
}
if (lock.lockfileVersion < 2 || checked === 0) problems.push(`package-lock.json (lockfileVersion ${lock.lockfileVersion}) lists no installed package`);

if (problems.length > 0) {
  process.stderr.write(`check-install: ${problems.length} of the locked packages are missing or wrong; npm did not finish:\n`);
  for (const p of problems.slice(0, 20)) process.stderr.write(`  ${p}\n`);
  if (problems.length > 20) process.stderr.write(`  … and ${problems.length - 20} more\n`);
  process.exit(1);
}
process.stdout.write(`check-install: ${checked} locked packages installed${omitDev ? ' (dev packages not required)' : ''}\n`);
