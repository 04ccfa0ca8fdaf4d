/**
 * Connector sign-in as the replaced service did it (issue 15, item 3), against a real server and a
 * local test issuer (its own ES256 key, its JWKS served on loopback):
 * - token login: a bearer token of the issuer + a usecase → Agentport's own token bound to that
 *   usecase; refused for a wrong issuer, an expired token, a wrong audience, a usecase not in scope;
 * - auto-approve (staging): no page at all; a refused token stops it; refused on a public bind;
 * - the stable pre-registered public client id, with the allowed redirect URIs only;
 * - client credentials with a JSON body (Auth0-style scripts), at /oauth/token and /mcp/oauth/token;
 * - the connectors' callback URLs accepted at registration, the ChatGPT `{callback_id}` one too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { checkTokenAutoApprove } from '../../../src/server/auth-mode.js';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';
import { consoleSignIn } from '../../console/console-code-flow.js';
import { CookieJar, mcpToolsList } from './support.js';

const AUDIENCE = 'https://api.novaeden.test';
const REDIRECT = 'http://127.0.0.1:53682/callback';
const insecure = { [oauth.allowInsecureRequests]: true };
const AGENTS = [
  { id: 'echo', builtin: 'echo' },
  { id: 'retail', builtin: 'echo', usecase: 'demo' },
  { id: 'ledger', builtin: 'echo', usecase: 'finance' },
];

/** A local OpenID issuer: an ES256 key and its JWKS on loopback. */
class TestIssuer {
  url = '';
  private server!: Server;
  private key!: CryptoKey;
  async start(): Promise<this> {
    const pair = await generateKeyPair('ES256');
    this.key = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    this.server = createServer((req, res) => {
      res.writeHead(req.url === '/jwks' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/jwks' ? { keys: [jwk] } : {}));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  config() {
    return { issuer: this.url, audience: AUDIENCE, jwksUri: `${this.url}/jwks` };
  }
  mint(o: { scope: string; sub?: string; aud?: string; iss?: string; expiresIn?: string | number }): Promise<string> {
    return new SignJWT({ scope: o.scope })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(o.iss ?? this.url)
      .setAudience(o.aud ?? AUDIENCE)
      .setSubject(o.sub ?? 'user-1')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(o.expiresIn ?? '10m')
      .sign(this.key);
  }
  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const issuer = new TestIssuer();
let s: AuthzServer;
let as: oauth.AuthorizationServer;

async function discover(server: AuthzServer): Promise<oauth.AuthorizationServer> {
  const u = new URL(server.http);
  return oauth.processDiscoveryResponse(u, await oauth.discoveryRequest(u, { algorithm: 'oauth2', ...insecure }));
}

async function registerClient(a: oauth.AuthorizationServer, redirect = REDIRECT): Promise<Response> {
  return oauth.dynamicClientRegistrationRequest(a, { redirect_uris: [redirect], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }, insecure);
}

function authorizeUrl(a: oauth.AuthorizationServer, clientId: string, challenge: string, o: { redirect?: string; scope?: string } = {}): string {
  const url = new URL(a.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: o.redirect ?? REDIRECT,
    response_type: 'code',
    scope: o.scope ?? 'mcp:tools',
    resource: `${a.issuer}/mcp`,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

const formField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
const formAction = (html: string, suffix: string) =>
  [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!.replace(/&#(\d+);/g, (_x, c: string) => String.fromCharCode(Number(c)))).find((a) => a.endsWith(suffix));

/** A browser: follows redirects, signs in with the token form, allows consent; stops at the client's callback or a non-200 page. */
async function signIn(start: string, o: { token?: string; usecase?: string; redirectPrefix?: string }): Promise<{ callback?: URL; pages: string[]; stopped?: { status: number; body: string } }> {
  const jar = new CookieJar();
  const pages: string[] = [];
  let url = start;
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(o.redirectPrefix ?? REDIRECT)) return { callback: new URL(url), pages };
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    jar.take(res);
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) return { pages, stopped: { status: res.status, body: html } };
    pages.push(html);
    const csrf = formField(html, 'csrf')!;
    const tokenAction = formAction(html, '/token');
    const confirm = formAction(html, '/confirm');
    if (tokenAction && o.token !== undefined) {
      body = new URLSearchParams({ csrf, token: o.token, usecase: o.usecase ?? '' }).toString();
      url = new URL(tokenAction, url).href;
    } else if (confirm) {
      body = new URLSearchParams({ csrf, decision: 'allow' }).toString();
      url = new URL(confirm, url).href;
    } else return { pages, stopped: { status: res.status, body: html } };
  }
  throw new Error('too many redirects');
}

beforeAll(async () => {
  await issuer.start();
  s = await startAuthzServer({ agents: AGENTS, auth: { issuers: [issuer.config()], oauth: { login: ['password', 'token'], defaultClient: {} } } });
  as = await discover(s);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await issuer.stop();
});

describe('token login (auth.oauth.login: token)', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = await oauth.processDynamicClientRegistrationResponse(await registerClient(as));
  });

  async function codeFlow(token: string, usecase?: string) {
    const verifier = oauth.generateRandomCodeVerifier();
    const r = await signIn(authorizeUrl(as, client.client_id, await oauth.calculatePKCECodeChallenge(verifier)), { token, ...(usecase !== undefined ? { usecase } : {}) });
    return { r, verifier };
  }

  it("issues Agentport's own token bound to the usecase of the token's mcp:tools:<usecase> scope", async () => {
    const { r, verifier } = await codeFlow(await issuer.mint({ scope: 'mcp:tools:demo' }));
    expect(r.stopped).toBeUndefined();
    expect(r.pages[0]).toContain('Sign in with a token');
    const params = oauth.validateAuthResponse(as, client, r.callback!, 'st');
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${as.issuer}/mcp` } });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    const claims = decodeJwt(tokens.access_token);
    expect(claims.iss).toBe(as.issuer);
    expect(claims.usecase).toBe('demo');
    expect(claims.sub).toBe(`${issuer.url}#user-1`);
    // Bound: the tools of usecase demo (and of agents of no usecase), never another usecase's.
    const list = await mcpToolsList(s, tokens.access_token);
    expect(list.status).toBe(200);
    const names = JSON.stringify(list.body.result.tools.map((t: { name: string }) => t.name));
    expect(names).toMatch(/retail/);
    expect(names).not.toMatch(/ledger/);
  });

  it('takes the usecase typed in when the token covers it (mcp:tools covers every usecase)', async () => {
    const { r } = await codeFlow(await issuer.mint({ scope: 'mcp:tools' }), 'finance');
    expect(r.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('refuses a token of an issuer it does not trust', async () => {
    const other = await new TestIssuer().start();
    try {
      const { r } = await codeFlow(await other.mint({ scope: 'mcp:tools:demo' }));
      expect(r.stopped?.status).toBe(401);
      expect(r.stopped?.body).toContain('not issued by an identity provider this server trusts');
      // The same key under a trusted issuer's name fails the signature check.
      const forged = await other.mint({ scope: 'mcp:tools:demo', iss: issuer.url });
      const again = await codeFlow(forged);
      expect(again.r.stopped?.status).toBe(401);
      expect(again.r.callback).toBeUndefined();
    } finally {
      await other.stop();
    }
  });

  it('refuses an expired token', async () => {
    const { r } = await codeFlow(await issuer.mint({ scope: 'mcp:tools:demo', sub: 'user-expired', expiresIn: Math.floor(Date.now() / 1000) - 3600 }));
    expect(r.stopped?.status).toBe(401);
    expect(r.stopped?.body).toContain('expired');
  });

  it('refuses a token for another audience', async () => {
    const { r } = await codeFlow(await issuer.mint({ scope: 'mcp:tools:demo', sub: 'user-aud', aud: 'https://elsewhere.test' }));
    expect(r.stopped?.status).toBe(401);
    expect(r.stopped?.body).toContain('another audience');
  });

  it('refuses a usecase the token does not cover, and a token naming none without one typed', async () => {
    const { r } = await codeFlow(await issuer.mint({ scope: 'mcp:tools:demo' }), 'finance');
    expect(r.stopped?.status).toBe(403);
    expect(r.stopped?.body).toContain('does not cover usecase finance');
    const none = await codeFlow(await issuer.mint({ scope: 'a2a:discover', sub: 'user-none' }));
    expect(none.r.stopped?.status).toBe(400);
  });
});

describe('token login into the console', () => {
  it("makes a console session for the token's account, bound to its usecase as its tokens are", async () => {
    const c = await consoleSignIn(s.http, async (url, redirect) => (await signIn(url, { token: await issuer.mint({ scope: 'a2a:discover mcp:tools:demo', sub: 'user-console' }), redirectPrefix: redirect })).callback);
    expect(c.session).toMatchObject({ signedIn: true, username: `${issuer.url}#user-console`, admin: false });
    expect([...c.session.scopes].sort()).toEqual(['a2a:discover', 'mcp:tools']);
    expect(decodeJwt(c.accessToken).usecase).toBe('demo');
    // mcp:tools alone would be every usecase; the session keeps the sign-in's usecase, so ledger (finance) stays hidden.
    const res = await fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/retail/);
    expect(text).not.toMatch(/ledger/);
    // Its own API keys are bound to the same usecase: asked for none, given demo; another refused.
    const keys = (body: unknown) => fetch(`${s.http}/api/v1/keys`, { method: 'POST', headers: { cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const bound = await keys({ scopes: ['mcp:tools'] });
    expect(bound.status).toBe(201);
    expect(await bound.json()).toMatchObject({ subject: `${issuer.url}#user-console`, scopes: ['mcp:tools'], usecase: 'demo' });
    expect((await keys({ scopes: ['mcp:tools'], usecase: 'finance' })).status).toBe(403);
  });
});

describe('the stable pre-registered client id (auth.oauth.defaultClient)', () => {
  it('signs in with novaeden-mcp-default to a listed connector callback, without registering', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const callback = 'https://claude.ai/api/mcp/oauth/callback';
    const r = await signIn(authorizeUrl(as, 'novaeden-mcp-default', await oauth.calculatePKCECodeChallenge(verifier), { redirect: callback }), {
      token: await issuer.mint({ scope: 'mcp:tools:demo' }),
      redirectPrefix: callback,
    });
    expect(r.callback?.searchParams.get('code'), JSON.stringify(r.stopped ?? r.callback?.href)).toBeTruthy();
    // and on loopback (any port), exchanging the code as a public client
    const v2 = oauth.generateRandomCodeVerifier();
    const r2 = await signIn(authorizeUrl(as, 'novaeden-mcp-default', await oauth.calculatePKCECodeChallenge(v2), { redirect: 'http://127.0.0.1:40111/callback' }), {
      token: await issuer.mint({ scope: 'mcp:tools:demo' }),
      redirectPrefix: 'http://127.0.0.1:40111/callback',
    });
    const client = { client_id: 'novaeden-mcp-default', token_endpoint_auth_method: 'none' };
    const params = oauth.validateAuthResponse(as, client, r2.callback!, 'st');
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, 'http://127.0.0.1:40111/callback', v2, { ...insecure, additionalParameters: { resource: `${as.issuer}/mcp` } });
    expect(decodeJwt((await oauth.processAuthorizationCodeResponse(as, client, res)).access_token).usecase).toBe('demo');
  });

  it('refuses a redirect URI that is not in the allowed list, and never grants admin', async () => {
    const r = await signIn(authorizeUrl(as, 'novaeden-mcp-default', 'x'.repeat(43), { redirect: 'https://evil.example/callback' }), { token: '' });
    expect(r.callback).toBeUndefined();
    expect(r.stopped?.status).toBe(400);
    const admin = await signIn(authorizeUrl(as, 'novaeden-mcp-default', 'x'.repeat(43), { scope: 'admin' }), { token: await issuer.mint({ scope: 'admin mcp:tools:demo' }) });
    expect(admin.callback?.searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('client credentials with a JSON body', () => {
  let machine: { clientId: string; secret: string };
  beforeAll(async () => {
    const res = await fetch(`${s.http}/api/v1/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.adminKey },
      body: JSON.stringify({ name: 'script', kind: 'machine', scopes: ['a2a:discover'] }),
    });
    const body = (await res.json()) as { client: { clientId: string }; clientSecret: string };
    machine = { clientId: body.client.clientId, secret: body.clientSecret };
  });
  const json = (path: string, body: unknown) => fetch(`${s.http}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('issues a token for an Auth0-style request (audience, scope) at /oauth/token and /mcp/oauth/token', async () => {
    for (const path of ['/oauth/token', '/mcp/oauth/token']) {
      const res = await json(path, { grant_type: 'client_credentials', client_id: machine.clientId, client_secret: machine.secret, audience: s.http, scope: 'a2a:discover' });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { access_token: string; token_type: string; scope: string };
      expect(body.token_type).toBe('Bearer');
      expect(body.scope).toBe('a2a:discover');
      const agents = await fetch(`${s.http}/a2a/agents`, { headers: { authorization: `Bearer ${body.access_token}` } });
      expect(agents.status).toBe(200);
    }
  });

  it('refuses a wrong secret (invalid_client), a scope beyond the client, and a malformed body', async () => {
    const wrong = await json('/oauth/token', { grant_type: 'client_credentials', client_id: machine.clientId, client_secret: 'nope', scope: 'a2a:discover' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client');
    const beyond = await json('/oauth/token', { grant_type: 'client_credentials', client_id: machine.clientId, client_secret: machine.secret, scope: 'admin' });
    expect(beyond.status).toBe(400);
    expect(((await beyond.json()) as { error: string }).error).toBe('invalid_scope');
    const bad = await json('/oauth/token', '{"grant_type":');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is not valid JSON' });
    const nested = await json('/oauth/token', { grant_type: { x: 1 } });
    expect(nested.status).toBe(400);
  });
});

describe("connectors' callback URLs", () => {
  it('registers the ChatGPT and Claude callbacks of the replaced service and the ChatGPT {callback_id} one', async () => {
    for (const uri of ['https://chatgpt.com/aip/mcp/oauth/callback', 'https://chat.openai.com/aip/mcp/oauth/callback', 'https://claude.ai/api/mcp/oauth/callback', 'https://chatgpt.com/connector/oauth/abc123_XY']) {
      expect((await registerClient(as, uri)).status, uri).toBe(201);
    }
  });

  it('still refuses others, and more than one segment after the ChatGPT prefix', async () => {
    for (const uri of ['https://chatgpt.com/connector/oauth/a/b', 'https://chatgpt.com/connector/oauth/', 'https://evil.example/aip/mcp/oauth/callback', 'https://chatgpt.com/connector/oauth/x?y=1']) {
      expect((await registerClient(as, uri)).status, uri).toBe(400);
    }
  });
});

describe('auto-approve (auth.oauth.tokenLogin.autoApprove)', () => {
  it('signs in and approves with the configured token, without a page', async () => {
    const staging = await startAuthzServer({
      agents: AGENTS,
      auth: { issuers: [issuer.config()], oauth: { login: ['token'], tokenLogin: { autoApprove: { token: await issuer.mint({ scope: 'mcp:tools:demo', expiresIn: '1h' }) } } } },
    });
    try {
      const a = await discover(staging);
      const client = await oauth.processDynamicClientRegistrationResponse(await registerClient(a));
      const verifier = oauth.generateRandomCodeVerifier();
      const r = await signIn(authorizeUrl(a, client.client_id, await oauth.calculatePKCECodeChallenge(verifier)), {});
      expect(r.pages).toEqual([]);
      const params = oauth.validateAuthResponse(a, client, r.callback!, 'st');
      const res = await oauth.authorizationCodeGrantRequest(a, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, additionalParameters: { resource: `${a.issuer}/mcp` } });
      expect(decodeJwt((await oauth.processAuthorizationCodeResponse(a, client, res)).access_token).usecase).toBe('demo');
    } finally {
      await staging.stop();
    }
  });

  it('stops at a page naming the reason when the configured token is refused (expired)', async () => {
    const staging = await startAuthzServer({
      agents: AGENTS,
      auth: { issuers: [issuer.config()], oauth: { login: ['token'], tokenLogin: { autoApprove: { token: await issuer.mint({ scope: 'mcp:tools:demo', expiresIn: Math.floor(Date.now() / 1000) - 60 }) } } } },
    });
    try {
      const a = await discover(staging);
      const client = await oauth.processDynamicClientRegistrationResponse(await registerClient(a));
      const r = await signIn(authorizeUrl(a, client.client_id, 'x'.repeat(43)), {});
      expect(r.callback).toBeUndefined();
      expect(r.stopped?.status).toBe(401);
      expect(r.stopped?.body).toContain('Automatic approval failed');
    } finally {
      await staging.stop();
    }
  });

  it('is refused on a non-loopback host unless allowPublicBind, and always warned about', () => {
    const config = (host: string, allowPublicBind?: boolean) =>
      parseConfig(
        { server: { host }, auth: { issuers: [issuer.config()], oauth: { login: ['token'], tokenLogin: { autoApprove: { token: 'x.y.z', ...(allowPublicBind ? { allowPublicBind } : {}) } } } } },
        { env: {}, cwd: '/' },
      );
    const warnings: string[] = [];
    const log = { warn: (m: string) => void warnings.push(m) };
    expect(() => checkTokenAutoApprove(config('0.0.0.0'), log)).toThrow(/autoApprove would approve every sign-in on 0\.0\.0\.0/);
    checkTokenAutoApprove(config('0.0.0.0', true), log);
    checkTokenAutoApprove(config('127.0.0.1'), log);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/AUTO-APPROVE IS ON.*0\.0\.0\.0/);
  });

  it('needs token in auth.oauth.login, and token login needs an issuer', () => {
    expect(() => parseConfig({ auth: { oauth: { tokenLogin: { autoApprove: { token: 'x' } } } } }, { env: {}, cwd: '/' })).toThrow(/add token to auth\.oauth\.login/);
    expect(() => parseConfig({ auth: { oauth: { login: ['token'] } } }, { env: {}, cwd: '/' })).toThrow(/configure at least one issuer/);
  });
});
