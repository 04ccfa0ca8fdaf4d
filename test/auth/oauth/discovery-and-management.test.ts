/**
 * Where clients look for metadata (RFC 8414, OIDC discovery and their path-inserted variants,
 * RFC 9728 per resource), the routes of the service Agentport replaces, the admin API for users
 * and clients, and state surviving a restart (a refresh token issued before it works after it).
 */
import { createServer } from 'node:net';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { browse, mcpToolsList, startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const ADMIN_KEY = 'admin-key-for-the-management-api-tests';
const REDIRECT = 'http://127.0.0.1:47555/cb';

describe('discovery documents, compatibility routes and management API', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startOAuthServer({
      auth: {
        apiKeys: [
          { key: ADMIN_KEY, subject: 'ops', scopes: ['admin'] },
          { key: 'reader-key-0123456789', subject: 'r', scopes: ['a2a:discover'] },
        ],
      },
    });
  });
  afterAll(async () => s?.stop());

  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/openid_configuration',
    '/.well-known/oauth-authorization-server/mcp',
    '/.well-known/openid-configuration/mcp',
    '/mcp/.well-known/openid-configuration',
    '/mcp/oauth/metadata',
  ])('serves the authorization server metadata at %s', async (p) => {
    const res = await fetch(`${s.http}${p}`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(new URL(s.http).origin);
    expect(doc.token_endpoint).toBe(`${new URL(s.http).origin}/oauth/token`);
  });

  it.each([
    ['/.well-known/oauth-protected-resource', '', ['a2a:discover', 'a2a:publish', 'mcp:tools', 'usage:read', 'admin']],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp', ['mcp:tools']],
    ['/.well-known/oauth-protected-resource/a2a/echo', '/a2a/echo', ['a2a:discover', 'a2a:publish']],
    ['/.well-known/oauth-protected-resource/a2a/echo/mcp', '/a2a/echo/mcp', ['mcp:tools']],
    ['/mcp/.well-known/oauth-protected-resource', '/mcp', ['mcp:tools']],
    ['/.well-known/oauth-protected-resource/api/v1', '/api/v1', ['admin', 'usage:read']],
  ])('serves RFC 9728 metadata at %s', async (p, resourcePath, scopes) => {
    const res = await fetch(`${s.http}${p}`, { headers: { origin: 'http://localhost:6274' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource: `${s.http}${resourcePath}`, authorization_servers: [new URL(s.http).origin], scopes_supported: scopes, bearer_methods_supported: ['header'] });
    expect(typeof doc.resource_name).toBe('string');
  });

  it('answers 404 for the metadata of a resource that does not exist', async () => {
    for (const p of ['/.well-known/oauth-protected-resource/a2a/nope', '/.well-known/oauth-protected-resource/elsewhere']) {
      expect((await fetch(`${s.http}${p}`)).status).toBe(404);
    }
  });

  it('registers, authorizes and exchanges through the /mcp/oauth/* compatibility routes', async () => {
    const reg = await fetch(`${s.http}/mcp/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'legacy client' }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as oauth.Client;
    const verifier = oauth.generateRandomCodeVerifier();
    const q = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${s.http}/mcp`,
    });
    const r = await browse(s, `${s.http}/mcp/oauth/authorize?${q}`, { redirectPrefix: REDIRECT });
    const code = r.callback!.searchParams.get('code')!;
    const tok = await fetch(`${s.http}/mcp/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: client.client_id }),
    });
    expect(tok.status).toBe(200);
    const { access_token } = (await tok.json()) as { access_token: string };
    expect((await mcpToolsList(s, access_token)).status).toBe(200);
  });

  it('manages users and clients through /api/v1 with an admin credential only', async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    expect((await fetch(`${s.http}/api/v1/users`)).status).toBe(401);
    const forbidden = await fetch(`${s.http}/api/v1/users`, { headers: { 'x-api-key': 'reader-key-0123456789' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toContain('insufficient_scope');

    const created = await fetch(`${s.http}/api/v1/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'bob', scopes: ['mcp:tools'] }) });
    expect(created.status).toBe(201);
    const { password, user } = (await created.json()) as { password: string; user: { username: string } };
    expect(user.username).toBe('bob');
    expect(password.length).toBeGreaterThanOrEqual(12);
    const list = (await (await fetch(`${s.http}/api/v1/users`, { headers: admin })).json()) as { users: Array<Record<string, unknown>> };
    expect(list.users.map((u) => u.username)).toEqual(expect.arrayContaining(['alice', 'bob', 'admin']));
    expect(JSON.stringify(list)).not.toContain('scrypt$');
    expect((await fetch(`${s.http}/api/v1/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'bob' }) })).status).toBe(400);
    expect((await fetch(`${s.http}/api/v1/users/bob`, { method: 'DELETE', headers: admin })).status).toBe(204);
    expect((await fetch(`${s.http}/api/v1/users/bob`, { method: 'DELETE', headers: admin })).status).toBe(404);

    const c = await fetch(`${s.http}/api/v1/clients`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'reporter', kind: 'machine', scopes: ['a2a:discover'] }) });
    expect(c.status).toBe(201);
    const { client, clientSecret } = (await c.json()) as { client: { clientId: string }; clientSecret: string };
    expect(clientSecret.length).toBeGreaterThan(30);
    const listed = (await (await fetch(`${s.http}/mcp/oauth/clients`, { headers: admin })).json()) as { clients: Array<{ clientId: string }> };
    expect(listed.clients.map((x) => x.clientId)).toContain(client.clientId);
    expect(JSON.stringify(listed)).not.toContain(clientSecret);
    expect((await fetch(`${s.http}/mcp/oauth/clients`)).status).toBe(401);
    expect((await fetch(`${s.http}/mcp/oauth/clients/${client.clientId}`, { method: 'DELETE', headers: admin })).status).toBe(204);
    const after = (await (await fetch(`${s.http}/api/v1/clients`, { headers: admin })).json()) as { clients: Array<{ clientId: string }> };
    expect(after.clients.map((x) => x.clientId)).not.toContain(client.clientId);

    // tokenExchange: the RFC 8693 grant beside the client's own; a boolean only, never a public client.
    const post = (body: object) => fetch(`${s.http}/api/v1/clients`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
    const trusted = await post({ name: 'exchanger', kind: 'machine', scopes: ['a2a:discover'], tokenExchange: true });
    expect(trusted.status).toBe(201);
    expect(((await trusted.json()) as { client: { grantTypes: string[] } }).client.grantTypes).toEqual(['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']);
    expect((await post({ name: 'x', kind: 'machine', tokenExchange: 'yes' })).status).toBe(400);
    expect((await post({ name: 'x', kind: 'public', redirectUris: ['http://127.0.0.1/cb'], tokenExchange: true })).status).toBe(400);
  });
});

describe('OAuth state survives a restart', () => {
  it('a refresh token issued before a restart is redeemed after it', async () => {
    const first = await startOAuthServer({}, undefined);
    const dataDir = first.dataDir;
    const issuer = new URL(first.http);
    let as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, insecure));
    const verifier = oauth.generateRandomCodeVerifier();
    const q = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${first.http}/mcp`,
    });
    const r = await browse(first, `${as.authorization_endpoint}?${q}`, { redirectPrefix: REDIRECT });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState), REDIRECT, verifier, insecure),
    );
    const port = Number(issuer.port);
    await first.close();

    // Same data directory and port (the issuer is the public URL): a restart, not a new server.
    const second = await startTestServer({ auth: { mode: 'required' }, agents: [{ id: 'echo', builtin: 'echo' }], server: { port } }, { dataDir });
    try {
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
      const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
      expect((await mcpToolsList(second, refreshed.access_token)).status).toBe(200);
      expect((await mcpToolsList(second, tokens.access_token)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});

describe('behind a TLS-terminating proxy', () => {
  it('advertises endpoints at the public URL, not at the address it listens on, whatever Host says', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const s = await startTestServer({ auth: { mode: 'required' }, agents: [{ id: 'echo', builtin: 'echo' }], server: { port, publicUrl: 'https://agents.example.test' } });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' } });
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, string>;
      expect(doc.issuer).toBe('https://agents.example.test');
      expect(doc.token_endpoint).toBe('https://agents.example.test/oauth/token');
      expect(doc.authorization_endpoint).toBe('https://agents.example.test/oauth/authorize');
    } finally {
      await s.stop();
    }
  });
});
