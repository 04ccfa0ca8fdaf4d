/**
 * Golden fixtures for every operation of every A2A version Agentport serves over HTTP (v1.0
 * JSON-RPC and HTTP+JSON, v0.3 JSON-RPC and HTTP+JSON, v0.1 JSON-RPC), errors included, replayed
 * against one real server. Each step's `check` (the fields that matter, reviewed by hand) is
 * asserted first, then the whole recorded response. See golden-runner.ts for the normalisation
 * rules. The suite never rewrites a fixture: re-recording is `npm run golden:update`, a separate
 * step whose diff is reviewed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import { failedChecks, fixtureFiles, Normalizer, readFixture, runStep } from './golden-runner.js';
import { GOLDEN_API_KEY, GOLDEN_ROOT, GOLDEN_VERSIONS, startGoldenServer } from './golden-server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startGoldenServer();
});
afterAll(async () => {
  await s?.stop();
});

it('is not asked to re-record: GOLDEN_UPDATE is not read by the suite (npm run golden:update is)', () => {
  expect(process.env.GOLDEN_UPDATE, 'GOLDEN_UPDATE is set, but the suite never rewrites fixtures: run `npm run golden:update` and review the diff').toBeUndefined();
});

for (const version of GOLDEN_VERSIONS) {
  describe(`golden ${version}`, () => {
    for (const [name, file] of fixtureFiles(path.join(GOLDEN_ROOT, version))) {
      const fixture = readFixture(file);
      it(`${name}: ${fixture.description}`, async () => {
        for (const [i, step] of fixture.steps.entries()) {
          expect(Object.keys(step.check ?? {}), `step ${i + 1} of ${name} names the fields that matter in its check`).toContain('status');
        }
        expect(
          fixture.steps.some((step) => Object.keys(step.check ?? {}).some((p) => p !== 'status' && p !== 'contentType')),
          `${name} checks a field beyond the status`,
        ).toBe(true);
        const n = new Normalizer({ http: s.http, grpc: s.grpc });
        for (const [i, step] of fixture.steps.entries()) {
          const actual = await runStep(step, n, { authorization: `Bearer ${GOLDEN_API_KEY}` });
          expect(failedChecks(step, actual), `checks of step ${i + 1} of ${name}`).toEqual([]);
          expect(actual, `step ${i + 1} of ${name}`).toEqual(step.response);
        }
      });
    }
  });
}
