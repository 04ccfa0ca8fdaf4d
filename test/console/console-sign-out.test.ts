/**
 * Issue 25, CS1 and CS2: console sign-out ends what the sign-in started, on a real server with a
 * browser stand-in (one cookie jar throughout):
 * - CS2: the grant behind the session is revoked, so the console's access token neither works as
 *   a bearer nor opens a new console session;
 * - CS1: the authorization server's browser session ends too: the same browser asked to authorize
 *   another app is shown the login page again (not approved as the previous user), and a second
 *   user signs in to the console as themselves.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, CookieJar, startOAuthServer, USER } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';
import { consoleSignIn } from './console-code-flow.js';

const BOB = { username: 'bob', password: 'second console user password', scopes: ['a2a:discover'] };
const REDIRECT = 'http://127.0.0.1:53682/callback';
const loginShown = (pages: string[]) => pages.some((p) => /<form method="post" action="[^"]*\/login"/.test(p));

let s: TestServer;
beforeAll(async () => {
  s = await startOAuthServer({}, [{ ...USER, scopes: ['a2a:discover', 'a2a:publish'] }, BOB]);
}, 60_000);
afterAll(async () => s?.stop());

async function appAuthorization(jar: CookieJar, clientId: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'a2a:discover',
    state: 'st',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return browse(s, `${s.http}/oauth/authorize?${q}`, { redirectPrefix: REDIRECT, jar });
}

describe('console sign-out', () => {
  it('revokes the grant behind the session, ends the provider session, and lets another user sign in', async () => {
    const reg = await fetch(`${s.http}/api/v1/clients`, {
      method: 'POST',
      headers: { 'x-api-key': s.firstAdminKey!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Another app', kind: 'public', redirectUris: [REDIRECT] }),
    });
    const clientId = ((await reg.json()) as { client: { clientId: string } }).client.clientId;

    const jar = new CookieJar();
    const alice = await consoleSignIn(s.http, async (url, redirect) => (await browse(s, url, { redirectPrefix: redirect, user: USER, jar })).callback);
    expect(alice.session.username).toBe(USER.username);
    // While signed in, the browser's provider session approves without the password (the control).
    expect(loginShown((await appAuthorization(jar, clientId)).pages)).toBe(false);

    const out = await fetch(`${s.http}/console/session/end`, { method: 'POST', headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrf } });
    expect(out.status).toBe(204);

    // CS2: the console's token is over.
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { authorization: `Bearer ${alice.accessToken}` } })).status).toBe(401);
    const again = await fetch(`${s.http}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken: alice.accessToken }) });
    expect(again.status).toBe(401);

    // CS1: the same browser is asked for a password again…
    const next = await appAuthorization(jar, clientId);
    expect(loginShown(next.pages)).toBe(true);
    // …and a second user signs in to the console as themselves.
    const bob = await consoleSignIn(s.http, async (url, redirect) => (await browse(s, url, { redirectPrefix: redirect, user: BOB, jar })).callback);
    expect(bob.session).toMatchObject({ username: BOB.username, scopes: BOB.scopes });
  });
});
