/**
 * A user's consent grants as the management API lists them, and revoking one
 * (src/auth/oauth/consent-grants.ts), in process on a real SQLite store with grant records shaped
 * as oidc-provider writes them (`openid.scope`, `resources` per resource indicator, `iat`, `exp`).
 * The whole sign-in → consent → revoke path: consent-grants.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listConsentGrants, revokeConsentGrant } from '../../../src/auth/oauth/consent-grants.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-consent-grants-'));
let store: Store;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const HOUR = 3_600_000;

beforeAll(async () => {
  store = await openSqliteStore({ file: path.join(dir, 'oauth.db') });
  await store.migrate();
  await store.oauth.upsertRecord('Client', 'app-1', { payload: { client_id: 'app-1', client_name: 'Reports app', redirect_uris: ['https://app/cb'] } });
  await store.oauth.upsertRecord('Client', 'app-2', { payload: { client_id: 'app-2' } });
  await store.oauth.upsertRecord('Grant', 'g1', {
    payload: {
      accountId: 'carol',
      clientId: 'app-1',
      iat: NOW / 1000 - 3600,
      exp: NOW / 1000 + 60,
      openid: { scope: 'openid profile a2a:publish mcp:tools:hr email' },
      resources: { 'https://h/a2a': 'a2a:publish  a2a:discover ', 'https://h/mcp': 'mcp:tools:hr a2a:publish' },
    },
    // the stored expiry wins over the payload's exp (a grant extended since)
    expiresAt: NOW + 2 * HOUR,
  });
  await store.oauth.upsertRecord('Grant', 'g2', { payload: { accountId: 'carol', clientId: 'app-2', openid: { scope: 'openid' } } });
  await store.oauth.upsertRecord('Grant', 'g3', { payload: { accountId: 'carol', clientId: 7, exp: NOW / 1000 + 60 } });
  await store.oauth.upsertRecord('Grant', 'g-dave', { payload: { accountId: 'dave', clientId: 'app-1' }, expiresAt: NOW + HOUR });
  await store.oauth.upsertRecord('Grant', 'g-old', { payload: { accountId: 'carol', clientId: 'app-1' }, expiresAt: NOW - 1 });
  await store.oauth.upsertRecord('RefreshToken', 'rt-g1', { payload: { accountId: 'carol', grantId: 'g1' }, grantId: 'g1', expiresAt: NOW + HOUR });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('listConsentGrants', () => {
  it('each live grant of the user: client and its name, Agentport scopes per resource only, the sign-in’s own from openid, its times', async () => {
    const grants = await listConsentGrants(store.oauth, 'carol', NOW);
    const byId = Object.fromEntries(grants.map((g) => [g.id, g]));
    expect(Object.keys(byId).sort()).toEqual(['g1', 'g2', 'g3']);
    expect(byId.g1).toStrictEqual({
      id: 'g1',
      clientId: 'app-1',
      clientName: 'Reports app',
      scopes: ['openid', 'profile', 'email', 'a2a:publish', 'a2a:discover', 'mcp:tools:hr'],
      resources: { 'https://h/a2a': ['a2a:publish', 'a2a:discover'], 'https://h/mcp': ['mcp:tools:hr', 'a2a:publish'] },
      grantedAt: '2026-11-28T11:00:00.000Z',
      expiresAt: '2026-11-28T14:00:00.000Z',
    });
  });

  it('a client without a name, a grant without resources or times, a client id that is not a string', async () => {
    const grants = await listConsentGrants(store.oauth, 'carol', NOW);
    const byId = Object.fromEntries(grants.map((g) => [g.id, g]));
    expect(byId.g2).toStrictEqual({ id: 'g2', clientId: 'app-2', scopes: ['openid'], resources: {} });
    // no stored expiry: the grant's own `exp`
    expect(byId.g3).toStrictEqual({ id: 'g3', clientId: '', scopes: [], resources: {}, expiresAt: '2026-11-28T12:01:00.000Z' });
  });

  it('another user’s grants are not listed; a user with none has an empty list', async () => {
    expect((await listConsentGrants(store.oauth, 'dave', NOW)).map((g) => g.id)).toEqual(['g-dave']);
    expect(await listConsentGrants(store.oauth, 'erin', NOW)).toEqual([]);
  });
});

describe('revokeConsentGrant', () => {
  it('refuses another user’s grant and an unknown one, revoking nothing', async () => {
    const told: string[] = [];
    const revocations = { grantRevoked: (id: string) => told.push(id) } as never;
    expect(await revokeConsentGrant(store.oauth, 'carol', 'g-dave', revocations, NOW)).toBe(false);
    expect(await revokeConsentGrant(store.oauth, 'carol', 'g-none', revocations, NOW)).toBe(false);
    expect(await store.oauth.isLive('Grant', 'g-dave', NOW)).toBe(true);
    expect(told).toEqual([]);
  });

  it('revokes the grant and everything issued under it, and tells the revocations', async () => {
    const told: string[] = [];
    const revocations = { grantRevoked: (id: string) => told.push(id) } as never;
    expect(await revokeConsentGrant(store.oauth, 'carol', 'g1', revocations, NOW)).toBe(true);
    expect(await store.oauth.isLive('Grant', 'g1', NOW)).toBe(false);
    expect(await store.oauth.isLive('RefreshToken', 'rt-g1', NOW)).toBe(false);
    expect(told).toEqual(['g1']);
    expect((await listConsentGrants(store.oauth, 'carol', NOW)).map((g) => g.id).sort()).toEqual(['g2', 'g3']);
    expect(await revokeConsentGrant(store.oauth, 'carol', 'g2', undefined, NOW)).toBe(true);
  });
});
