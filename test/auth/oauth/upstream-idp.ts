/**
 * The upstream OpenID Provider of the tests of `auth.oauth.upstream` (a second, minimal
 * oidc-provider on 127.0.0.2, so its cookies never mix with Agentport's on 127.0.0.1): one static
 * confidential client, three accounts, and its login and consent "pages". A test's fetch-based
 * browser gets them as JSON (`{prompt}`) and answers with a form post; a real browser (Chromium,
 * asking for text/html) gets plain HTML forms to fill in. Also: the fetch-based browser and the
 * walk from an authorize URL through the upstream back to a client's redirect URI.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Provider } from 'oidc-provider';
import { loadOidcProvider } from '../../../src/auth/oauth/load-provider.js';
import { CookieJar } from './support.js';

export const UPSTREAM_CLIENT = { id: 'agentport', secret: 'upstream-client-secret-0123456789' };
/** the upstream's accounts: alice may sign in to Agentport (allowedDomains), bob too (allowedSubjects), mallory may not */
export const ACCOUNTS: Record<string, { email: string }> = {
  'alice-7f3a': { email: 'alice@example.com' },
  'bob-52d0': { email: 'bob@contractor.test' },
  'mallory-1c9e': { email: 'mallory@evil.test' },
};

/** The upstream settings of Agentport's config for this IdP (add `allowedDomains`, `userScopes`, … as needed). */
export const upstreamConfig = (issuer: string) => ({ issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret, label: 'Test IdP', allowHosts: ['127.0.0.0/8'] });

type Tamper = 'aud' | 'signature' | undefined;

export interface UpstreamIdp {
  issuer: string;
  /** builds the provider once Agentport's callback URL is known */
  attach(redirectUri: string): Promise<void>;
  /** the next ID tokens re-signed with another audience or by an unpublished key */
  tamper(t: Tamper): void;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<UpstreamIdp> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
  const issuer = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
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

/** The upstream's login and consent pages: GET says which prompt (HTML for a browser), POST answers it. */
async function upstreamInteraction(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    if ((req.headers.accept ?? '').includes('text/html')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(interactionPage(details.prompt.name));
    }
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

function interactionPage(prompt: string): string {
  const fields = prompt === 'login' ? '<label>Account <input name="login" id="upstream-login"></label><button type="submit">Sign in at Test IdP</button>' : '<button type="submit">Allow at Test IdP</button>';
  return `<!doctype html><html lang="en"><head><title>Test IdP</title></head><body><main><h1>Test IdP</h1><form method="post">${fields}</form></main></body></html>`;
}

/** One browser: a cookie jar per host, as cookies are kept per host. */
export class Browser {
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

export const formOf = (html: string, suffix: string) => {
  const m = new RegExp(`<form method="post" action="([^"]*/${suffix})">\\s*<input type="hidden" name="csrf" value="([^"]*)">`).exec(html);
  return m ? { action: m[1]!, csrf: m[2]! } : undefined;
};

export interface Run {
  callback?: URL;
  stoppedAt?: { status: number; url: string; body: string };
  pages: string[];
  /** the upstream's redirect to Agentport's callback, as the browser followed it */
  upstreamCallback?: string;
}

/**
 * Drives one browser from Agentport's authorize URL through "Sign in with …", the upstream's
 * login and consent, Agentport's callback and consent, to the client's redirect URI (`redirect`).
 */
export async function signInUpstream(
  agentport: string,
  upstream: string,
  start: string,
  o: { redirect: string; account?: string; browser?: Browser; rewriteUpstreamAuthorize?: (u: URL) => void; stopAtCallback?: boolean },
): Promise<Run> {
  const browser = o.browser ?? new Browser();
  const pages: string[] = [];
  let upstreamCallback: string | undefined;
  let url = start;
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 25; hop++) {
    if (url.startsWith(o.redirect)) return { callback: new URL(url), pages, ...(upstreamCallback ? { upstreamCallback } : {}) };
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
