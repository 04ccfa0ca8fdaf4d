/**
 * Two real servers for the connect flow (issue 27, ADR 0035): B, an OAuth server with the echo
 * agent and its own user bea; A, fronting B's MCP face as the agent `bee` with `auth: oauth`, a
 * vault key, Alice's API key and A's console users.
 */
import { randomBytes } from 'node:crypto';
import type { TestServer } from '../../support/server.js';
import { startOAuthServer } from '../oauth/support.js';

type LocalUser = { username: string; password: string };

/** B's user, who signs in at B to connect. */
export const BEA: LocalUser = { username: 'bea', password: 'bea has a long password here' };
export const ALICE: LocalUser = { username: 'alice', password: 'alice has a long password here' };

export async function startMcpOAuthPair(aliceKey: string, usersOfA: LocalUser[]): Promise<{ a: TestServer; b: TestServer }> {
  const b = await startOAuthServer({ agents: [{ id: 'echo', builtin: 'echo' }] }, [BEA]);
  const a = await startOAuthServer(
    {
      agents: [{ id: 'bee', mcp: { url: `${b.http}/mcp`, allowlist: ['127.0.0.1'], auth: { kind: 'oauth', connectWaitMs: 60_000 } } }],
      auth: { apiKeys: [{ key: aliceKey, subject: 'alice', scopes: ['a2a:publish'] }], vault: { keys: [{ id: 'k1', secret: randomBytes(32).toString('base64') }] } },
    },
    usersOfA,
  ).catch(async (err: unknown) => {
    await b.stop();
    throw err;
  });
  return { a, b };
}
