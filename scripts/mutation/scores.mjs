#!/usr/bin/env node
// Prints the score of each mutated module from reports/mutation/<group>.json as markdown rows
// for docs/testing.md, then every survivor (and mutant without coverage) with its place.
import { existsSync, readFileSync } from 'node:fs';
import { GROUPS } from './groups.mjs';

const survivors = [];
for (const group of Object.keys(GROUPS)) {
  const file = `reports/mutation/${group}.json`;
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const [path, { mutants }] of Object.entries(report.files)) {
    const n = (s) => mutants.filter((m) => m.status === s).length;
    const killed = n('Killed') + n('Timeout');
    const survived = n('Survived');
    const score = killed + survived === 0 ? 100 : (100 * killed) / (killed + survived);
    console.log(`| ${group} | ${path.replace(/^.*?src\//, 'src/')} | ${score.toFixed(1)}% | ${killed} / ${survived} / ${n('NoCoverage')} | |`);
    for (const m of mutants) {
      if (m.status === 'Survived' || m.status === 'NoCoverage')
        survivors.push(`${path.replace(/^.*?src\//, 'src/')}:${m.location.start.line} ${m.status} ${m.mutatorName} → ${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80)}`);
    }
  }
}
console.log(`\n${survivors.join('\n')}`);
