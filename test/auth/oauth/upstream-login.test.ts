/**
 * The login delegated to an upstream OpenID Provider (auth.oauth.upstream), end to end over real
 * HTTP: a second, minimal oidc-provider on another loopback address is the upstream (upstream-idp.ts: one static
 * confidential client, two accounts, its login and consent answered by this test as a browser
 * would), and oauth4webapi is the MCP client of Agentport. Then the ways it must fail: a forged or
 * replayed state, a callback in another browser, an ID token with a wrong nonce, audience or
 * signature, an account that is not allowed, and an upstream that is down.
 */
import net, { type AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { freePort } from '../../support/private-services.js';
import { startReverseProxy, type ReverseProxy } from '../../support/reverse-proxy.js';
import { mcpToolsList, startOAuthServer } from './support.js';
import { Browser, formOf, signInUpstream, startUpstream, UPSTREAM_CLIENT } from './upstream-idp.js';

const REDIRECT = 'http://127.0.0.1:53682/callback';

/** The authorization request of a public MCP client (PKCE S256) for the issuer's /mcp resource. */
async function mcpAuthorizeUrl(as: oauth.AuthorizationServer, client: oauth.Client, verifier: string, state: string): Promise<string> {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'mcp:tools',
    resource: `${as.issuer}/mcp`,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}
const insecure = { [oauth.allowInsecureRequests]: true };
/** The walk through the upstream to this test's client. */
const signIn = (agentport: string, upstream: string, start: string, o: Omit<Parameters<typeof signInUpstream>[3], 'redirect'> = {}) => signInUpstream(agentport, upstream, start, { redirect: REDIRECT, ...o });

describe('login delegated to an upstream OpenID Provider', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  const authorizeUrl = (verifier: string, state: string) => mcpAuthorizeUrl(as, client, verifier, state);
  const sign = async (o: Parameters<typeof signIn>[3] = {}) => signIn(s.http, upstream.issuer, await authorizeUrl(oauth.generateRandomCodeVerifier(), oauth.generateRandomState()), o);

  beforeAll(async () => {
    upstream = await startUpstream();
    s = await startOAuthServer({
      auth: {
        oauth: {
          upstream: {
            issuer: upstream.issuer,
            clientId: UPSTREAM_CLIENT.id,
            clientSecret: UPSTREAM_CLIENT.secret,
            label: 'Test IdP',
            allowedDomains: ['example.com'],
            allowedSubjects: ['bob-52d0'],
            allowHosts: ['127.0.0.0/8'],
          },
        },
      },
    });
    await upstream.attach(`${s.http}/oauth/upstream/callback`);
    const issuer = new URL(s.http);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const reg = await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Upstream test client', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
      insecure,
    );
    client = await oauth.processDynamicClientRegistrationResponse(reg);
  });
  afterAll(async () => {
    await s?.stop();
    await upstream?.close();
  });

  it('shows "Sign in with Test IdP" as a plain form next to the password form', async () => {
    const browser = new Browser();
    const res = await browser.go(await authorizeUrl(oauth.generateRandomCodeVerifier(), 'x'));
    const login = await (await browser.go(new URL(res.headers.get('location')!, s.http).href)).text();
    expect(login).toContain('>Sign in with Test IdP</button>');
    expect(formOf(login, 'upstream')).toBeDefined();
    expect(formOf(login, 'login')).toBeDefined();
    expect(login).toContain('name="password"');
    expect(login).not.toMatch(/<script/i);
  });

  it('signs in at the upstream, consents at Agentport, and the token acts for <issuer>#<sub> at /mcp', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const r = await signIn(s.http, upstream.issuer, await authorizeUrl(verifier, state));
    expect(r.stoppedAt).toBeUndefined();
    const consent = r.pages.find((p) => p.includes('value="allow"'))!;
    expect(consent).toContain(`Signed in as <strong>${upstream.issuer}#alice-7f3a</strong>`);
    // The upstream was asked with PKCE S256, state and nonce, for the configured redirect URI.
    const cb = new URL(r.upstreamCallback!);
    expect(cb.searchParams.get('iss')).toBe(upstream.issuer);

    const params = oauth.validateAuthResponse(as, client, r.callback!, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${as.issuer}/mcp` } }),
    );
    expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: as.issuer, sub: `${upstream.issuer}#alice-7f3a`, aud: `${as.issuer}/mcp` });
    const listed = await mcpToolsList(s, tokens.access_token);
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo_echo');
  });

  it('asked the upstream for code + PKCE S256 + state + nonce with the callback as redirect URI', async () => {
    let seen: URL | undefined;
    await sign({ rewriteUpstreamAuthorize: (u) => void (seen = new URL(u)), stopAtCallback: true });
    expect(seen!.searchParams.get('response_type')).toBe('code');
    expect(seen!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(seen!.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(seen!.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(seen!.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(seen!.searchParams.get('redirect_uri')).toBe(`${s.http}/oauth/upstream/callback`);
    expect(seen!.searchParams.get('scope')!.split(' ').sort()).toEqual(['email', 'openid']);
  });

  it('refuses a forged state, a callback finished in another browser, and a replayed callback', async () => {
    const browser = new Browser();
    const r = await sign({ browser, stopAtCallback: true });
    const real = new URL(r.upstreamCallback!);

    const forged = new URL(real);
    forged.searchParams.set('state', oauth.generateRandomState());
    const f = await browser.go(forged.href);
    expect(f.status).toBe(400);
    expect(await f.text()).toContain('not started in this browser');

    // The real callback, but in a browser that never started this sign-in (login CSRF).
    const other = await new Browser().go(real.href);
    expect(other.status).toBe(400);
    expect(await other.text()).toContain('not started in this browser');

    // The forged attempt spoiled nothing: the right browser still gets through, once.
    const ok = await browser.go(real.href);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(/^\/oauth\/interaction\/[^/]+\/upstream-done\?state=/);
    const replay = await fetch(real.href, { redirect: 'manual', headers: { cookie: `agentport_upstream_state=${real.searchParams.get('state')}` } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('expired or was already used');
  });

  it('refuses an ID token whose nonce is not the one sent (authorization request tampered with)', async () => {
    const r = await sign({ rewriteUpstreamAuthorize: (u) => u.searchParams.set('nonce', oauth.generateRandomNonce()) });
    expect(r.callback).toBeUndefined();
    expect(r.stoppedAt).toMatchObject({ status: 403 });
    expect(r.stoppedAt!.url).toContain('/oauth/upstream/callback');
    expect(r.stoppedAt!.body).toContain('could not be verified');
  });

  it('refuses an ID token for another audience, and one signed by a key the upstream does not publish', async () => {
    for (const t of ['aud', 'signature'] as const) {
      upstream.tamper(t);
      try {
        const r = await sign();
        expect(r.callback, t).toBeUndefined();
        expect(r.stoppedAt, t).toMatchObject({ status: 403 });
        expect(r.stoppedAt!.body).toContain('could not be verified');
      } finally {
        upstream.tamper(undefined);
      }
    }
    // and the untampered upstream still signs in
    expect((await sign()).callback).toBeDefined();
  });

  it('admits an account listed in allowedSubjects although its domain is not allowed', async () => {
    const r = await sign({ account: 'bob-52d0' });
    expect(r.stoppedAt).toBeUndefined();
    expect(r.pages.find((p) => p.includes('value="allow"'))).toContain(`Signed in as <strong>${upstream.issuer}#bob-52d0</strong>`);
  });

  it('refuses an upstream account outside allowedDomains and allowedSubjects', async () => {
    const r = await sign({ account: 'mallory-1c9e' });
    expect(r.callback).toBeUndefined();
    expect(r.stoppedAt).toMatchObject({ status: 403 });
    expect(r.stoppedAt!.body).toContain('may not sign in to this server');
  });
});

describe('login delegated to an upstream OpenID Provider, under a path prefix behind a proxy', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let s: TestServer;
  let proxy: ReverseProxy;
  let pub: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    const port = await freePort();
    proxy = await startReverseProxy({ targetPort: port, prefix: '/agentport', strip: true });
    pub = proxy.url;
    s = await startOAuthServer({
      server: { port, publicUrl: pub },
      auth: { oauth: { upstream: { issuer: upstream.issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret, label: 'Test IdP', allowedDomains: ['example.com'], allowHosts: ['127.0.0.0/8'] } } },
    });
    await upstream.attach(`${pub}/oauth/upstream/callback`);
  });
  afterAll(async () => {
    await s?.stop();
    await proxy?.stop();
    await upstream?.close();
  });

  it('sends the upstream back to the prefixed callback, scopes its cookie there, and finishes the sign-in below the prefix', async () => {
    // Path-appended OIDC discovery: below the prefix, where this proxy forwards.
    const issuer = new URL(pub);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
    expect(as.issuer).toBe(pub);
    const reg = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] }, insecure);
    const client = await oauth.processDynamicClientRegistrationResponse(reg);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    // The issuer is the prefixed public URL, so the resource asked for is the prefixed /mcp.
    const url = new URL(await mcpAuthorizeUrl(as, client, verifier, state));

    // The binding cookie of the upstream sign-in, as set when the "Sign in with" form is posted.
    const browser = new Browser();
    const login = await browser.go(new URL((await browser.go(url.href)).headers.get('location')!, url).href);
    const form = formOf(await login.text(), 'upstream')!;
    expect(form.action.startsWith('/agentport/oauth/interaction/')).toBe(true);
    const begun = await browser.go(new URL(form.action, pub).href, { csrf: form.csrf });
    expect(begun.status).toBe(303);
    expect(begun.headers.get('set-cookie')).toMatch(/agentport_upstream_state=[^;]+; Path=\/agentport\/oauth\/upstream\/callback;/);
    expect(new URL(begun.headers.get('location')!).searchParams.get('redirect_uri')).toBe(`${pub}/oauth/upstream/callback`);

    const r = await signIn(pub, upstream.issuer, url.href);
    expect(r.stoppedAt).toBeUndefined();
    expect(r.upstreamCallback!.startsWith(`${pub}/oauth/upstream/callback?`)).toBe(true);
    const params = oauth.validateAuthResponse(as, client, r.callback!, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${pub}/mcp` } }),
    );
    expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: pub, sub: `${upstream.issuer}#alice-7f3a`, aud: `${pub}/mcp` });
    expect((await mcpToolsList(s, tokens.access_token)).status).toBe(200);
    expect(proxy.refused.filter((p) => p !== '/favicon.ico')).toEqual([]);
  });
});

describe('upstream-only login (localUsers: false) with the upstream down', () => {
  let s: TestServer;
  let deadIssuer: string;
  /** accepts connections and never answers: the worst kind of down */
  let silent: net.Server;
  const sockets = new Set<net.Socket>();

  beforeAll(async () => {
    silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.2', r));
    deadIssuer = `http://127.0.0.2:${(silent.address() as AddressInfo).port}`;
    s = await startOAuthServer({
      auth: { oauth: { localUsers: false, upstream: { issuer: deadIssuer, clientId: 'agentport', clientSecret: 'unused-secret-0123456789', label: 'Corp SSO', allowHosts: ['127.0.0.0/8'] } } },
    });
  });
  afterAll(async () => {
    await s?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('shows only the upstream button, refuses passwords, and answers 502 with a page within the 5 s cap when the upstream does not answer', { timeout: 15_000 }, async () => {
    const browser = new Browser();
    const start = new URL(`${s.http}/oauth/authorize`);
    const reg = await fetch(`${s.http}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const verifier = oauth.generateRandomCodeVerifier();
    start.search = new URLSearchParams({ client_id, redirect_uri: REDIRECT, response_type: 'code', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }).toString();
    const redirected = await browser.go(start.href);
    const loginUrl = new URL(redirected.headers.get('location')!, s.http).href;
    const login = await (await browser.go(loginUrl)).text();
    expect(login).toContain('>Sign in with Corp SSO</button>');
    expect(login).not.toContain('name="password"');

    const password = await browser.go(`${loginUrl}/login`, { csrf: formOf(login, 'upstream')!.csrf, username: 'alice', password: 'correct horse battery staple' });
    expect(password.status).toBe(403);

    const began = Date.now();
    const up = formOf(login, 'upstream')!;
    const res = await browser.go(new URL(up.action, s.http).href, { csrf: up.csrf });
    expect(Date.now() - began).toBeLessThan(7000);
    expect(res.status).toBe(502);
    const page = await res.text();
    expect(page).toContain('Corp SSO could not be reached');
    expect(page).not.toContain(deadIssuer.split('//')[1]!);
    expect(page).not.toMatch(/ECONNREFUSED|at .*\.js/);
  });

  it('refuses localUsers: false without an upstream at config time', async () => {
    await expect(startOAuthServer({ auth: { oauth: { localUsers: false } } })).rejects.toThrow(/localUsers/);
  });
});
