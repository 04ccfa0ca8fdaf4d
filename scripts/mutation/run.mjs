#!/usr/bin/env node
// `npm run mutate [group…]`: Stryker over each named module group (all when none), one at a time,
// so two cores are never asked for more than one run's processes. Reports: reports/mutation/.
import { spawnSync } from 'node:child_process';
import { GROUPS } from './groups.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((g) => !(g in GROUPS));
if (unknown.length) {
  console.error(`unknown group(s): ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of asked.length ? asked : Object.keys(GROUPS)) {
  console.log(`\n== mutation testing: ${name} ==`);
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], { stdio: 'inherit', env: { ...process.env, MUTATE_GROUP: name } });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
