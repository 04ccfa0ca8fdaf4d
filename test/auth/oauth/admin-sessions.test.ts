/**
 * The `/mcp/config/` page's sessions are the server's (issue 19, D1 and D8): a deleted user's
 * cookie opens nothing, sign-out ends every session of the user, and the login form's CSRF token
 * belongs to one browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { CookieJar, startOAuthServer, USER } from './support.js';

const ADMIN_KEY = 'admin-key-for-the-session-tests-0001';
const BOSS = { username: 'boss', password: 'a long admin password 43', scopes: ['admin'] };
const ROOT = { username: 'root', password: 'a long admin password 44', scopes: ['admin'] };
const DEPUTY = { username: 'deputy', password: 'a long admin password 46', scopes: ['admin'] };

describe('/mcp/config/ sessions', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startOAuthServer({ auth: { apiKeys: [{ key: ADMIN_KEY, subject: 'ops', scopes: ['admin'] }] } }, [USER, BOSS, ROOT, DEPUTY]);
  });
  afterAll(async () => s?.stop());

  const tokenOf = (html: string, action: string) => new RegExp(`action="/mcp/config${action}"><input type="hidden" name="csrf" value="([^"]+)"`).exec(html)?.[1];
  const post = (jar: CookieJar, path: string, form: Record<string, string>) =>
    fetch(`${s.http}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  const pageWith = async (jar: CookieJar) => (await fetch(`${s.http}/mcp/config/`, { headers: { cookie: jar.header() } })).text();

  async function signIn(user: { username: string; password: string }): Promise<CookieJar> {
    const jar = new CookieJar();
    const form = await fetch(`${s.http}/mcp/config/`);
    jar.take(form);
    const res = await post(jar, '/mcp/config/login', { csrf: tokenOf(await form.text(), '/login')!, ...user });
    expect(res.status).toBe(303);
    jar.take(res);
    expect(await pageWith(jar)).toContain('Register a client');
    return jar;
  }

  const clientNames = async () => {
    const res = await fetch(`${s.http}/api/v1/clients`, { headers: { 'x-api-key': ADMIN_KEY } });
    return ((await res.json()) as { clients: Array<{ name?: string }> }).clients.map((c) => c.name);
  };

  it('a deleted user’s cookie and CSRF token can no longer register an admin machine client', async () => {
    const jar = await signIn(BOSS);
    const csrf = tokenOf(await pageWith(jar), '/clients')!;
    const deleted = await fetch(`${s.http}/api/v1/users/${BOSS.username}`, { method: 'DELETE', headers: { 'x-api-key': ADMIN_KEY } });
    expect(deleted.status).toBe(204);

    const created = await post(jar, '/mcp/config/clients', { csrf, name: 'Left behind by boss', kind: 'machine', scopes: 'admin' });
    expect(created.status).toBe(403);
    expect(await created.text()).not.toContain('Client secret');
    expect(await clientNames()).not.toContain('Left behind by boss');
    expect(await pageWith(jar)).not.toContain('Register a client');
  });

  it('a user who loses the admin scope loses the page at the next request', async () => {
    const jar = await signIn(DEPUTY);
    const csrf = tokenOf(await pageWith(jar), '/clients')!;
    const changed = await fetch(`${s.http}/api/v1/users/${DEPUTY.username}`, {
      method: 'PATCH',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['a2a:discover'] }),
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ user: { username: DEPUTY.username, scopes: ['a2a:discover'] } });
    expect((await post(jar, '/mcp/config/clients', { csrf, name: 'After demotion', kind: 'machine' })).status).toBe(403);
    expect(await clientNames()).not.toContain('After demotion');
  });

  it('sign-out ends every session of the user, the cookie it was sent with included', async () => {
    const [first, second] = [await signIn(ROOT), await signIn(ROOT)];
    const kept = first.header();
    const out = await post(first, '/mcp/config/logout', { csrf: tokenOf(await pageWith(first), '/logout')! });
    expect(out.status).toBe(303);
    // A copy of the cookie from before the sign-out (the browser's copy is cleared) opens nothing.
    const replay = await (await fetch(`${s.http}/mcp/config/`, { headers: { cookie: kept } })).text();
    expect(replay).not.toContain('Register a client');
    expect(replay).toContain('Sign in as an administrator');
    expect(await pageWith(second)).not.toContain('Register a client');
  });

  it('gives each browser its own login CSRF token, valid only with that browser’s cookie', async () => {
    const visit = async () => {
      const jar = new CookieJar();
      const res = await fetch(`${s.http}/mcp/config/`);
      jar.take(res);
      return { jar, csrf: tokenOf(await res.text(), '/login')! };
    };
    const [a, b] = [await visit(), await visit()];
    const credentials = { username: ROOT.username, password: ROOT.password };
    expect(a.csrf).not.toBe(b.csrf);
    expect((await post(b.jar, '/mcp/config/login', { csrf: a.csrf, ...credentials })).status).toBe(403);
    expect((await post(new CookieJar(), '/mcp/config/login', { csrf: a.csrf, ...credentials })).status).toBe(403);
    expect((await post(a.jar, '/mcp/config/login', { csrf: a.csrf, ...credentials })).status).toBe(303);
  });

  it('binds each form’s token to its action and its session', async () => {
    const [one, two] = [await signIn(ROOT), await signIn(ROOT)];
    const page = await pageWith(one);
    const register = tokenOf(page, '/clients')!;
    expect(tokenOf(page, '/logout')).not.toBe(register);
    // The register token does not sign the user out; another session's token does not register.
    expect((await post(one, '/mcp/config/logout', { csrf: register })).status).toBe(403);
    expect((await post(two, '/mcp/config/clients', { csrf: register, name: 'Other session', kind: 'machine' })).status).toBe(403);
    expect((await post(one, '/mcp/config/clients', { csrf: register, name: 'Same session', kind: 'machine' })).status).toBe(201);
  });
});
