#!/usr/bin/env node
// Writes test/durations.json (seconds per test file, longest first), the order
// test/support/longest-first.ts starts files in, from the output of vitest's default reporter
// (`npm test 2>&1 | tee /tmp/run.log`, or `npx vitest run … | tee …`): its line per file,
// ` ✓ |system| test/x.test.ts (12 tests) 3456ms`, counts the file's hooks (a server or an image
// built in beforeAll), which the JSON reporter's times leave out. A JSON report (`--reporter=json
// --outputFile=…`, a file ending in .json) is read too, for a run made for its test counts: a file's
// first test start to its last test end. Several logs are merged; a file in more than one keeps
// its longest time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const logs = process.argv.slice(2);
if (logs.length === 0) {
  console.error('usage: node scripts/test-durations.mjs <vitest output or JSON report>…');
  process.exit(2);
}
const FILE_LINE = /^ [✓×❯↓] (?:\|[\w-]+\| )?(\S+\.test\.ts) .*?(\d+)ms$/;
const seconds = {};
const keep = (file, ms) => {
  if (!existsSync(path.join(root, file))) return; // a file since removed
  seconds[file] = Math.max(seconds[file] ?? 0, Math.round(ms / 100) / 10);
};
for (const log of logs) {
  const text = readFileSync(log, 'utf8');
  if (log.endsWith('.json')) {
    for (const r of JSON.parse(text).testResults) keep(path.relative(root, r.name).split(path.sep).join('/'), r.endTime - r.startTime);
    continue;
  }
  for (const line of text.split('\n')) {
    const m = FILE_LINE.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
    if (m) keep(m[1], Number(m[2]));
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
