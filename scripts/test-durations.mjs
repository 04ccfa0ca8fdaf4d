#!/usr/bin/env node
// Writes test/durations.json (seconds per test file, longest first), the order
// test/support/longest-first.ts starts files in, from the output of vitest's default reporter
// (`npm test 2>&1 | tee /tmp/run.log`, or `npx vitest run … | tee …`): its line per file,
// ` ✓ |system| test/x.test.ts (12 tests) 3456ms`, counts the file's hooks (a server or an image
// built in beforeAll), which the JSON reporter's times leave out. Several logs are merged; a file
// in more than one keeps its longest time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const logs = process.argv.slice(2);
if (logs.length === 0) {
  console.error('usage: node scripts/test-durations.mjs <vitest output>…');
  process.exit(2);
}
const FILE_LINE = /^ [✓×❯↓] (?:\|[\w-]+\| )?(\S+\.test\.ts) .*?(\d+)ms$/;
const seconds = {};
for (const log of logs) {
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = FILE_LINE.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!m || !existsSync(path.join(root, m[1]))) continue; // not a file line, or a file since removed
    seconds[m[1]] = Math.max(seconds[m[1]] ?? 0, Math.round(Number(m[2]) / 100) / 10);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
