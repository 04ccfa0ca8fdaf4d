/**
 * Issue 25, OA1: a client-credentials token request without `scope` (what the MCP SDK 1.x client
 * and `openid-client` send) gets the client's registered scopes, or `auth.oauth.defaultScopes`
 * when it registered none (docs/auth.md), as a form and as a JSON body; the token then works
 * where those scopes are needed. Before the fix the token had no scope and every call was 403.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
let s: TestServer;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  s = await startOAuthServer({ auth: { oauth: { defaultScopes: ['a2a:discover', 'a2a:publish'] } } });
  const issuer = new URL(s.http);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}, 60_000);
afterAll(async () => s?.stop());

async function machine(scopes?: string[]): Promise<{ clientId: string; secret: string }> {
  const res = await fetch(`${s.http}/api/v1/clients`, {
    method: 'POST',
    headers: { 'x-api-key': s.firstAdminKey!, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sdk machine', kind: 'machine', ...(scopes ? { scopes } : {}) }),
  });
  const body = (await res.json()) as { client: { clientId: string }; clientSecret: string };
  expect(res.status).toBe(201);
  return { clientId: body.client.clientId, secret: body.clientSecret };
}

const scopesOf = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();

describe('client credentials without scope (OA1)', () => {
  it('grants the registered scopes to a form request without scope, and the token can send', async () => {
    const m = await machine(['a2a:discover', 'a2a:publish', 'usage:read']);
    const res = await oauth.clientCredentialsGrantRequest(as, { client_id: m.clientId }, oauth.ClientSecretBasic(m.secret), new URLSearchParams(), insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: m.clientId }, res);
    expect(scopesOf(tokens.scope)).toEqual(['a2a:discover', 'a2a:publish', 'usage:read']);
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('from a machine') }, { authorization: `Bearer ${tokens.access_token}` });
    expect(sent.status).toBe(200);
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('grants auth.oauth.defaultScopes to a client registered without scopes (JSON body, client_id and secret in it)', async () => {
    const m = await machine();
    const res = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.secret }),
    });
    const body = (await res.json()) as { access_token: string; scope?: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(scopesOf(body.scope)).toEqual(['a2a:discover', 'a2a:publish']);
  });

  it('keeps an explicit scope as asked, and a wrong secret still fails as invalid_client', async () => {
    const m = await machine(['a2a:discover', 'a2a:publish']);
    const res = await oauth.clientCredentialsGrantRequest(as, { client_id: m.clientId }, oauth.ClientSecretBasic(m.secret), new URLSearchParams({ scope: 'a2a:discover' }), insecure);
    expect(scopesOf((await oauth.processClientCredentialsResponse(as, { client_id: m.clientId }, res)).scope)).toEqual(['a2a:discover']);
    const wrong = await fetch(`${s.http}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${m.clientId}:nope`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client');
  });
});
