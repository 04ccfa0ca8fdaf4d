/**
 * The console behind a reverse proxy, in Chromium. The proxy is another origin than the server's
 * own listener and `server.publicUrl` names it: sign-in, the session cookie, the assets and the
 * API calls all go through it. Under a path prefix (`/ap/`), with a proxy that strips it and one
 * that passes it on, and forwards nothing outside it: sign-in (the OAuth server's pages, its
 * redirects and cookies), a page, an API call and sign-out all stay below the prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startOAuthServer } from '../auth/oauth/support.js';
import { freePort } from '../support/private-services.js';
import { startReverseProxy, type ReverseProxy } from '../support/reverse-proxy.js';
import type { TestServer } from '../support/server.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };

interface Proxied {
  url: string;
  /** every path the proxy forwarded, as the server saw it */
  forwarded: string[];
  /** every path the proxy refused (outside the prefix) */
  refused: string[];
  stop(): Promise<void>;
}

/** A server behind a proxy that serves it at `prefix`, stripped or passed on. */
async function behindProxy(prefix: string, strip = true): Promise<Proxied> {
  const port = await freePort();
  const proxy: ReverseProxy = await startReverseProxy({ targetPort: port, prefix, strip });
  // The server's own port, free a moment ago: its urls name the public URL, not the listener.
  const s: TestServer = await startOAuthServer({ server: { port, publicUrl: proxy.url }, agents: [{ id: 'echo', builtin: 'echo' }] }, [ADMIN]);
  return {
    url: proxy.url,
    forwarded: proxy.forwarded,
    refused: proxy.refused,
    async stop() {
      await s.stop();
      await proxy.stop();
    },
  };
}

let browser: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('behind a reverse proxy on another origin', () => {
  let p: Proxied;
  beforeAll(async () => {
    p = await behindProxy('');
  }, 60_000);
  afterAll(async () => p?.stop());

  it('signs in and calls the management API through the proxy only', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
    await page.goto(`${p.url}/console`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.fill('#username', ADMIN.username);
    await page.fill('#password', ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#signed-in-as').waitFor();
    expect(page.url()).toBe(`${p.url}/console/`);
    await page.goto(`${p.url}/console/#/keys`);
    // The first start's admin key is listed: the API answered through the proxy with the session.
    await page.getByRole('table', { name: 'Keys' }).waitFor();
    expect(await page.locator('.problem').count()).toBe(0);
    expect(problems).toEqual([]);
    expect(p.forwarded).toEqual(expect.arrayContaining(['/console', '/console/', '/console/session', '/oauth/authorize', '/oauth/token', '/api/v1/keys', '/readyz']));
    await page.close();
  });
});

describe.each([
  { name: 'a proxy that strips it', strip: true },
  { name: 'a proxy that passes it on', strip: false },
])('under a path prefix, behind $name', ({ strip }) => {
  let p: Proxied;
  beforeAll(async () => {
    p = await behindProxy('/ap', strip);
  }, 60_000);
  afterAll(async () => p?.stop());

  it('signs in, opens a page, calls the API and signs out, all below the prefix; cookies are scoped to it', async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
    await browser.context.clearCookies();
    await page.goto(`${p.url}/console`);
    expect(page.url()).toBe(`${p.url}/console/`);
    const settings = await page.evaluate(async () => ((await (await fetch('session')).json()) as { signIn: { redirectUri: string; authorizeUrl: string; tokenUrl: string } }).signIn);
    expect(settings).toMatchObject({ redirectUri: `${p.url}/console/`, authorizeUrl: `${p.url}/oauth/authorize`, tokenUrl: `${p.url}/oauth/token` });

    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(new RegExp(`^${p.url}/oauth/interaction/`));
    // oidc-provider's cookies: the interaction's on its own path, the session below the prefix.
    const during = await browser.context.cookies();
    expect(during.find((c) => c.name === '_interaction')?.path).toMatch(/^\/ap\/oauth\/interaction\//);
    await page.fill('#username', ADMIN.username);
    await page.fill('#password', ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#signed-in-as').waitFor();
    expect(page.url()).toBe(`${p.url}/console/`);
    const cookies = await browser.context.cookies();
    expect(cookies.find((c) => c.name === 'ap_console')?.path).toBe('/ap/');
    expect(cookies.find((c) => c.name === '_session')?.path).toBe('/ap/');

    // A page, and a call made by the page with the session.
    await page.goto(`${p.url}/console/#/keys`);
    await page.getByRole('table', { name: 'Keys' }).waitFor();
    expect(await page.locator('.problem').count()).toBe(0);
    const agents = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      const res = await fetch('../api/v1/agents', { headers: { 'X-CSRF-Token': session.csrf, Accept: 'application/json' } });
      return { status: res.status, url: res.url, body: (await res.json()) as { agents: Array<{ id: string; url: string }> } };
    });
    expect(agents.status).toBe(200);
    expect(agents.url).toBe(`${p.url}/api/v1/agents`);
    expect(agents.body.agents.find((a) => a.id === 'echo')?.url).toBe(`${p.url}/a2a/echo`);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(async () => ((await (await fetch('session')).json()) as { signedIn: boolean }).signedIn)).toBe(false);

    expect(problems).toEqual([]);
    // Nothing asked outside the prefix (Chromium's own favicon request aside).
    expect(p.refused.filter((x) => x !== '/favicon.ico')).toEqual([]);
    const base = strip ? '' : '/ap';
    expect(p.forwarded).toEqual(expect.arrayContaining([`${base}/console/`, `${base}/console/session`, `${base}/oauth/authorize`, `${base}/oauth/token`, `${base}/api/v1/keys`, `${base}/api/v1/agents`]));
    await page.close();
  });
});
