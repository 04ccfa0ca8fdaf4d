/**
 * The whole authorization code journey with a real OAuth client library (oauth4webapi) against a
 * running server: discovery → dynamic registration → authorize (login + consent over HTTP) →
 * code + PKCE → token → /mcp tools/list and A2A SendMessage → refresh (rotation) → revoke → 401.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { browse, mcpToolsList, startOAuthServer } from './support.js';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

describe('OAuth authorization code flow (oauth4webapi, DCR)', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let tokens: oauth.TokenEndpointResponse;

  beforeAll(async () => {
    s = await startOAuthServer();
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  afterAll(async () => s?.stop());

  it('publishes RFC 8414 metadata: PKCE S256 only, RFC 9207 iss, resource indicators, CIMD', () => {
    expect(as.issuer).toBe(new URL(s.http).origin);
    expect(as.authorization_endpoint).toBe(`${as.issuer}/oauth/authorize`);
    expect(as.token_endpoint).toBe(`${as.issuer}/oauth/token`);
    expect(as.registration_endpoint).toBe(`${as.issuer}/oauth/register`);
    expect(as.revocation_endpoint).toBe(`${as.issuer}/oauth/revoke`);
    expect(as.introspection_endpoint).toBe(`${as.issuer}/oauth/introspect`);
    expect(as.jwks_uri).toBe(`${as.issuer}/.well-known/jwks.json`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect((as as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['a2a:discover', 'a2a:publish', 'mcp:tools']));
  });

  it('registers a public client dynamically (RFC 7591)', async () => {
    const res = await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Test MCP client', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
      insecure,
    );
    client = await oauth.processDynamicClientRegistrationResponse(res);
    expect(client.client_id).toMatch(/\S{10,}/);
    expect(client.client_secret).toBeUndefined();
  });

  it('signs in, shows the client and scopes on consent, and returns a code with iss (RFC 9207)', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:tools a2a:discover a2a:publish',
      resource: `${as.issuer}/mcp`,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT });
    expect(r.stoppedAt).toBeUndefined();
    const consent = r.pages.find((p) => p.includes('Allow'))!;
    expect(consent).toContain('Test MCP client');
    expect(consent).toContain('mcp:tools');
    expect(consent).not.toMatch(/<script/i);
    expect(r.callback!.searchParams.get('iss')).toBe(as.issuer);

    const params = oauth.validateAuthResponse(as, client, r.callback!, state);
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
      ...insecure,
      additionalParameters: { resource: `${as.issuer}/mcp` },
    });
    tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.scope?.split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish', 'mcp:tools']);
  });

  it('issues an RFC 9068 JWT bound to the requested resource, signed with the JWKS key', async () => {
    const [h, p] = tokens.access_token
      .split('.')
      .slice(0, 2)
      .map((x) => JSON.parse(Buffer.from(x!, 'base64url').toString()));
    expect(h.typ).toBe('at+jwt');
    expect(h.alg).toBe('ES256');
    const jwks = (await (await fetch(`${s.http}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toContain(h.kid);
    expect(p).toMatchObject({ iss: as.issuer, sub: 'alice', aud: `${as.issuer}/mcp`, client_id: client.client_id, scope: expect.stringContaining('mcp:tools') });
    expect(typeof p.jti).toBe('string');
    expect(p.exp - p.iat).toBe(3600);
  });

  it('calls /mcp tools/list with the token', async () => {
    const r = await mcpToolsList(s, tokens.access_token);
    expect(r.status).toBe(200);
    expect(r.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo_echo');
  });

  it('refuses the /mcp token at an A2A endpoint (another resource), and a token for the A2A resource works there', async () => {
    const wrong = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { authorization: `Bearer ${tokens.access_token}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');

    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'a2a:discover a2a:publish',
      resource: `${as.issuer}/a2a/echo`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT });
    const params = oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState);
    const a2aTokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure));
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hello') }, { authorization: `Bearer ${a2aTokens.access_token}` });
    expect(sent.status).toBe(200);
    // the echo agent answers with a COMPLETED task echoing the text, owned by the signed-in user
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.body.result.task.artifacts[0].parts).toEqual([{ text: 'hello' }]);
  });

  it('rotates the refresh token; the new access token works', async () => {
    const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    const next = await oauth.processRefreshTokenResponse(as, client, res);
    expect(next.refresh_token).toBeTruthy();
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    const p = JSON.parse(Buffer.from(next.access_token.split('.')[1]!, 'base64url').toString());
    expect(p.aud).toBe(`${as.issuer}/mcp`);
    expect((await mcpToolsList(s, next.access_token)).status).toBe(200);
    tokens = next;
  });

  it('revokes (RFC 7009): the access token is refused afterwards, and so is its refresh token', async () => {
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure));
    const after = await mcpToolsList(s, tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
