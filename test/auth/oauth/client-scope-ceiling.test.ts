/**
 * The scopes a client may ever receive are the client's (issue 19, D2): a dynamically registered
 * client never gets `admin`, whatever the consenting user may grant; an administrator-created
 * client registered with `admin` can.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { SELF_REGISTERED_CEILING, selfRegisteredScope } from '../../../src/auth/oauth/client-scope-ceiling.js';
import { browse, startOAuthServer } from './support.js';

const ADMIN_KEY = 'admin-key-for-the-scope-ceiling-test';
const ROOT = { username: 'root', password: 'a long admin password 45', scopes: ['admin'] };
const REDIRECT = 'http://127.0.0.1:53691/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

describe('the ceiling of a self-registered client', () => {
  it('is what it registered less admin, the whole ceiling when it registered nothing, and never empty', () => {
    expect(selfRegisteredScope(undefined)).toBe(SELF_REGISTERED_CEILING.join(' '));
    expect(selfRegisteredScope('')).toBe(SELF_REGISTERED_CEILING.join(' '));
    expect(selfRegisteredScope('admin mcp:tools mcp:tools')).toBe('mcp:tools');
    expect(selfRegisteredScope('admin')).toBe('openid');
    expect(SELF_REGISTERED_CEILING).not.toContain('admin');
    // unknown values stay, for oidc-provider's own metadata validation to refuse
    expect(selfRegisteredScope('a2a:discover no-such-scope')).toBe('a2a:discover no-such-scope');
  });
});

describe('client scope ceilings', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    s = await startOAuthServer({ auth: { apiKeys: [{ key: ADMIN_KEY, subject: 'ops', scopes: ['admin'] }] } }, [ROOT]);
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  afterAll(async () => s?.stop());

  async function authorizeAsRoot(clientId: string, scope: string) {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope,
      resource: `${as.issuer}/api/v1`,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    }).toString();
    return browse(s, url.href, { redirectPrefix: REDIRECT, user: ROOT, decision: 'allow' });
  }

  it('refuses admin to a dynamically registered client before any consent, even when an admin would allow it', async () => {
    const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] }, insecure);
    const client = await oauth.processDynamicClientRegistrationResponse(res);
    // The registration response tells the client its ceiling (RFC 7591 §3.2.1: the server may set scope).
    expect(String(client.scope).split(' ')).not.toContain('admin');

    const r = await authorizeAsRoot(client.client_id, 'admin');
    expect(r.pages.some((p) => p.includes('value="allow"'))).toBe(false);
    expect(r.callback?.searchParams.get('error')).toBe('invalid_scope');
    expect(r.callback?.searchParams.get('code')).toBeNull();
    // Within the ceiling the same client is served as usual.
    expect((await authorizeAsRoot(client.client_id, 'a2a:discover')).callback?.searchParams.get('code')).toBeTruthy();
  });

  it('a registration or metadata document cannot claim to be administrator-created', async () => {
    const res = await fetch(`${s.http}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', agentport_registered_by: 'administrator', scope: 'mcp:tools' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('grants admin to a client an administrator registered with it', async () => {
    const created = await fetch(`${s.http}/api/v1/clients`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ops console', kind: 'public', redirectUris: [REDIRECT], scopes: ['admin'] }),
    });
    expect(created.status).toBe(201);
    const { client } = (await created.json()) as { client: { clientId: string } };
    const r = await authorizeAsRoot(client.clientId, 'admin');
    expect(r.pages.find((p) => p.includes('value="allow"'))).toContain('<code>admin</code>');
    expect(r.callback?.searchParams.get('code')).toBeTruthy();
  });
});
