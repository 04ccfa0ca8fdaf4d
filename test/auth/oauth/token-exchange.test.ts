/**
 * RFC 8693 token exchange at Agentport's own token endpoint, over real HTTP with a real OAuth
 * client library (oauth4webapi's genericTokenEndpointRequest): a trusted service exchanges alice's token
 * for a narrower one for another of our audiences, naming itself in `act`; the issued JWT is
 * verified with jose against the published JWKS and used on the A2A face; every refusal has its
 * RFC 8693 §2.2.2 / RFC 6749 §5.2 error; revoking alice's grant ends the exchanged token.
 */
import path from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../src/auth/access-tokens.js';
import { createClient } from '../../../src/auth/oauth/client-registry.js';
import { KeyStore } from '../../../src/core/keys/key-store.js';
import type { AuditRecord } from '../../../src/store/audit-store.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { browse, mcpToolsList, startOAuthServer } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:47113/cb';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

describe('RFC 8693 token exchange at our token endpoint', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  /** the user's app (dynamically registered, public) and the token alice gave it for /mcp */
  let app: oauth.Client;
  let aliceToken: string;
  /** a trusted service allowed to exchange, limited to a2a:discover a2a:publish */
  let service: oauth.Client;
  let serviceAuth: oauth.ClientAuth;
  /** an administrator-created client without the grant */
  let plain: oauth.Client;
  let plainAuth: oauth.ClientAuth;

  const exchange = (params: Record<string, string>, client = service, auth = serviceAuth) =>
    oauth.genericTokenEndpointRequest(as, client, auth, GRANT, { subject_token: aliceToken, subject_token_type: ACCESS_TOKEN, ...params }, insecure);
  const refusal = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: string; error_description?: string }) });

  const signIn = async (scope: string, resource: string): Promise<oauth.TokenEndpointResponse> => {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope,
      resource,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const r = await browse(s, url.href, { redirectPrefix: REDIRECT });
    const params = oauth.validateAuthResponse(as, app, r.callback!, oauth.expectNoState);
    return oauth.processAuthorizationCodeResponse(as, app, await oauth.authorizationCodeGrantRequest(as, app, oauth.None(), params, REDIRECT, verifier, insecure));
  };

  beforeAll(async () => {
    s = await startOAuthServer();
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    app = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'alice app' }, insecure));
    aliceToken = (await signIn('mcp:tools a2a:discover a2a:publish', `${as.issuer}/mcp`)).access_token;
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    try {
      const trusted = await createClient(store.oauth, { name: 'report service', kind: 'machine', scopes: ['a2a:discover', 'a2a:publish'], tokenExchange: true });
      service = { client_id: trusted.client.clientId };
      serviceAuth = oauth.ClientSecretBasic(trusted.clientSecret!);
      const other = await createClient(store.oauth, { name: 'not trusted', kind: 'machine', scopes: ['a2a:publish'] });
      plain = { client_id: other.client.clientId };
      plainAuth = oauth.ClientSecretBasic(other.clientSecret!);
    } finally {
      await store.close();
    }
  });
  afterAll(async () => s?.stop());

  it('lists the grant in the authorization server metadata (RFC 8414 grant_types_supported)', () => {
    expect(as.grant_types_supported).toContain(GRANT);
  });

  it('issues a narrower token for another audience, with act naming the client, verifiable at the JWKS, that works on A2A', async () => {
    const res = await exchange({ scope: 'a2a:publish', resource: `${as.issuer}/a2a/echo` });
    const body = (await oauth.processGenericTokenEndpointResponse(as, service, res)) as oauth.TokenEndpointResponse & { issued_token_type?: string };
    expect(body.issued_token_type).toBe(ACCESS_TOKEN);
    expect(body.token_type).toBe('bearer');
    expect(body.scope).toBe('a2a:publish');
    expect(body.refresh_token).toBeUndefined();

    const { payload, protectedHeader } = await jwtVerify(body.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), { issuer: as.issuer, audience: `${as.issuer}/a2a/echo`, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('ES256');
    const subject = decodeJwt(aliceToken);
    expect(payload).toMatchObject({ sub: 'alice', client_id: service.client_id, scope: 'a2a:publish', act: { sub: `client:${service.client_id}` }, grant_id: subject.grant_id });
    expect(payload.exp!).toBeLessThanOrEqual(subject.exp!);

    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('on alice behalf') }, { authorization: `Bearer ${body.access_token}` });
    expect(sent.status).toBe(200);
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // Narrower: not valid for /mcp (another audience) ...
    expect((await mcpToolsList(s, body.access_token)).status).toBe(401);
    // ... and without a2a:discover the agent's extended card is refused.
    const card = await rpc(`${s.http}/a2a/echo`, 'GetExtendedAgentCard', {}, { authorization: `Bearer ${body.access_token}` });
    expect(card.status).not.toBe(200);

    // The audit record of the issuance names the user as actor and the exchanging client.
    await s.audit.flush();
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    try {
      const issued = (await store.audit.list({ limit: 1000 })).filter((e: AuditRecord) => e.action === 'token.issued' && e.details?.grantType === GRANT);
      expect(issued).toMatchObject([{ outcome: 'success', actor: 'alice', actorClient: service.client_id, target: `grant:${subject.grant_id}` }]);
      const usage = await store.usage.query({ groupBy: ['subject', 'client', 'agent'], filters: { client: [service.client_id] }, from: 0, to: Date.now() + 60_000 });
      expect(usage.map((g) => g.key)).toContainEqual({ subject: 'alice', client: service.client_id, agent: 'echo' });
    } finally {
      await store.close();
    }
  });

  it('exchanges for the /mcp audience: a service trusted with mcp:tools lists the tools for alice, and the token is refused on A2A', async () => {
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    let mcpService: oauth.Client;
    let mcpAuth: oauth.ClientAuth;
    try {
      const trusted = await createClient(store.oauth, { name: 'mcp gateway', kind: 'machine', scopes: ['mcp:tools'], tokenExchange: true });
      mcpService = { client_id: trusted.client.clientId };
      mcpAuth = oauth.ClientSecretBasic(trusted.clientSecret!);
    } finally {
      await store.close();
    }
    const res = await exchange({ scope: 'mcp:tools', resource: `${as.issuer}/mcp` }, mcpService, mcpAuth);
    const body = await oauth.processGenericTokenEndpointResponse(as, mcpService, res);
    expect(body.scope).toBe('mcp:tools');
    const p = decodeJwt(body.access_token);
    expect(p).toMatchObject({ sub: 'alice', aud: `${as.issuer}/mcp`, client_id: mcpService.client_id, act: { sub: `client:${mcpService.client_id}` } });
    const listed = await mcpToolsList(s, body.access_token);
    expect(listed.status).toBe(200);
    // tools are named <agent>_<skill> (docs/mcp.md): the echo agent's echo skill
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo_echo');
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('not for this audience') }, { authorization: `Bearer ${body.access_token}` });
    expect(sent.status).toBe(401);
  });

  it('nests act when the subject token was itself exchanged (RFC 8693 §4.1)', async () => {
    const first = (await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ resource: `${as.issuer}/a2a/echo` }))).access_token;
    const res = await oauth.genericTokenEndpointRequest(as, service, serviceAuth, GRANT, { subject_token: first, subject_token_type: ACCESS_TOKEN, scope: 'a2a:discover' }, insecure);
    const second = await oauth.processGenericTokenEndpointResponse(as, service, res);
    const p = decodeJwt(second.access_token);
    expect(p.aud).toBe(`${as.issuer}/a2a/echo`); // no resource asked: the subject token's own
    expect(p.act).toEqual({ sub: `client:${service.client_id}`, act: { sub: `client:${service.client_id}` } });
  });

  it('without scope, issues the subject token scopes the client may hold', async () => {
    const body = await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ audience: `${as.issuer}/a2a/echo` }));
    expect(body.scope?.split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish']);
  });

  it('invalid_scope when asking for a scope the client may not hold, or one the subject token lacks', async () => {
    expect(await refusal(await exchange({ scope: 'a2a:publish mcp:tools', resource: `${as.issuer}/a2a/echo` }))).toMatchObject({ status: 400, error: 'invalid_scope' });
    expect(await refusal(await exchange({ scope: 'admin', resource: `${as.issuer}/a2a/echo` }))).toMatchObject({ status: 400, error: 'invalid_scope' });
  });

  it('invalid_target for an audience this server does not serve', async () => {
    expect(await refusal(await exchange({ resource: 'https://elsewhere.example/api' }))).toMatchObject({ status: 400, error: 'invalid_target' });
    expect(await refusal(await exchange({ audience: `${as.issuer}/a2a/no-such-agent` }))).toMatchObject({ status: 400, error: 'invalid_target' });
    expect(await refusal(await exchange({ resource: `${as.issuer}/a2a/echo`, audience: `${as.issuer}/mcp` }))).toMatchObject({ status: 400, error: 'invalid_target' });
  });

  it('a refused exchange is audited as token.exchange_refused with the client and the error, never a token', async () => {
    expect(await refusal(await exchange({ resource: 'https://refused-audience.example/api' }))).toMatchObject({ status: 400, error: 'invalid_target' });
    await s.audit.flush();
    const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
    try {
      const refused = (await store.audit.list({ limit: 1000 })).filter((e: AuditRecord) => e.action === 'token.exchange_refused');
      expect(refused).toContainEqual(expect.objectContaining({ outcome: 'denied', actor: `client:${service.client_id}`, details: { grantType: GRANT, error: 'invalid_target' } }));
      expect(JSON.stringify(refused)).not.toContain(aliceToken);
    } finally {
      await store.close();
    }
  });

  it('unauthorized_client for a client not trusted with the grant', async () => {
    expect(await refusal(await exchange({ resource: `${as.issuer}/a2a/echo` }, plain, plainAuth))).toMatchObject({ status: 400, error: 'unauthorized_client' });
  });

  it('invalid_client for a wrong secret', async () => {
    expect(await refusal(await exchange({}, service, oauth.ClientSecretBasic('wrong')))).toMatchObject({ status: 401, error: 'invalid_client' });
  });

  it('invalid_request for a missing subject_token, a wrong token type, an actor_token, another requested type', async () => {
    const raw = (params: Record<string, string>) => oauth.genericTokenEndpointRequest(as, service, serviceAuth, GRANT, params, insecure);
    expect(await refusal(await raw({ subject_token_type: ACCESS_TOKEN }))).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal(await raw({ subject_token: aliceToken }))).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal(await exchange({ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }))).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal(await exchange({ actor_token: aliceToken, actor_token_type: ACCESS_TOKEN }))).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal(await exchange({ requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }))).toMatchObject({ status: 400, error: 'invalid_request' });
    const twice = [
      ['subject_token', aliceToken],
      ['subject_token_type', ACCESS_TOKEN],
      ['resource', `${as.issuer}/a2a/echo`],
      ['resource', `${as.issuer}/mcp`],
    ];
    expect(await refusal(await oauth.genericTokenEndpointRequest(as, service, serviceAuth, GRANT, twice, insecure))).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('invalid_grant for a subject token that is not ours, or tampered with', async () => {
    expect(await refusal(await exchange({ subject_token: 'not-a-jwt' }))).toMatchObject({ status: 400, error: 'invalid_grant' });
    const [h, p, sig] = aliceToken.split('.');
    const claims = { ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'admin' };
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    expect(await refusal(await exchange({ subject_token: forged }))).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('invalid_grant for an expired subject token; a grant-less one (CLI-minted) is exchanged, never outliving it', async () => {
    const own = (o: Partial<Parameters<typeof issueAccessToken>[1]>) =>
      issueAccessToken(new KeyStore({ dataDir: s.dataDir }), { issuer: as.issuer, audience: `${as.issuer}/mcp`, subject: 'alice', scopes: ['a2a:publish'], ...o });
    const expired = await own({ issuedAt: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 3600 });
    expect(await refusal(await exchange({ subject_token: expired }))).toMatchObject({ status: 400, error: 'invalid_grant', error_description: 'subject_token has expired' });
    const short = await own({ ttlSeconds: 120 });
    const body = await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ subject_token: short, resource: `${as.issuer}/a2a/echo` }));
    const p = decodeJwt(body.access_token);
    expect(p.grant_id).toBeUndefined();
    expect(p.exp).toBeLessThanOrEqual(decodeJwt(short).exp!);
    expect(body.expires_in).toBeLessThanOrEqual(120);
    // A usecase binding of the subject token is kept: an exchange never loosens it.
    const bound = await own({ usecase: 'reports' });
    const boundBody = await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ subject_token: bound, resource: `${as.issuer}/a2a/echo` }));
    expect(decodeJwt(boundBody.access_token).usecase).toBe('reports');
  });

  it('a dynamically registered client cannot take the grant', async () => {
    const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code', GRANT] }, insecure);
    expect(await refusal(res)).toMatchObject({ status: 400, error: 'invalid_client_metadata' });
  });

  it("the service revokes its exchanged token (RFC 7009) without ending the user's grant", async () => {
    const exchanged = (await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ resource: `${as.issuer}/a2a/echo` }))).access_token;
    // RFC 7662 introspection by the service shows the actor (RFC 8693 §4.1).
    const info = await oauth.processIntrospectionResponse(as, service, await oauth.introspectionRequest(as, service, serviceAuth, exchanged, insecure));
    expect(info).toMatchObject({ active: true, sub: 'alice', client_id: service.client_id, act: { sub: `client:${service.client_id}` } });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, service, serviceAuth, exchanged, insecure));
    const after = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after') }, { authorization: `Bearer ${exchanged}` });
    expect(after.status).toBe(401);
    expect((await mcpToolsList(s, aliceToken)).status).toBe(200);
  });

  it("revoking the user's grant ends the exchanged token, and further exchanges are invalid_grant", async () => {
    const own = await signIn('a2a:publish', `${as.issuer}/a2a/echo`);
    const subjectToken = own.access_token;
    const exchanged = (await oauth.processGenericTokenEndpointResponse(as, service, await exchange({ subject_token: subjectToken }))).access_token;
    const before = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('before') }, { authorization: `Bearer ${exchanged}` });
    expect(before.status).toBe(200);
    // The user's app revokes its refresh token: oidc-provider ends the whole grant.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, app, oauth.None(), own.refresh_token!, insecure));
    const after = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after') }, { authorization: `Bearer ${exchanged}` });
    expect(after.status).toBe(401);
    expect(await refusal(await exchange({ subject_token: subjectToken }))).toMatchObject({ status: 400, error: 'invalid_grant', error_description: 'subject_token has been revoked' });
  });
});
