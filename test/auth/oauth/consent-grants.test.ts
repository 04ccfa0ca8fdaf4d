/**
 * A user's consent grants over the management API: `GET /api/v1/users/{username}/grants` lists the
 * grant a client got through the authorization code flow (client, scopes, resource, times);
 * `DELETE …/grants/{grantId}` revokes it, so its access token stops at once and its refresh token
 * is refused, and no one else's grant can be revoked through another user's path.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { browse, CookieJar, mcpToolsList, startOAuthServer, USER } from './support.js';

const ADMIN_KEY = 'admin-key-for-the-consent-grants-test';
const OTHER = { username: 'bob', password: 'another horse battery staple' };
const REDIRECT = 'http://127.0.0.1:53691/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

let s: TestServer;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  s = await startOAuthServer({ auth: { apiKeys: [{ key: ADMIN_KEY, subject: 'ops', scopes: ['admin'] }] } }, [USER, OTHER]);
  const issuer = new URL(s.http);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => s?.stop());

const admin = (path: string, method = 'GET') => fetch(`${s.http}${path}`, { method, headers: { 'x-api-key': ADMIN_KEY } });

describe('consent grants per user', () => {
  it('lists the grant a client got, and revoking it stops its tokens', async () => {
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Grant Test Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
        insecure,
      ),
    );
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:tools',
      resource: `${as.issuer}/mcp`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT, jar: new CookieJar() });
    const params = oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${as.issuer}/mcp` } }),
    );
    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(200);

    const listed = await admin(`/api/v1/users/${USER.username}/grants`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    const { grants } = (await listed.json()) as { grants: Array<Record<string, any>> };
    expect(grants).toHaveLength(1);
    const grant = grants[0]!;
    expect(grant).toMatchObject({ clientId: client.client_id, clientName: 'Grant Test Client', resources: { [`${as.issuer}/mcp`]: ['mcp:tools'] } });
    expect(grant.scopes).toContain('mcp:tools');
    expect(Date.parse(grant.grantedAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(grant.expiresAt)).toBeGreaterThan(Date.now());
    expect(((await (await admin(`/api/v1/users/${OTHER.username}/grants`)).json()) as { grants: unknown[] }).grants).toEqual([]);

    // Not through another user's path; not for an unknown user.
    expect((await admin(`/api/v1/users/${OTHER.username}/grants/${grant.id}`, 'DELETE')).status).toBe(404);
    expect((await admin('/api/v1/users/nobody/grants')).status).toBe(404);
    expect((await fetch(`${s.http}/api/v1/users/${USER.username}/grants`)).status).toBe(401);

    expect((await admin(`/api/v1/users/${USER.username}/grants/${grant.id}`, 'DELETE')).status).toBe(204);
    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(((await (await admin(`/api/v1/users/${USER.username}/grants`)).json()) as { grants: unknown[] }).grants).toEqual([]);
    expect((await admin(`/api/v1/users/${USER.username}/grants/${grant.id}`, 'DELETE')).status).toBe(404);
  });
});
