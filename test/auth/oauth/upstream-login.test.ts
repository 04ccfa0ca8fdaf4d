/**
 * The login delegated to an upstream OpenID Provider (auth.oauth.upstream), end to end over real
 * HTTP: a second, minimal oidc-provider on another loopback address is the upstream (one static
 * confidential client, two accounts, its login and consent answered by this test as a browser
 * would), and oauth4webapi is the MCP client of Agentport. Then the ways it must fail: a forged or
 * replayed state, a callback in another browser, an ID token with a wrong nonce, audience or
 * signature, an account that is not allowed, and an upstream that is down.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOidcProvider } from '../../../src/auth/oauth/load-provider.js';
import type { TestServer } from '../../support/server.js';
import { freePort } from '../../support/private-services.js';
import { startReverseProxy, type ReverseProxy } from '../../support/reverse-proxy.js';
import { CookieJar, mcpToolsList, startOAuthServer } from './support.js';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const insecure = { [oauth.allowInsecureRequests]: true };
const UPSTREAM_CLIENT = { id: 'agentport', secret: 'upstream-client-secret-0123456789' };
/** the upstream's accounts: alice may sign in to Agentport (allowedDomains), bob too (allowedSubjects), mallory may not */
const ACCOUNTS: Record<string, { email: string }> = {
  'alice-7f3a': { email: 'alice@example.com' },
  'bob-52d0': { email: 'bob@contractor.test' },
  'mallory-1c9e': { email: 'mallory@evil.test' },
};

type Tamper = 'aud' | 'signature' | undefined;

/** The upstream IdP: oidc-provider on 127.0.0.2, so its cookies never mix with Agentport's (127.0.0.1). */
async function startUpstream(): Promise<{ issuer: string; attach(redirectUri: string): Promise<void>; tamper(t: Tamper): void; close(): Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
  const issuer = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  const { publicKey: _pub, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  const foreign = await generateKeyPair('RS256');
  let tamper: Tamper;

  return {
    issuer,
    tamper: (t) => (tamper = t),
    async attach(redirectUri) {
      const { Provider: OidcProvider } = await loadOidcProvider();
      const provider: Provider = new OidcProvider(issuer, {
        clients: [{ client_id: UPSTREAM_CLIENT.id, client_secret: UPSTREAM_CLIENT.secret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        jwks: { keys: [jwk] },
        cookies: { keys: ['upstream-test-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        features: { devInteractions: { enabled: false } },
        findAccount: async (_ctx: unknown, sub: string) => (ACCOUNTS[sub] ? { accountId: sub, claims: async () => ({ sub, email: ACCOUNTS[sub]!.email, email_verified: true }) } : undefined),
        interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
      });
      // A misbehaving upstream: the ID token of the token response re-signed with another
      // audience (by the upstream's own key) or by a key it never published.
      provider.use(async (ctx, next) => {
        await next();
        const body = ctx.body as { id_token?: string } | undefined;
        if (ctx.path !== '/token' || !tamper || !body?.id_token) return;
        const claims = decodeJwt(body.id_token);
        const aud = tamper === 'aud' ? 'some-other-client' : claims.aud;
        ctx.body = { ...body, id_token: await new SignJWT({ ...claims, aud }).setProtectedHeader({ alg: 'RS256', kid: 'upstream-1' }).sign(tamper === 'signature' ? foreign.privateKey : privateKey) };
      });
      const handle = provider.callback();
      server.on('request', (req, res) => {
        if (!req.url?.startsWith('/interaction/')) return handle(req, res);
        void upstreamInteraction(provider, req, res).catch((err: unknown) => {
          res.writeHead(500).end(String(err));
        });
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The upstream's login and consent "pages": GET says which prompt, POST answers it. */
async function upstreamInteraction(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ prompt: details.prompt.name }));
  }
  let body = '';
  for await (const chunk of req) body += String(chunk);
  const form = new URLSearchParams(body);
  if (details.prompt.name === 'login') {
    const login = form.get('login') ?? '';
    if (!ACCOUNTS[login]) return void res.writeHead(401).end('unknown account');
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId!, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** One browser: a cookie jar per host, as cookies are kept per host. */
class Browser {
  private readonly jars = new Map<string, CookieJar>();
  jar(url: string): CookieJar {
    const host = new URL(url).hostname;
    if (!this.jars.has(host)) this.jars.set(host, new CookieJar());
    return this.jars.get(host)!;
  }
  async go(url: string, form?: Record<string, string>): Promise<Response> {
    const jar = this.jar(url);
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    jar.take(res);
    return res;
  }
}

const formOf = (html: string, suffix: string) => {
  const m = new RegExp(`<form method="post" action="([^"]*/${suffix})">\\s*<input type="hidden" name="csrf" value="([^"]*)">`).exec(html);
  return m ? { action: m[1]!, csrf: m[2]! } : undefined;
};

interface Run {
  callback?: URL;
  stoppedAt?: { status: number; url: string; body: string };
  pages: string[];
  /** the upstream's redirect to Agentport's callback, as the browser followed it */
  upstreamCallback?: string;
}

/**
 * Drives one browser from Agentport's authorize URL through "Sign in with …", the upstream's
 * login and consent, Agentport's callback and consent, to the client's redirect URI.
 */
async function signIn(agentport: string, upstream: string, start: string, o: { account?: string; browser?: Browser; rewriteUpstreamAuthorize?: (u: URL) => void; stopAtCallback?: boolean } = {}): Promise<Run> {
  const browser = o.browser ?? new Browser();
  const pages: string[] = [];
  let upstreamCallback: string | undefined;
  let url = start;
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 25; hop++) {
    if (url.startsWith(REDIRECT)) return { callback: new URL(url), pages, ...(upstreamCallback ? { upstreamCallback } : {}) };
    if (url.startsWith(`${upstream}/auth?`) && o.rewriteUpstreamAuthorize) {
      const u = new URL(url);
      o.rewriteUpstreamAuthorize(u);
      url = u.href;
    }
    if (url.startsWith(`${agentport}/oauth/upstream/callback`)) {
      upstreamCallback = url;
      if (o.stopAtCallback) return { pages, upstreamCallback };
    }
    const res = await browser.go(url, form);
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const body = await res.text();
    if (res.status !== 200) return { pages, stoppedAt: { status: res.status, url, body }, ...(upstreamCallback ? { upstreamCallback } : {}) };
    if (url.startsWith(upstream)) {
      const { prompt } = JSON.parse(body) as { prompt: string };
      form = prompt === 'login' ? { login: o.account ?? 'alice-7f3a' } : {};
      continue;
    }
    pages.push(body);
    const step = formOf(body, 'upstream') ?? formOf(body, 'confirm');
    if (!step) return { pages, stoppedAt: { status: res.status, url, body } };
    form = step.action.endsWith('/confirm') ? { csrf: step.csrf, decision: 'allow' } : { csrf: step.csrf };
    url = new URL(step.action, url).href;
  }
  throw new Error('too many redirects');
}

describe('login delegated to an upstream OpenID Provider', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  const authorizeUrl = async (verifier: string, state: string) => {
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
  };
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
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:tools',
      resource: `${pub}/mcp`,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

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
