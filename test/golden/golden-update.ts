/**
 * Re-records the golden fixtures' responses (`npm run golden:update`, vitest.golden-update.config.ts):
 * a separate step, never part of the suite, whose `git diff` is reviewed before it is committed.
 * Each step's `check` is kept as written; a fixture whose new response contradicts one of its
 * checks is not written, and the run fails naming it: a change to a field that matters is made by
 * editing the check by hand, not by re-recording.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import { failedChecks, fixtureFiles, Normalizer, readFixture, runStep, writeFixture, type GoldenResponse } from './golden-runner.js';
import { GOLDEN_API_KEY, GOLDEN_ROOT, GOLDEN_VERSIONS, startGoldenServer } from './golden-server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startGoldenServer();
});
afterAll(async () => {
  await s?.stop();
});

for (const version of GOLDEN_VERSIONS) {
  describe(`re-record golden ${version}`, () => {
    for (const [name, file] of fixtureFiles(path.join(GOLDEN_ROOT, version))) {
      it(name, async () => {
        const fixture = readFixture(file);
        const n = new Normalizer({ http: s.http, grpc: s.grpc });
        const recorded: GoldenResponse[] = [];
        const failed: string[] = [];
        for (const [i, step] of fixture.steps.entries()) {
          const actual = await runStep(step, n, { authorization: `Bearer ${GOLDEN_API_KEY}` });
          recorded.push(actual);
          failed.push(...failedChecks(step, actual).map((f) => `step ${i + 1}: ${f}`));
        }
        expect(failed, `${name} not re-recorded: its new responses contradict its checks (edit the check by hand if the change is meant)`).toEqual([]);
        for (const [i, step] of fixture.steps.entries()) step.response = recorded[i];
        writeFixture(file, fixture);
      });
    }
  });
}
