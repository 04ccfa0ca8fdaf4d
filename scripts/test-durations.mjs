#!/usr/bin/env node
// Writes test/durations.json (seconds per test file, longest first) from vitest JSON reports
// (`vitest run --reporter=json --outputFile=…`), the order test/support/longest-first.ts starts
// files in. Several reports (e.g. the unit and the system project's) are merged; a file in more
// than one keeps its longest time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error('usage: node scripts/test-durations.mjs <vitest json report>…');
  process.exit(2);
}
/** the path under the repository of a report's absolute file name (the run may have been elsewhere) */
function inRepository(name) {
  const parts = name.split(/[\\/]/);
  for (let i = parts.lastIndexOf('test'); i >= 0; i = parts.lastIndexOf('test', i - 1)) {
    const relative = parts.slice(i).join('/');
    if (existsSync(path.join(root, relative))) return relative;
    if (i === 0) break;
  }
  return undefined;
}

const seconds = {};
for (const report of reports) {
  for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults) {
    const name = inRepository(file.name);
    if (!name) continue; // a file since removed
    const s = Math.round((file.endTime - file.startTime) / 100) / 10;
    seconds[name] = Math.max(seconds[name] ?? 0, s);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
