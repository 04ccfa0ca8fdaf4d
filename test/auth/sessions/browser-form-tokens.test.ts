/**
 * The CSRF tokens of src/auth/sessions/browser-sessions.ts, in process on a real SQLite store: a
 * form's token is bound to its session, its form and the sessions' purpose; the login form's token
 * (before any session) to the browser's nonce cookie, which must look like one we issue. Expected
 * tokens are HMAC-SHA256 computed here from the documented input (`<purpose>:session:<id>:<form>`,
 * `<purpose>:login:<nonce>`), not by the module.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSessions, type ActiveSession } from '../../../src/auth/sessions/browser-sessions.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-form-tokens-'));
let store: Store;
const secret = randomBytes(32);
const hmac = (text: string) => createHmac('sha256', secret).update(text).digest('base64url');

beforeAll(async () => {
  store = await openSqliteStore({ file: path.join(dir, 'oauth.db') });
  await store.migrate();
  await store.oauth.putUser({ username: 'carol', passwordHash: 'x', scopes: ['admin'], createdAt: Date.now() });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('form tokens of a session', () => {
  it('are the HMAC of purpose, session and form; valid only as presented, never when absent', async () => {
    const console_ = new BrowserSessions(store.oauth, secret, { purpose: 'console', ttlMs: 60_000 });
    const session = (await console_.resolve((await console_.begin('carol')).token)) as ActiveSession;
    const token = console_.formToken(session, 'keys');
    expect(token).toBe(hmac(`console:session:${session.id}:keys`));
    expect(console_.formTokenValid(session, 'keys', token)).toBe(true);
    expect(console_.formTokenValid(session, 'keys', null)).toBe(false);
    expect(console_.formTokenValid(session, 'users', token)).toBe(false);
    expect(console_.formTokenValid(session, 'keys', token.slice(1))).toBe(false);
    // the same secret, session id and form under another purpose is another token
    const admin = new BrowserSessions(store.oauth, secret, { purpose: 'admin', ttlMs: 60_000 });
    expect(admin.formToken(session, 'keys')).not.toBe(token);
    expect(admin.formTokenValid(session, 'keys', token)).toBe(false);
  });
});

describe('the login form token', () => {
  it('a browser nonce is 43 base64url characters, new each time', () => {
    const a = BrowserSessions.newBrowserNonce();
    const b = BrowserSessions.newBrowserNonce();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  it('is the HMAC of purpose and nonce; valid only for that nonce, as presented', () => {
    const sessions = new BrowserSessions(store.oauth, secret, { purpose: 'admin', ttlMs: 60_000 });
    const nonce = BrowserSessions.newBrowserNonce();
    const token = sessions.loginToken(nonce);
    expect(token).toBe(hmac(`admin:login:${nonce}`));
    expect(sessions.loginTokenValid(nonce, token)).toBe(true);
    expect(sessions.loginTokenValid(nonce, null)).toBe(false);
    expect(sessions.loginTokenValid(undefined, token)).toBe(false);
    expect(sessions.loginTokenValid('', sessions.loginToken(''))).toBe(false);
    expect(sessions.loginTokenValid(BrowserSessions.newBrowserNonce(), token)).toBe(false);
    expect(sessions.loginTokenValid(nonce, `${token}x`)).toBe(false);
  });

  it('refuses a nonce that is not one we issue, even with its matching token', () => {
    const sessions = new BrowserSessions(store.oauth, secret, { purpose: 'admin', ttlMs: 60_000 });
    for (const nonce of ['short', `${BrowserSessions.newBrowserNonce()}x`, `x${BrowserSessions.newBrowserNonce()}`, `${'a'.repeat(42)}!`]) {
      expect(sessions.loginTokenValid(nonce, sessions.loginToken(nonce))).toBe(false);
    }
  });
});
