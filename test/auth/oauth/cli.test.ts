/**
 * `agentport users` and `agentport clients`, in-process against the SQLite database of a running
 * server: a user created by the CLI signs in on the login page; a machine client created by the
 * CLI gets a client-credentials token; list shows neither passwords nor secrets; set-scopes ends
 * the user's grants; delete works.
 */
import * as oauth from 'oauth4webapi';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/program.js';
import { fakeIO } from '../../cli/fake-io.js';
import type { TestServer } from '../../support/server.js';
import { browse, startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:47888/cb';

describe('agentport users / clients', () => {
  let s: TestServer;
  let storage: string;
  const cli = async (...args: string[]) => {
    const io = fakeIO(s.dataDir);
    await runCli(['node', 'agentport', ...args, '--storage', storage], io);
    return io;
  };
  beforeAll(async () => {
    s = await startOAuthServer({}, []);
    storage = `sqlite:${path.join(s.dataDir, 'agentport.db')}`;
  });
  afterAll(async () => s?.stop());

  it('creates a user whose printed password signs in, lists users without hashes, deletes', async () => {
    const created = await cli('users', 'create', 'carol', '--scope', 'mcp:tools');
    expect(created.exits).toEqual([]);
    const password = /^password {2}(\S+)$/m.exec(created.out)![1]!;

    const issuer = new URL(s.http);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, insecure));
    const verifier = oauth.generateRandomCodeVerifier();
    const q = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:tools a2a:publish',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const r = await browse(s, `${as.authorization_endpoint}?${q}`, { redirectPrefix: REDIRECT, user: { username: 'carol', password } });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState), REDIRECT, verifier, insecure),
    );
    // carol may grant only her own scopes: a2a:publish was asked for and left out
    expect(tokens.scope).toBe('mcp:tools');

    const listed = await cli('users', 'list');
    expect(listed.out).toMatch(/carol\s+mcp:tools/);
    expect(listed.out).not.toContain('scrypt');
    expect((await cli('users', 'create', 'carol')).exits).toEqual([2]);

    // Changing her scopes revokes the grant made with the old ones: its refresh token is refused.
    expect((await cli('users', 'set-scopes', 'carol', '--scope', 'a2a:discover')).exits).toEqual([]);
    expect((await cli('users', 'list')).out).toMatch(/carol\s+a2a:discover/);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await cli('users', 'set-scopes', 'nobody', '--scope', 'a2a:discover')).exits).toEqual([1]);
    expect((await cli('users', 'set-scopes', 'carol')).exits).toEqual([2]);
    expect((await cli('users', 'delete', 'carol')).exits).toEqual([]);
    expect((await cli('users', 'delete', 'carol')).exits).toEqual([1]);
  });

  it('creates a machine client whose secret gets a token, lists clients without secrets, deletes', async () => {
    const created = await cli('clients', 'create', '--name', 'etl', '--machine', '--scope', 'a2a:publish');
    expect(created.exits).toEqual([]);
    const clientId = /^client_id {6}(\S+)$/m.exec(created.out)![1]!;
    const secret = /^client_secret {2}(\S+)$/m.exec(created.out)![1]!;
    const issuer = new URL(s.http);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      { client_id: clientId },
      await oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, oauth.ClientSecretBasic(secret), { scope: 'a2a:publish' }, insecure),
    );
    expect(tokens.access_token).toBeTruthy();

    const listed = await cli('clients', 'list');
    expect(listed.out).toContain(clientId);
    expect(listed.out).not.toContain(secret);
    expect((await cli('clients', 'delete', clientId)).exits).toEqual([]);
    const refused = await oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, oauth.ClientSecretBasic(secret), { scope: 'a2a:publish' }, insecure);
    expect(refused.status).toBe(401);
  });

  it('--token-exchange adds the RFC 8693 grant, and is refused for a public client', async () => {
    const created = await cli('clients', 'create', '--name', 'report service', '--machine', '--token-exchange', '--scope', 'a2a:publish');
    expect(created.exits).toEqual([]);
    expect(created.out).toMatch(/^grants {9}client_credentials urn:ietf:params:oauth:grant-type:token-exchange$/m);
    const refused = await cli('clients', 'create', '--name', 'spa', '--public', '--token-exchange', '--redirect-uri', 'http://127.0.0.1/cb');
    expect(refused.exits).toEqual([2]);
    expect(refused.err).toContain('public client cannot be trusted with token exchange');
  });
});
