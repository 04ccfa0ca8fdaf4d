// Mutation testing (issue 30, docs/testing.md): one module group per run, chosen by MUTATE_GROUP;
// `npm run mutate` runs the groups one after the other. Incremental: a rerun after a small change
// tests only the mutants whose code or covering tests changed.
import { currentGroup } from './scripts/mutation/groups.mjs';

const group = currentGroup();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: group.mutate,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: `reports/mutation/${group.name}.incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${group.name}.html` },
  jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
  // The machine is shared (2 cores): two test processes at most.
  concurrency: 2,
  timeoutMS: 20_000,
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  // The sandbox needs sources, tests and their fixtures, not builds, docs or reports.
  ignorePatterns: ['dist', 'docs', 'bench', 'reports', 'coverage', '.agentport', 'console/dist', 'deploy'],
  cleanTempDir: 'always',
};
