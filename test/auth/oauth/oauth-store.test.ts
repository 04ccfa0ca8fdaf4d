/**
 * The OAuth tables (migrations 0005_oauth, 0006_sessions) behind oidc-provider's adapter, the same
 * contract on SQLite and on a real PostgreSQL: upsert/find by id and by uid, expiry, consumption,
 * revocation by record and by grant (kept, not deleted, so the resource server can tell),
 * sweeping, the first-wins server secret, users, sign-in sessions and what deleting a user ends.
 * Two stores on one PostgreSQL schema stand for two replicas.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { serverSecret } from '../../../src/auth/oauth/server-secret.js';
import { StoreAdapter } from '../../../src/auth/oauth/store-adapter.js';
import { TokenRevocations } from '../../../src/auth/oauth/token-revocations.js';
import { authenticateUser, createUser, UserInputError } from '../../../src/auth/oauth/local-users.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_oauth_${randomBytes(4).toString('hex')}`;
const dirs: string[] = [];

afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`drop schema if exists "${schema}" cascade`);
  await c.end();
});

const dialects: Array<[string, () => Promise<Store>]> = [
  [
    'sqlite',
    async () => {
      // one database file for the dialect, so two opens are two handles on the same data
      if (!dirs.length) dirs.push(mkdtempSync(path.join(tmpdir(), 'agentport-oauth-store-')));
      const s = await openSqliteStore({ file: path.join(dirs[0]!, 'a.db') });
      await s.migrate();
      return s;
    },
  ],
  [
    'postgres',
    async () => {
      const s = await openPostgresStore({ connectionString: PG, schema, maxConnections: 2, connectionTimeoutMs: 5000 });
      await s.migrate();
      return s;
    },
  ],
];

describe.each(dialects)('OAuth store on %s', (_name, open) => {
  it('keeps adapter records with their lookups, expiry, consumption and grant revocation', async () => {
    const store = await open();
    const other = await open(); // a second replica on the same database (PostgreSQL) or a second handle (SQLite)
    try {
      const g = `grant-${randomBytes(4).toString('hex')}`;
      const codes = new StoreAdapter('AuthorizationCode', store.oauth);
      const grants = new StoreAdapter('Grant', store.oauth);
      await grants.upsert(g, { accountId: 'alice', clientId: 'c' }, 600);
      await codes.upsert('code-1', { grantId: g, uid: 'uid-1', scope: 'mcp:tools' }, 60);
      await codes.upsert('code-short', { grantId: g }, 1);
      // read through the other handle: what one replica issued, another redeems
      const codesElsewhere = new StoreAdapter('AuthorizationCode', other.oauth);
      expect(await codesElsewhere.find('code-1')).toMatchObject({ grantId: g, scope: 'mcp:tools' });
      expect(await codesElsewhere.findByUid('uid-1')).toMatchObject({ grantId: g });
      expect(await codesElsewhere.find('missing')).toBeUndefined();

      await codesElsewhere.consume('code-1');
      expect((await codes.find('code-1'))?.consumed).toEqual(expect.any(Number));

      const revocations = new TokenRevocations(other.oauth, Date.now, 0);
      expect(await revocations.isRevoked({ grant_id: g })).toBe(false);
      await codes.revokeByGrantId(g);
      expect(await codes.find('code-1')).toBeUndefined();
      expect(await grants.find(g)).toBeUndefined();
      expect(await revocations.isRevoked({ grant_id: g })).toBe(true);

      // expiry: a record past expires_at is not found, and the sweep deletes it
      const later = new StoreAdapter(
        'AuthorizationCode',
        store.oauth,
        () => {},
        () => Date.now() + 5_000,
      );
      expect(await later.find('code-short')).toBeUndefined();
      expect(await store.oauth.sweepExpired(Date.now() + 5_000)).toBeGreaterThanOrEqual(1);
    } finally {
      await other.close();
      await store.close();
    }
  });

  it('revokes a client-credentials token by jti until it expires', async () => {
    const store = await open();
    try {
      const r = new TokenRevocations(store.oauth, Date.now, 0);
      const jti = `jti-${randomBytes(4).toString('hex')}`;
      const exp = Math.floor(Date.now() / 1000) + 60;
      expect(await r.isRevoked({ jti, exp })).toBe(false);
      await r.revoke({ jti, exp });
      expect(await r.isRevoked({ jti, exp })).toBe(true);
      expect(await r.isRevoked({})).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('keeps sign-in sessions that another replica sees, and sees ended, at once', async () => {
    const [a, b] = [await open(), await open()];
    try {
      const user = `s${randomBytes(3).toString('hex')}`;
      const now = Date.now();
      const id = (n: number) => `${user}-session-${n}`;
      await a.oauth.sessions.createSession({ id: id(1), username: user, purpose: 'config', createdAt: now, expiresAt: now + 60_000 });
      await a.oauth.sessions.createSession({ id: id(2), username: user, purpose: 'config', createdAt: now, expiresAt: now + 60_000 });
      await a.oauth.sessions.createSession({ id: id(3), username: user, purpose: 'config', createdAt: now, expiresAt: now + 1_000 });
      expect(await b.oauth.sessions.findSession(id(1), now)).toEqual({ id: id(1), username: user, purpose: 'config', createdAt: now, expiresAt: now + 60_000 });
      expect(await b.oauth.sessions.findSession(id(3), now + 1_000)).toBeUndefined(); // expired
      await b.oauth.sessions.endSession(id(1));
      expect(await a.oauth.sessions.findSession(id(1), now)).toBeUndefined();
      expect(await a.oauth.sessions.findSession(id(2), now)).toBeDefined();
      expect(await b.oauth.sessions.endSessionsOf(user)).toBe(2);
      expect(await a.oauth.sessions.findSession(id(2), now)).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('deleting a user ends their sessions and revokes their grants, codes, refresh tokens and provider sessions', async () => {
    const [a, b] = [await open(), await open()];
    try {
      const user = `d${randomBytes(3).toString('hex')}`;
      const other = `o${randomBytes(3).toString('hex')}`;
      await createUser(a.oauth, { username: user, password: 'twelve chars ok' });
      const g = `grant-${user}`;
      const keep = `grant-${other}`;
      const adapter = (model: string) => new StoreAdapter(model, a.oauth);
      await adapter('Grant').upsert(g, { accountId: user, clientId: 'c' }, 600);
      await adapter('Grant').upsert(keep, { accountId: other, clientId: 'c' }, 600);
      // a code carries only its grant; a refresh token and a provider session carry the account
      await adapter('AuthorizationCode').upsert(`code-${user}`, { grantId: g }, 60);
      await adapter('RefreshToken').upsert(`rt-${user}`, { grantId: g, accountId: user }, 600);
      await adapter('Session').upsert(`sess-${user}`, { accountId: user }, 600);
      await a.oauth.sessions.createSession({ id: `page-${user}`, username: user, purpose: 'config', createdAt: Date.now(), expiresAt: Date.now() + 60_000 });

      const revocations = new TokenRevocations(a.oauth, Date.now, 0);
      expect(await revocations.isRevoked({ grant_id: g })).toBe(false);
      expect(await b.oauth.deleteUser(user)).toBe(true);

      expect(await revocations.isRevoked({ grant_id: g })).toBe(true);
      expect(await revocations.isRevoked({ grant_id: keep })).toBe(false);
      for (const [model, id] of [
        ['AuthorizationCode', `code-${user}`],
        ['RefreshToken', `rt-${user}`],
        ['Session', `sess-${user}`],
      ] as const) {
        expect(await adapter(model).find(id)).toBeUndefined();
      }
      expect(await a.oauth.sessions.findSession(`page-${user}`, Date.now())).toBeUndefined();
      expect(await b.oauth.deleteUser(user)).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('lists an account’s live consent grants only, and a revoked grant leaves the list', async () => {
    const store = await open();
    try {
      const user = `g${randomBytes(3).toString('hex')}`;
      const adapter = new StoreAdapter('Grant', store.oauth);
      await adapter.upsert(`grant-a-${user}`, { accountId: user, clientId: 'c1' }, 600);
      await adapter.upsert(`grant-b-${user}`, { accountId: user, clientId: 'c2' }, 600);
      await adapter.upsert(`grant-x-${user}`, { accountId: `other-${user}`, clientId: 'c1' }, 600);
      const listed = await store.oauth.listGrantsOfAccount(user, Date.now());
      expect(listed.map((g) => [g.id, g.payload.clientId])).toEqual([
        [`grant-a-${user}`, 'c1'],
        [`grant-b-${user}`, 'c2'],
      ]);
      expect(listed[0]!.expiresAt).toBeGreaterThan(Date.now());
      await store.oauth.revokeRecordsOfGrant(`grant-a-${user}`, Date.now());
      expect((await store.oauth.listGrantsOfAccount(user, Date.now())).map((g) => g.id)).toEqual([`grant-b-${user}`]);
      // expired grants are not live either
      expect(await store.oauth.listGrantsOfAccount(user, Date.now() + 601_000)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('agrees on one server secret when two replicas create it at once', async () => {
    const [a, b] = [await open(), await open()];
    try {
      const name = `secret-${randomBytes(4).toString('hex')}`;
      const [x, y] = await Promise.all([serverSecret(a.oauth, name), serverSecret(b.oauth, name)]);
      expect(x).toBe(y);
      expect(x.length).toBeGreaterThanOrEqual(43);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('stores users with scrypt hashes and checks passwords', async () => {
    // the product's cost, not the suite's lower one (vitest.config.ts)
    vi.stubEnv('AGENTPORT_TEST_SCRYPT_LOG_N', undefined);
    const store = await open();
    try {
      const username = `u${randomBytes(3).toString('hex')}`;
      const { user } = await createUser(store.oauth, { username, password: 'twelve chars ok', scopes: ['mcp:tools'] });
      expect(user.passwordHash).toMatch(/^scrypt\$15\$8\$1\$/);
      expect((await authenticateUser(store.oauth, username, 'twelve chars ok'))?.scopes).toEqual(['mcp:tools']);
      expect(await authenticateUser(store.oauth, username, 'twelve chars no')).toBeUndefined();
      expect(await authenticateUser(store.oauth, 'nobody', 'twelve chars ok')).toBeUndefined();
      await expect(createUser(store.oauth, { username, password: 'another password' })).rejects.toBeInstanceOf(UserInputError);
      await expect(createUser(store.oauth, { username: 'short', password: 'short' })).rejects.toBeInstanceOf(UserInputError);
      expect(await store.oauth.deleteUser(username)).toBe(true);
      expect(await store.oauth.getUser(username)).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
      await store.close();
    }
  });
});
