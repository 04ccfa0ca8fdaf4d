/**
 * The audit records the authorization server leaves, over real HTTP: a failed and a successful
 * password sign-in, consent granted, the token issued and refreshed, and a refresh token
 * presented twice (oidc-provider revokes the grant; recorded as token.refresh_reuse).
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/store/audit-store.js';
import { openSqliteStore } from '../../../src/store/index.js';
import type { TestServer } from '../../support/server.js';
import { browse, startOAuthServer, USER } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:47002/cb';

describe('OAuth audit records', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  beforeAll(async () => {
    s = await startOAuthServer();
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'audited' }, insecure));
  });
  afterAll(() => s?.stop());

  const authorizeUrl = async (verifier: string) => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      resource: `${as.issuer}/mcp`,
      scope: 'mcp:tools offline_access',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  };
  /** Every record so far, read from the server's own store after it wrote its queue. */
  const audit = async (): Promise<AuditRecord[]> => {
    await s.audit.flush();
    const store = await openSqliteStore({ file: `${s.dataDir}/agentport.db` });
    try {
      return await store.audit.list({ limit: 1000 });
    } finally {
      await store.close();
    }
  };

  it('records the dynamic registration of the client, by an anonymous registrant', async () => {
    expect((await audit()).filter((e) => e.action === 'client.created')).toMatchObject([
      { outcome: 'success', actor: 'anonymous', target: `client:${client.client_id}`, clientAddress: '127.0.0.1', details: { dynamicRegistration: true, name: 'audited' } },
    ]);
  });

  it('records a failed sign-in with the name tried, the client and the address', async () => {
    const r = await browse(s, await authorizeUrl(oauth.generateRandomCodeVerifier()), { redirectPrefix: REDIRECT, user: { username: 'alice', password: 'wrong' } });
    expect(r.stoppedAt?.status).toBe(401);
    const failed = (await audit()).filter((e) => e.action === 'signin.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ outcome: 'failure', actor: 'anonymous', target: 'user:alice', actorClient: client.client_id, clientAddress: '127.0.0.1', details: { method: 'password' } });
    expect(failed[0]!.requestId).toBeTruthy();
  });

  it('records sign-in, consent, token issued and refreshed, and a refresh token replayed', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const r = await browse(s, await authorizeUrl(verifier), { redirectPrefix: REDIRECT, user: USER });
    const params = oauth.validateAuthResponse(as, client, r.callback!, oauth.expectNoState);
    const t1 = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure));
    expect(t1.refresh_token).toBeTruthy();
    await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), t1.refresh_token!, insecure));
    const replay = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), t1.refresh_token!, insecure);
    expect(replay.status).toBe(400);

    const events = (await audit()).filter((e) => e.action !== 'signin.failed' && e.action !== 'client.created' && e.actor !== 'system');
    expect(events.map((e) => e.action)).toEqual(['signin.succeeded', 'consent.granted', 'token.issued', 'token.refreshed', 'token.refresh_reuse']);
    expect(events.every((e) => e.actor === USER.username && e.actorClient === client.client_id)).toBe(true);
    expect(events[1]).toMatchObject({ target: `client:${client.client_id}`, details: { scopes: expect.arrayContaining(['mcp:tools']) } });
    expect(events[2]).toMatchObject({ details: { grantType: 'authorization_code' } });
    expect(events[4]).toMatchObject({ outcome: 'denied', target: events[2]!.target });
  });
});
