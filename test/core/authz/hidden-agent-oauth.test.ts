/**
 * The hidden-agent rule at the authorization server (issue 19, D3): an RFC 8707 `resource` naming
 * a hidden agent's path is refused exactly like one naming an agent that does not exist, so a
 * token request cannot tell the two apart. Tokens for the server's base audience still reach the
 * hidden agent for callers who may see it.
 */
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/auth/oauth/client-registry.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { rpc } from '../../support/server.js';
import type { TestServer } from '../../support/server.js';
import { startOAuthServer } from '../../auth/oauth/support.js';

const insecure = { [oauth.allowInsecureRequests]: true };

let s: TestServer;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let secret: string;

beforeAll(async () => {
  s = await startOAuthServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'vault', builtin: 'echo', visibility: 'extended' },
    ],
  });
  const issuer = new URL(s.http);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
  const { client: created, clientSecret } = await createClient(store.oauth, { name: 'job', kind: 'machine', scopes: ['a2a:publish', 'a2a:discover'] });
  await store.close();
  client = { client_id: created.clientId };
  secret = clientSecret!;
}, 30_000);

afterAll(async () => s?.stop());

async function tokenAnswer(resource: string): Promise<{ status: number; body: unknown }> {
  const res = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret), { scope: 'a2a:discover a2a:publish', resource }, insecure);
  return { status: res.status, body: await res.json() };
}

describe('RFC 8707 resources of a hidden agent', () => {
  it.each(['', '/mcp'])('a2a/vault%s is refused exactly like the same path of an agent that does not exist', async (suffix) => {
    const hidden = await tokenAnswer(`${as.issuer}/a2a/vault${suffix}`);
    const unknown = await tokenAnswer(`${as.issuer}/a2a/ghost${suffix}`);
    expect(hidden.status).toBe(400);
    expect(hidden).toEqual(unknown);
  });

  it('a token for the server reaches the hidden agent for a client with a2a:discover', async () => {
    const res = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret), { scope: 'a2a:discover a2a:publish' }, insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, res);
    const r = await rpc(`${s.http}/a2a/vault`, 'GetExtendedAgentCard', {}, { authorization: `Bearer ${tokens.access_token}` });
    expect(r.status).toBe(200);
    expect(r.body.result.name).toBeTruthy();
  });
});
