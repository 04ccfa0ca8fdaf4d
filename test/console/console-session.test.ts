/**
 * The console's session over plain HTTP (no browser): what `POST /console/session` accepts and
 * refuses, the session as a credential (only with its CSRF header), a user's deletion or loss of
 * `admin` taking effect at the next request, and the consent page skipped for the console's
 * client only. A real server (SQLite), the real OAuth code flow with PKCE.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
const CAROL = { username: 'carol', password: 'console member password 2', scopes: ['admin'] };

let s: TestServer;

beforeAll(async () => {
  s = await startOAuthServer({}, [ADMIN, CAROL]);
}, 60_000);
afterAll(async () => s?.stop());

/** The code flow with PKCE for `clientId`, as the console runs it; returns the access token. */
async function accessToken(user: { username: string; password: string }, clientId = 'agentport-console', redirectUri = `${s.http}/console/`, scope = 'admin'): Promise<{ token?: string; pages: string[] }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope, state: 'st', code_challenge: challenge, code_challenge_method: 'S256' });
  const flow = await browse(s, `${s.http}/oauth/authorize?${q}`, { redirectPrefix: redirectUri, user });
  const code = flow.callback?.searchParams.get('code');
  if (!code) return { pages: flow.pages };
  const res = await fetch(`${s.http}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  return { token: ((await res.json()) as { access_token: string }).access_token, pages: flow.pages };
}

async function startSession(token: string, contentType = 'application/json'): Promise<Response> {
  return fetch(`${s.http}/console/session`, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify({ accessToken: token }) });
}

/** A signed-in console: its cookie header and CSRF token. */
async function signedIn(user: { username: string; password: string }): Promise<{ cookie: string; csrf: string }> {
  const { token } = await accessToken(user);
  const res = await startSession(token!);
  expect(res.status).toBe(201);
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
  const session = (await (await fetch(`${s.http}/console/session`, { headers: { cookie } })).json()) as { csrf: string; username: string };
  expect(session.username).toBe(user.username);
  return { cookie, csrf: session.csrf };
}

describe('signing in', () => {
  it('the console client gets no consent page; the cookie is HttpOnly, SameSite=Strict, not Secure on http, for 8 hours', async () => {
    const { token, pages } = await accessToken(ADMIN);
    expect(pages.some((p) => p.includes('name="decision"'))).toBe(false);
    const res = await startSession(token!);
    expect(res.status).toBe(201);
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^ap_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a body that is not JSON, a token that does not verify, and a token of another client', async () => {
    const { token } = await accessToken(ADMIN);
    expect((await startSession(token!, 'text/plain')).status).toBe(400);
    expect((await startSession(`${token!.slice(0, -4)}AAAA`)).status).toBe(401);
    // Another public client: registered by the administrator, it gets the consent page and its own token.
    const reg = await fetch(`${s.http}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'other', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
    });
    const other = ((await reg.json()) as { client_id: string }).client_id;
    const foreign = await accessToken(ADMIN, other, 'http://127.0.0.1/cb', 'a2a:discover');
    expect(foreign.pages.some((p) => p.includes('name="decision"'))).toBe(true);
    const refused = await startSession(foreign.token!);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/not issued to the console/);
  });
});

describe('the session as a credential', () => {
  it('counts only with its CSRF header, ends at sign-out, and follows the user: scope removed or user deleted ends it', async () => {
    const { cookie, csrf } = await signedIn(CAROL);
    // An administrator's route: a member's session is refused it (403), an ended session is anonymous (401).
    const users = (headers: Record<string, string>) => fetch(`${s.http}/api/v1/users`, { headers });
    expect((await users({ cookie, 'x-csrf-token': csrf })).status).toBe(200);
    expect((await users({ cookie })).status).toBe(401);
    expect((await users({ 'x-csrf-token': csrf })).status).toBe(401);

    // The administrator takes carol's admin scope away: her sessions end there and then.
    const admin = await signedIn(ADMIN);
    const asAdmin = { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/json' };
    expect((await fetch(`${s.http}/api/v1/users/carol`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ scopes: ['a2a:discover'] }) })).status).toBe(200);
    expect((await users({ cookie, 'x-csrf-token': csrf })).status).toBe(401);
    // Signed in again without admin: the session is hers, and the management API refuses it.
    const again = await signedIn(CAROL);
    expect((await users({ cookie: again.cookie, 'x-csrf-token': again.csrf })).status).toBe(403);
    expect((await fetch(`${s.http}/api/v1/users/carol`, { method: 'DELETE', headers: asAdmin })).status).toBe(204);
    expect((await fetch(`${s.http}/api/v1/agents`, { headers: { cookie: again.cookie, 'x-csrf-token': again.csrf } })).status).toBe(401);

    // Sign-out: needs the CSRF header too, then the session is gone.
    expect((await fetch(`${s.http}/console/session/end`, { method: 'POST', headers: { cookie: admin.cookie } })).status).toBe(401);
    const end = await fetch(`${s.http}/console/session/end`, { method: 'POST', headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf } });
    expect(end.status).toBe(204);
    expect(end.headers.getSetCookie()[0]).toMatch(/^ap_console=; .*Max-Age=0$/);
    expect((await users({ cookie: admin.cookie, 'x-csrf-token': admin.csrf })).status).toBe(401);
    expect(((await (await fetch(`${s.http}/console/session`, { headers: { cookie: admin.cookie } })).json()) as { signedIn: boolean }).signedIn).toBe(false);
  });
});
