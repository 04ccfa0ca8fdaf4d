/**
 * Golden fixtures for every operation of every A2A version Agentport serves over HTTP (v1.0
 * JSON-RPC and HTTP+JSON, v0.3 JSON-RPC and HTTP+JSON, v0.1 JSON-RPC), errors included, replayed
 * against one real server. See golden-runner.ts for the normalisation rules.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { fixtureFiles, Normalizer, readFixture, runStep, writeFixture } from './golden-runner.js';

const ROOT = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
const SCRIPTED = fileURLToPath(new URL('../fixtures/agents/scripted-text-agent.mjs', import.meta.url));
const UPDATE = process.env.GOLDEN_UPDATE === '1';
export const GOLDEN_API_KEY = 'golden-key-0123456789abcdef';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    agents: [
      { id: 'echo', builtin: 'echo', skills: { echo: { visibility: 'extended' } } },
      { id: 'conformance', builtin: 'conformance' },
      { id: 'scripted', module: path.resolve(SCRIPTED) },
      { id: 'plain', builtin: 'echo', streaming: false, pushNotifications: false, extendedCard: false },
    ],
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'none', apiKeys: [{ key: GOLDEN_API_KEY, subject: 'golden' }] },
  });
});
afterAll(async () => {
  await s?.stop();
});

for (const version of ['v1.0', 'v0.3', 'v0.1']) {
  describe(`golden ${version}`, () => {
    for (const [name, file] of fixtureFiles(path.join(ROOT, version))) {
      const fixture = readFixture(file);
      it(`${name}: ${fixture.description}`, async () => {
        const n = new Normalizer({ http: s.http, grpc: s.grpc });
        for (const [i, step] of fixture.steps.entries()) {
          const actual = await runStep(step, n, { authorization: `Bearer ${GOLDEN_API_KEY}` });
          if (UPDATE) step.response = actual;
          else expect(actual, `step ${i + 1} of ${name}`).toEqual(step.response);
        }
        if (UPDATE) writeFixture(file, fixture);
      });
    }
  });
}
