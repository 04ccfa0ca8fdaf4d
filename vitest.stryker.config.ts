// The vitest configuration Stryker runs (stryker.config.mjs): only the unit-level test files of
// the module group being mutated, not the whole suite.
import { defineConfig } from 'vitest/config';
import { currentGroup } from './scripts/mutation/groups.mjs';

export default defineConfig({
  test: {
    include: currentGroup().tests,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
