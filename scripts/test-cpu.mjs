#!/usr/bin/env node
// Prints the per-file CPU of a test run written by test/support/cpu-per-file.ts
// (`AGENTPORT_CPU_PER_FILE=/tmp/cpu.jsonl npm test`, or any `vitest run` with it set): the files
// sorted by CPU (own + reaped children, seconds), then by waiting (wall − CPU), with each
// project's totals. `--top N` (default 30) bounds each table, `--markdown` prints Markdown tables.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const markdown = args.includes('--markdown');
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
const inputs = args.filter((a, i) => !a.startsWith('--') && !(topAt >= 0 && i === topAt + 1));
if (inputs.length === 0) {
  console.error('usage: node scripts/test-cpu.mjs [--top N] [--markdown] <cpu-per-file.jsonl>…');
  process.exit(2);
}

const rows = inputs.flatMap((f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l)),
);

const fixed = (n) => n.toFixed(1);
const columns = ['file', 'project', 'tests', 'cpu s', 'own s', 'children s', 'wall s', 'waiting s'];
const cells = (r) => [r.file, r.project, String(r.tests), fixed(r.cpu), fixed(r.self), fixed(r.children), fixed(r.wall), fixed(r.waiting)];

function table(title, sorted) {
  console.log(`\n${title}\n`);
  const body = sorted.slice(0, top).map(cells);
  if (markdown) {
    console.log(`| # | ${columns.join(' | ')} |`);
    console.log(`|---|${columns.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`);
    body.forEach((c, i) => console.log(`| ${i + 1} | ${c.join(' | ')} |`));
    return;
  }
  const widths = columns.map((h, i) => Math.max(h.length, ...body.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i < 2 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  console.log(line(columns));
  for (const c of body) console.log(line(c));
}

const sum = (rs, k) => rs.reduce((n, r) => n + r[k], 0);
console.log('project totals (files, tests, CPU s, own s, children s, file wall s, waiting s):');
for (const project of [...new Set(rows.map((r) => r.project))]) {
  const rs = rows.filter((r) => r.project === project);
  const t = ['cpu', 'self', 'children', 'wall', 'waiting'].map((k) => fixed(sum(rs, k)));
  console.log(`  ${project || '(none)'}: ${rs.length} files, ${sum(rs, 'tests')} tests, ${t.join(', ')}`);
}
table(
  `By CPU (top ${top})`,
  [...rows].sort((a, b) => b.cpu - a.cpu),
);
table(
  `By waiting, wall − CPU (top ${top})`,
  [...rows].sort((a, b) => b.waiting - a.waiting),
);
