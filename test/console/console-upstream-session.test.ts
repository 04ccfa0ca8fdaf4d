/**
 * A console session for an account signed in at the upstream OpenID Provider (no local user row),
 * over plain HTTP with the real upstream of test/auth/oauth/upstream-idp.ts: the session acts for
 * `<issuer>#<subject>` with the scopes the console's grant gave (never more: not `admin`, although
 * the console asks for it), sees only its own tasks, never outlives its grant, and ends at the next
 * request once its grant is revoked. A real server (SQLite), the real code flow with PKCE.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../core/tasks/engine-harness.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import { signInUpstream, startUpstream, upstreamConfig, type UpstreamIdp } from '../auth/oauth/upstream-idp.js';
import { rpc, type TestServer } from '../support/server.js';
import { consoleSignIn } from './console-code-flow.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
const MEMBER_SCOPES = ['a2a:discover', 'a2a:publish', 'usage:read'];
/** the grant's lifetime here (auth.oauth.refreshTokenTtlSeconds): shorter than a console session's 8 hours */
const GRANT_SECONDS = 600;

let upstream: UpstreamIdp;
let s: TestServer;

beforeAll(async () => {
  upstream = await startUpstream();
  s = await startOAuthServer(
    { auth: { oauth: { refreshTokenTtlSeconds: GRANT_SECONDS, upstream: { ...upstreamConfig(upstream.issuer), allowedDomains: ['example.com'], allowedSubjects: ['bob-52d0'], userScopes: MEMBER_SCOPES } } } },
    [ADMIN],
  );
  await upstream.attach(`${s.http}/oauth/upstream/callback`);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await upstream?.close();
});

const signedInUpstream = (account = 'alice-7f3a') =>
  consoleSignIn(s.http, async (url, redirect) => {
    const run = await signInUpstream(s.http, upstream.issuer, url, { redirect, account });
    expect(run.stoppedAt).toBeUndefined();
    return run.callback;
  });
const asSession = (c: { cookie: string; csrf: string }) => ({ cookie: c.cookie, 'x-csrf-token': c.csrf });

describe('a console session for an upstream account', () => {
  it('acts for <issuer>#<subject> with the scopes the grant gave, never admin; the cookie ends with the grant', async () => {
    const c = await signedInUpstream();
    expect(c.session).toMatchObject({ signedIn: true, username: `${upstream.issuer}#alice-7f3a`, admin: false });
    expect([...c.session.scopes].sort()).toEqual([...MEMBER_SCOPES].sort());
    expect(String(decodeJwt(c.accessToken).scope).split(' ').sort()).toEqual([...MEMBER_SCOPES].sort());
    // The grant lives GRANT_SECONDS: the session (and its cookie) no longer.
    const maxAge = Number(/Max-Age=(\d+)/.exec(c.setCookie)?.[1]);
    expect(maxAge).toBeLessThanOrEqual(GRANT_SECONDS);
    expect(maxAge).toBeGreaterThan(GRANT_SECONDS - 60);
    // A member: the administrator's routes refuse the session, the member's own ones answer.
    expect((await fetch(`${s.http}/api/v1/users`, { headers: asSession(c) })).status).toBe(403);
    const usage = (await (await fetch(`${s.http}/api/v1/usage?since=1h`, { headers: asSession(c) })).json()) as { subject?: string };
    expect(usage.subject).toBe(`${upstream.issuer}#alice-7f3a`);
  });

  it('sees only its own tasks, and naming another owner is refused', async () => {
    const c = await signedInUpstream();
    const mine = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('from the console') }, asSession(c));
    expect(mine.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const theirs = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('from the admin key') }, { 'x-api-key': s.firstAdminKey! });
    expect(theirs.body.result.task.id).toBeTruthy();
    const listed = (await (await fetch(`${s.http}/api/v1/tasks`, { headers: asSession(c) })).json()) as { tasks: Array<{ id: string; owner: string }> };
    expect(listed.tasks.map((t) => t.id)).toContain(mine.body.result.task.id);
    expect(new Set(listed.tasks.map((t) => t.owner))).toEqual(new Set([`${upstream.issuer}#alice-7f3a`]));
    expect((await fetch(`${s.http}/api/v1/tasks?owner=admin`, { headers: asSession(c) })).status).toBe(403);
  });

  it('ends at the next request once its grant is revoked; another account signed in is untouched', async () => {
    const alice = await signedInUpstream();
    const bob = await signedInUpstream('bob-52d0');
    expect(bob.session.username).toBe(`${upstream.issuer}#bob-52d0`);
    const grantId = String(decodeJwt(alice.accessToken).grant_id);
    const account = encodeURIComponent(alice.session.username);
    const revoked = await fetch(`${s.http}/api/v1/users/${account}/grants/${grantId}`, { method: 'DELETE', headers: { 'x-api-key': s.firstAdminKey! } });
    expect(revoked.status).toBe(204);
    expect((await fetch(`${s.http}/api/v1/tasks`, { headers: asSession(alice) })).status).toBe(401);
    expect(((await (await fetch(`${s.http}/console/session`, { headers: { cookie: alice.cookie } })).json()) as { signedIn: boolean }).signedIn).toBe(false);
    expect((await fetch(`${s.http}/api/v1/tasks`, { headers: asSession(bob) })).status).toBe(200);
    // The revoked grant's token no longer starts a session either.
    const again = await fetch(`${s.http}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken: alice.accessToken }) });
    expect(again.status).toBe(401);
  });

  it('sign-out ends every console session of the account', async () => {
    const first = await signedInUpstream();
    const second = await signedInUpstream();
    const end = await fetch(`${s.http}/console/session/end`, { method: 'POST', headers: asSession(first) });
    expect(end.status).toBe(204);
    for (const c of [first, second]) expect((await fetch(`${s.http}/api/v1/tasks`, { headers: asSession(c) })).status).toBe(401);
  });

  it('records the session start with the account and its scopes', async () => {
    const c = await signedInUpstream('bob-52d0');
    await s.audit.flush();
    const res = await fetch(`${s.http}/api/v1/audit?action=console.session.started&actor=${encodeURIComponent(c.session.username)}`, { headers: { 'x-api-key': s.firstAdminKey! } });
    const { records } = (await res.json()) as { records: Array<{ actorClient: string; target: string; details: { scopes: string[] } }> };
    expect(records.at(-1)).toMatchObject({ actorClient: 'agentport-console', target: `user:${c.session.username}` });
    expect(records.at(-1)!.details.scopes.sort()).toEqual([...MEMBER_SCOPES].sort());
  });
});
