/**
 * The console behind a reverse proxy, in Chromium. The proxy is another origin than the server's
 * own listener and `server.publicUrl` names it: sign-in, the session cookie, the assets and the
 * API calls all go through it. Under a path prefix (`/ap/`, stripped by the proxy), the console's
 * page, assets and session route resolve below the prefix and its sign-in points back there.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };

interface Proxied {
  url: string;
  /** every path the proxy forwarded, as the server saw it */
  forwarded: string[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A server behind a proxy that serves it at `prefix` (stripped) and passes the OAuth server's root paths through. */
async function behindProxy(prefix: string): Promise<Proxied> {
  const forwarded: string[] = [];
  const port = await freePort();
  const proxy: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = prefix === '' ? url : url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : url.startsWith('/oauth/') ? url : undefined;
    if (path === undefined) {
      res.writeHead(404).end('not proxied');
      return;
    }
    forwarded.push(path.split('?')[0]!);
    const out = request({ host: '127.0.0.1', port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${prefix}`;
  // The server's own port, free a moment ago: its urls name the public URL, not the listener.
  const s: TestServer = await startOAuthServer({ server: { port, publicUrl: url }, agents: [{ id: 'echo', builtin: 'echo' }] }, [ADMIN]);
  return {
    url,
    forwarded,
    async stop() {
      await s.stop();
      await new Promise((resolve) => proxy.close(resolve));
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

describe('under a path prefix', () => {
  let p: Proxied;
  beforeAll(async () => {
    p = await behindProxy('/ap');
  }, 60_000);
  afterAll(async () => p?.stop());

  it('loads below the prefix, reaches its session route there, and signs in back to it', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
    await page.goto(`${p.url}/console`);
    expect(page.url()).toBe(`${p.url}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
    expect(p.forwarded.slice(0, 2)).toEqual(['/console', '/console/']);
    expect(p.forwarded).toContain('/console/session');
    expect(p.forwarded.filter((x) => !x.startsWith('/console/assets/') && !x.startsWith('/console/session') && x !== '/console' && x !== '/console/')).toEqual([]);
    const settings = await page.evaluate(async () => ((await (await fetch('session')).json()) as { signIn: { redirectUri: string } }).signIn);
    expect(settings.redirectUri).toBe(`${p.url}/console/`);
    await page.close();
  });
});
