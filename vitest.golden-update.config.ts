// `npm run golden:update`: re-records the golden fixtures (test/golden/golden-update.ts). Not part
// of `npm test`; review `git diff test/fixtures/golden` before committing what it wrote.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/golden/golden-update.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
