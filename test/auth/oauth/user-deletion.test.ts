/**
 * Deleting a user ends what the user held (issue 19, D1): the grant behind their tokens is
 * revoked, so the refresh token is refused and the access token stops at once on this replica,
 * and the provider's sign-in session no longer skips the login page.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { browse, CookieJar, mcpToolsList, startOAuthServer, USER } from './support.js';

const ADMIN_KEY = 'admin-key-for-the-user-deletion-test';
const REDIRECT = 'http://127.0.0.1:53690/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

describe('deleting a user', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    s = await startOAuthServer({ auth: { apiKeys: [{ key: ADMIN_KEY, subject: 'ops', scopes: ['admin'] }] } });
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  afterAll(async () => s?.stop());

  it('revokes their grants: refresh token refused, access token refused, login asked again', async () => {
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }, insecure),
    );
    const authorize = async (jar: CookieJar) => {
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
      return { verifier, r: await browse(s, url.href, { redirectPrefix: REDIRECT, jar }) };
    };
    const jar = new CookieJar();
    const { verifier, r } = await authorize(jar);
    const params = oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${as.issuer}/mcp` } }),
    );
    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(200); // also caches "grant live"

    expect((await fetch(`${s.http}/api/v1/users/${USER.username}`, { method: 'DELETE', headers: { 'x-api-key': ADMIN_KEY } })).status).toBe(204);

    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The browser still holds the provider's session cookie: it must lead to the login page, and
    // the deleted user's password to nothing.
    const { r: again } = await authorize(jar);
    expect(again.callback).toBeUndefined();
    expect(again.stoppedAt?.status).toBe(401);
    expect(again.pages[0]).toContain('name="password"');
  });
});
