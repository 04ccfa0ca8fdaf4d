/**
 * Client credentials for a machine client, and a Client ID Metadata Document client whose
 * document is served over HTTPS by a local server the Agentport under test trusts.
 */
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/auth/oauth/client-registry.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { startDocumentServer, type DocumentServer } from './https-fixture.js';
import { browse, mcpToolsList, startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://localhost:41111/cb';

describe('client credentials and Client ID Metadata Documents', () => {
  let s: TestServer;
  let docs: DocumentServer;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    docs = await startDocumentServer();
    s = await startOAuthServer({ auth: { oauth: { clientIdMetadataDocuments: { allowLoopbackHosts: true, trustedCaFile: docs.caFile } } } });
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  afterAll(async () => {
    await s?.stop();
    await docs?.close();
  });

  it('client credentials: a machine client gets a token whose subject is the client, and sends an A2A message with it', async () => {
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    const { client: created, clientSecret } = await createClient(store.oauth, { name: 'nightly job', kind: 'machine', scopes: ['a2a:publish', 'a2a:discover'] });
    await store.close();
    const client: oauth.Client = { client_id: created.clientId };
    const res = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret!), { scope: 'a2a:publish a2a:discover', resource: `${as.issuer}/a2a/echo` }, insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, res);
    const p = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    expect(p).toMatchObject({ sub: `client:${created.clientId}`, client_id: created.clientId, aud: `${as.issuer}/a2a/echo` });
    expect(p.scope.split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish']);
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('from a machine') }, { authorization: `Bearer ${tokens.access_token}` });
    expect(sent.status).toBe(200);

    // RFC 7662: the client may introspect its own token; then revoke it (RFC 7009) by jti.
    const info = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic(clientSecret!), tokens.access_token, insecure));
    expect(info).toMatchObject({ active: true, client_id: created.clientId, sub: `client:${created.clientId}` });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.ClientSecretBasic(clientSecret!), tokens.access_token, insecure));
    const after = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('again') }, { authorization: `Bearer ${tokens.access_token}` });
    expect(after.status).toBe(401);
  });

  it('client credentials: a wrong secret is invalid_client, and admin is not granted to a client registered without it', async () => {
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    const { client: created, clientSecret } = await createClient(store.oauth, { name: 'limited', kind: 'machine', scopes: ['a2a:discover'] });
    await store.close();
    const client: oauth.Client = { client_id: created.clientId };
    const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('not-the-secret'), { scope: 'a2a:discover' }, insecure);
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_client');
    const admin = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret!), { scope: 'admin' }, insecure);
    await expect(oauth.processClientCredentialsResponse(as, client, admin)).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it('CIMD: an HTTPS client_id URL is fetched, its name shown on consent, and its token works on /mcp', async () => {
    const clientId = `${docs.origin}/clients/inspector.json`;
    docs.serve(
      '/clients/inspector.json',
      JSON.stringify({
        client_id: clientId,
        client_name: 'Metadata Document Client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
      200,
      { 'cache-control': 'max-age=600' },
    );
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      resource: `${as.issuer}/mcp`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT });
    expect(r.stoppedAt).toBeUndefined();
    expect(r.pages.find((p) => p.includes('Allow'))).toContain('Metadata Document Client');
    const params = oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure));
    // No scope was asked for: the configured default scopes were granted.
    expect(tokens.scope?.split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish', 'mcp:tools']);
    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(200);
    // The document is cached (Cache-Control), not fetched per request.
    expect(docs.hits('/clients/inspector.json')).toBe(1);
  });

  it('CIMD: a metadata document client never gets admin, whatever its document says (issue 19, D2)', async () => {
    const doc = (name: string, extra: object) => {
      const clientId = `${docs.origin}/clients/${name}.json`;
      docs.serve(`/clients/${name}.json`, JSON.stringify({ client_id: clientId, client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra }), 200, { 'cache-control': 'max-age=600' });
      return clientId;
    };
    const authorize = async (clientId: string) => {
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'admin',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
      }).toString();
      return browse(s, url.href, { redirectPrefix: REDIRECT });
    };
    const asking = await authorize(doc('asks-admin', { scope: 'admin mcp:tools' }));
    expect(asking.pages).toEqual([]);
    expect(asking.callback?.searchParams.get('error')).toBe('invalid_scope');
    // A document claiming to be administrator-created is not a usable client at all.
    const claiming = await authorize(doc('claims-admin', { scope: 'admin', agentport_registered_by: 'administrator' }));
    expect(claiming.callback).toBeUndefined();
    expect(claiming.stoppedAt?.status).toBe(400);
  });

  it('CIMD: a metadata document asking for the token exchange grant is not a usable client (administrators trust exchangers)', async () => {
    const clientId = `${docs.origin}/clients/exchanger.json`;
    const grants = ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'];
    docs.serve('/clients/exchanger.json', JSON.stringify({ client_id: clientId, client_name: 'exchanger', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: grants }), 200, {
      'cache-control': 'max-age=600',
    });
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT });
    expect(r.pages).toEqual([]);
    expect(r.callback).toBeUndefined();
    expect(r.stoppedAt?.status).toBe(400);
  });
});
