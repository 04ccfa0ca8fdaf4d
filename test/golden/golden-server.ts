/**
 * The one server the golden fixtures are recorded against and replayed on (golden.test.ts replays,
 * golden-update.ts re-records): the same agents and settings both ways.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../support/server.js';

export const GOLDEN_ROOT = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
export const GOLDEN_VERSIONS = ['v1.0', 'v0.3', 'v0.1'] as const;
export const GOLDEN_API_KEY = 'golden-key-0123456789abcdef';
const SCRIPTED = fileURLToPath(new URL('../fixtures/agents/scripted-text-agent.mjs', import.meta.url));

export function startGoldenServer(): Promise<TestServer> {
  return startTestServer({
    agents: [
      { id: 'echo', builtin: 'echo', skills: { echo: { visibility: 'extended' } } },
      { id: 'conformance', builtin: 'conformance' },
      { id: 'scripted', module: path.resolve(SCRIPTED) },
      { id: 'plain', builtin: 'echo', streaming: false, pushNotifications: false, extendedCard: false },
    ],
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'none', apiKeys: [{ key: GOLDEN_API_KEY, subject: 'golden' }] },
  });
}
