/**
 * The console's sessions (src/auth/sessions/console-sessions.ts) in process, on a real SQLite
 * store: who a session is begun for and with which scopes, what a request needs to be the
 * session's user (the cookie AND the CSRF header), and what sign-out ends. The rules are the
 * module's documented ones (docs/console.md, ADR 0022).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSessions } from '../../../src/auth/sessions/browser-sessions.js';
import { CONSOLE_CLIENT_ID, CONSOLE_COOKIE, CONSOLE_SESSION_SECONDS, ConsoleSessions, consoleUrlOf, cookieValue, CSRF_HEADER } from '../../../src/auth/sessions/console-sessions.js';
import type { Principal } from '../../../src/core/authz/principal.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-console-sessions-'));
let store: Store;
const HOUR = 3_600_000;

beforeAll(async () => {
  store = await openSqliteStore({ file: path.join(dir, 'oauth.db') });
  await store.migrate();
  await store.oauth.putUser({ username: 'carol', passwordHash: 'x', scopes: ['a2a:discover', 'admin'], createdAt: Date.now() });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const tokenOf = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();
const person = (subject: string, scopes: string[], more: Partial<Principal> = {}): Principal => ({ subject, authenticated: true, clientId: CONSOLE_CLIENT_ID, scopes, ...more });
const grant = (accountId: string, more: Record<string, unknown> = {}, expiresAt = Date.now() + 24 * HOUR) => ({ payload: { accountId, clientId: CONSOLE_CLIENT_ID, ...more }, expiresAt });

async function error(p: Promise<unknown>): Promise<A2AError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof A2AError) return e;
    throw e;
  }
  throw new Error('expected an A2AError');
}

async function asRequest(sessions: ConsoleSessions, token: string): Promise<Record<string, string>> {
  const s = await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${token}` });
  if (!s) throw new Error('no session');
  return { cookie: `other=1; ${CONSOLE_COOKIE}=${token}`, [CSRF_HEADER]: await sessions.csrfToken(s) };
}

describe('cookieValue', () => {
  it('finds the named cookie among others, in one header or several; a longer name is another cookie', () => {
    expect(cookieValue('a=1; ap_console=xyz; b=2', 'ap_console')).toBe('xyz');
    expect(cookieValue(['a=1', 'ap_console=v=w'], 'ap_console')).toBe('v=w');
    expect(cookieValue('ap_console_old=1;ap_console=2', 'ap_console')).toBe('2');
    expect(cookieValue('ap_console_old=1', 'ap_console')).toBeUndefined();
    expect(cookieValue(undefined, 'ap_console')).toBeUndefined();
    expect([CONSOLE_COOKIE, CSRF_HEADER, CONSOLE_CLIENT_ID]).toEqual(['ap_console', 'x-csrf-token', 'agentport-console']);
  });

  it('the console lives at /console/ under the public URL, prefix kept', () => {
    expect(consoleUrlOf('https://h.example')).toBe('https://h.example/console/');
    expect(consoleUrlOf('https://h.example/gw')).toBe('https://h.example/gw/console/');
    expect(consoleUrlOf('https://h.example/gw/')).toBe('https://h.example/gw/console/');
  });
});

describe('begin', () => {
  it('a local user: the user’s scopes, the session on the console grant and ending with it (never after it)', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const ends = Date.now() + HOUR;
    await store.oauth.upsertRecord('Grant', 'g-carol-1', grant('carol', {}, ends));
    const started = await sessions.begin(person('carol', ['a2a:discover']), tokenOf({ grant_id: 'g-carol-1' }));
    expect(started).toMatchObject({ username: 'carol', scopes: ['a2a:discover', 'admin'], expiresAt: ends });
    expect(await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${started.token}` })).toMatchObject({ username: 'carol', grantId: 'g-carol-1' });
  });

  it('a local user signed in by a token without a grant: a session of the full console length, on no grant', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const before = Date.now();
    const started = await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    expect(started.expiresAt).toBeGreaterThanOrEqual(before + CONSOLE_SESSION_SECONDS * 1000);
    expect(CONSOLE_SESSION_SECONDS).toBe(8 * 3600);
    const s = await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${started.token}` });
    expect(s).toMatchObject({ username: 'carol', scopes: ['a2a:discover', 'admin'] });
    expect(s?.grantId).toBeUndefined();
    // a grant_id that is not a string names no grant
    expect((await sessions.begin(person('carol', []), tokenOf({ grant_id: 5 }))).username).toBe('carol');
    expect((await sessions.begin(person('carol', []), 'not a jwt')).username).toBe('carol');
    expect((await sessions.begin(person('carol', []), tokenOf({ grant_id: '' }))).username).toBe('carol');
  });

  it('refuses a token whose grant has ended, is another account’s or another client’s', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    await store.oauth.upsertRecord('Grant', 'g-other', grant('dave'));
    await store.oauth.upsertRecord('Grant', 'g-app', grant('carol', { clientId: 'some-app' }));
    for (const id of ['g-missing', 'g-other', 'g-app']) {
      const e = await error(sessions.begin(person('carol', []), tokenOf({ grant_id: id })));
      expect(e.kind).toBe('Unauthenticated');
      expect(e.message).toBe('The sign-in this token came from has ended; sign in again');
    }
  });

  it('an account with no user row: only the scopes both its token and its grant’s resources hold, and its usecase', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const account = 'https://idp.example#alice';
    await store.oauth.upsertRecord('Grant', 'g-alice', grant(account, { resources: { 'https://h/a2a': 'a2a:discover a2a:publish', 'https://h/mcp': 'mcp:tools', odd: 7 } }));
    const started = await sessions.begin(person(account, ['a2a:discover', 'mcp:tools', 'admin'], { usecase: 'demo' }), tokenOf({ grant_id: 'g-alice' }));
    expect(started).toMatchObject({ username: account, scopes: ['a2a:discover', 'mcp:tools'] });
    const headers = await asRequest(sessions, started.token);
    expect(await sessions.authenticate(headers)).toStrictEqual({ subject: account, authenticated: true, clientId: CONSOLE_CLIENT_ID, scopes: ['a2a:discover', 'mcp:tools'], usecase: 'demo', grantId: 'g-alice' });
    // a grant ending before the console's eight hours ends the session with it
    const soon = Date.now() + HOUR;
    await store.oauth.upsertRecord('Grant', 'g-alice-soon', grant(account, { resources: { a: 'a2a:discover' } }, soon));
    expect((await sessions.begin(person(account, ['a2a:discover']), tokenOf({ grant_id: 'g-alice-soon' }))).expiresAt).toBe(soon);
    await store.oauth.upsertRecord('Grant', 'g-alice-bare', grant(account));
    expect((await sessions.begin(person(account, ['a2a:discover']), tokenOf({ grant_id: 'g-alice-bare' }))).scopes).toEqual([]);
  });

  it('an account with no user row and no grant to stand on is refused', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const e = await error(sessions.begin(person('https://idp.example#bob', ['a2a:discover']), tokenOf({ sub: 'x' })));
    expect(e.kind).toBe('PermissionDenied');
    expect(e.message).toBe('This account has no user here and its token no grant to stand on; sign in through the console');
  });
});

describe('authenticate', () => {
  it('the cookie and the CSRF header together are the session’s user; either alone is anonymous', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const started = await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    const headers = await asRequest(sessions, started.token);
    expect(await sessions.authenticate(headers)).toStrictEqual({ subject: 'carol', authenticated: true, clientId: CONSOLE_CLIENT_ID, scopes: ['a2a:discover', 'admin'] });
    expect(await sessions.authenticate({ [CSRF_HEADER]: [headers[CSRF_HEADER]!, 'x'], cookie: headers.cookie })).toMatchObject({ subject: 'carol' });
    expect(await sessions.authenticate({ cookie: headers.cookie })).toBeUndefined();
    expect(await sessions.authenticate({ [CSRF_HEADER]: headers[CSRF_HEADER] })).toBeUndefined();
    expect(await sessions.authenticate({ [CSRF_HEADER]: '', cookie: headers.cookie })).toBeUndefined();
    expect(await sessions.authenticate({ [CSRF_HEADER]: headers[CSRF_HEADER], cookie: 'other=1' })).toBeUndefined();
  });

  it('both present but not matching a live session: refused, not anonymous', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const started = await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    const headers = await asRequest(sessions, started.token);
    const wrongCsrf = await error(sessions.authenticate({ ...headers, [CSRF_HEADER]: 'forged' }));
    expect(wrongCsrf.kind).toBe('Unauthenticated');
    expect(wrongCsrf.message).toBe('The console session has ended or its CSRF token does not match; sign in again');
    const noSession = await error(sessions.authenticate({ ...headers, cookie: `${CONSOLE_COOKIE}=${'A'.repeat(43)}` }));
    expect(noSession.kind).toBe('Unauthenticated');
  });

  it('one session’s CSRF token does not open another session; a token of another form is not the API’s', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    const a = await asRequest(sessions, (await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }))).token);
    const b = await asRequest(sessions, (await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }))).token);
    expect(a[CSRF_HEADER]).not.toBe(b[CSRF_HEADER]);
    expect((await error(sessions.authenticate({ cookie: a.cookie!, [CSRF_HEADER]: b[CSRF_HEADER]! }))).kind).toBe('Unauthenticated');
  });

  it('a session of another purpose (the admin page’s) is not a console session', async () => {
    const admin = new BrowserSessions(store.oauth, randomBytes(32), { purpose: 'admin', ttlMs: HOUR });
    const started = await admin.begin('carol', {});
    expect(await admin.resolve(started.token)).toMatchObject({ username: 'carol' });
    expect(await new ConsoleSessions(store.oauth).fromCookie({ cookie: `${CONSOLE_COOKIE}=${started.token}` })).toBeUndefined();
  });

  it('a page that requires a scope ends the session of a user without it', async () => {
    await store.oauth.putUser({ username: 'erin', passwordHash: 'x', scopes: ['a2a:discover'], createdAt: Date.now() });
    const strict = new BrowserSessions(store.oauth, randomBytes(32), { purpose: 'admin', ttlMs: HOUR, requiredScope: 'admin' });
    expect(await strict.resolve((await strict.begin('erin', {})).token)).toBeUndefined();
    expect(await strict.resolve((await strict.begin('carol', {})).token)).toMatchObject({ username: 'carol' });
  });

  it('every replica’s sessions share the CSRF secret kept in the store', async () => {
    const one = new ConsoleSessions(store.oauth);
    const started = await one.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    const headers = await asRequest(one, started.token);
    expect(await new ConsoleSessions(store.oauth).authenticate(headers)).toMatchObject({ subject: 'carol' });
  });
});

describe('sign-out', () => {
  it('ends every console session of the account, revokes the grant (telling the revocations), and the account’s provider sessions', async () => {
    const told: string[] = [];
    const sessions = new ConsoleSessions(store.oauth, { grantRevoked: (id) => told.push(id) });
    await store.oauth.upsertRecord('Grant', 'g-carol-2', grant('carol'));
    await store.oauth.upsertRecord('AccessToken', 'at-carol-2', { payload: { accountId: 'carol', grantId: 'g-carol-2' }, grantId: 'g-carol-2', expiresAt: Date.now() + HOUR });
    await store.oauth.upsertRecord('Session', 'provider-carol', { payload: { accountId: 'carol' }, expiresAt: Date.now() + HOUR });
    const a = await sessions.begin(person('carol', []), tokenOf({ grant_id: 'g-carol-2' }));
    const b = await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    const s = await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${a.token}` });
    await sessions.end(s!);
    expect(await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${a.token}` })).toBeUndefined();
    expect(await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${b.token}` })).toBeUndefined();
    expect(told).toEqual(['g-carol-2']);
    expect(await store.oauth.isLive('AccessToken', 'at-carol-2', Date.now())).toBe(false);
    expect(await store.oauth.isLive('Session', 'provider-carol', Date.now())).toBe(false);
  });

  it('sign-out without a revocations listener still revokes the grant', async () => {
    const sessions = new ConsoleSessions(store.oauth);
    await store.oauth.upsertRecord('Grant', 'g-carol-3', grant('carol'));
    const a = await sessions.begin(person('carol', []), tokenOf({ grant_id: 'g-carol-3' }));
    await sessions.end((await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${a.token}` }))!);
    expect(await store.oauth.isLive('Grant', 'g-carol-3', Date.now())).toBe(false);
  });

  it('a session on no grant revokes no grant', async () => {
    const told: string[] = [];
    const sessions = new ConsoleSessions(store.oauth, { grantRevoked: (id) => told.push(id) });
    const a = await sessions.begin(person('carol', []), tokenOf({ sub: 'carol' }));
    await sessions.end((await sessions.fromCookie({ cookie: `${CONSOLE_COOKIE}=${a.token}` }))!);
    expect(told).toEqual([]);
  });
});
