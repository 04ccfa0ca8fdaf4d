/**
 * The `/mcp/config/` admin page: administrators only, CSRF-checked forms, register and delete a
 * client without JavaScript.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { CookieJar, startOAuthServer, USER } from './support.js';

const ADMIN = { username: 'root', password: 'a long admin password 42', scopes: ['admin'] };

describe('/mcp/config/ page', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startOAuthServer({}, [USER, ADMIN]);
  });
  afterAll(async () => s?.stop());

  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const post = (jar: CookieJar, path: string, form: Record<string, string>) =>
    fetch(`${s.http}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

  async function signIn(user: { username: string; password: string }) {
    const jar = new CookieJar();
    // The login form's CSRF token is bound to a cookie set with the form, as a browser keeps it.
    const login = await fetch(`${s.http}/mcp/config/`);
    jar.take(login);
    const html = await login.text();
    expect(html).toContain('<label for="u">Username</label>');
    expect(html).not.toMatch(/<script/i);
    const res = await post(jar, '/mcp/config/login', { csrf: csrfOf(html), ...user });
    jar.take(res);
    return { jar, res };
  }

  it('refuses a user without the admin scope', async () => {
    const { res } = await signIn(USER);
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('registers and deletes a client; forms without the session CSRF token are refused', async () => {
    const { jar, res } = await signIn(ADMIN);
    expect(res.status).toBe(303);
    const page = await (await fetch(`${s.http}/mcp/config/`, { headers: { cookie: jar.header() } })).text();
    expect(page).toContain('Register a client');
    const csrf = csrfOf(page);

    expect((await post(jar, '/mcp/config/clients', { csrf: 'forged', name: 'x', kind: 'machine' })).status).toBe(403);
    expect((await post(new CookieJar(), '/mcp/config/clients', { csrf, name: 'x', kind: 'machine' })).status).toBe(403);

    const created = await post(jar, '/mcp/config/clients', { csrf, name: 'Report bot', kind: 'confidential', redirectUris: 'https://bot.example/cb' });
    expect(created.status).toBe(201);
    const html = await created.text();
    const id = /Registered <code>([^<]+)<\/code>/.exec(html)![1]!;
    expect(html).toContain('Client secret (shown only now)');
    expect(html).toContain('Report bot');

    // Each form has its own token: the delete form's, from the page listing the new client.
    const deleteToken = new RegExp(`action="/mcp/config/clients/delete"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="clientId" value="${id}"`).exec(html)![1]!;
    expect(deleteToken).not.toBe(csrf);
    expect((await post(jar, '/mcp/config/clients/delete', { csrf, clientId: id })).status).toBe(403);
    const deleted = await post(jar, '/mcp/config/clients/delete', { csrf: deleteToken, clientId: id });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).not.toContain(`<td><code>${id}</code>`);
  });
});

describe('password guessing', () => {
  it('refuses sign-in attempts after 5 failures, even with the right password', async () => {
    const s = await startOAuthServer({}, [ADMIN]);
    try {
      const jar = new CookieJar();
      const form = await fetch(`${s.http}/mcp/config/`);
      jar.take(form);
      const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const attempt = (password: string) =>
        fetch(`${s.http}/mcp/config/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, username: ADMIN.username, password }),
        });
      for (let i = 0; i < 5; i++) expect((await attempt(`wrong guess number ${i}`)).status).toBe(401);
      const right = await attempt(ADMIN.password);
      expect(right.status).toBe(429);
      expect(right.headers.get('retry-after')).toBe('2');
      expect(right.headers.get('set-cookie')).toBeNull();
    } finally {
      await s.stop();
    }
  });
});
