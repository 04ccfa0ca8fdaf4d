/**
 * The token vault (ADR 0035) on a real SQLite file and a real PostgreSQL schema: tokens sealed at
 * rest (the plaintext is nowhere in the database's files or rows), opened with any configured
 * key and sealed with the first (rotation), bound to their row; one refresh across two replicas
 * (two stores on one database) when a token nears expiry; a refused refresh deletes the row; rows
 * go with a disconnect and with the user.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { RefreshRefusedError, TokenCipher, TokenVault, VaultDecryptError, type RemoteTokens } from '../../../src/core/vault/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/store/index.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_vault_${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-vault-'));
const KEY_OLD = { id: 'k2025', key: randomBytes(32) };
const KEY_NEW = { id: 'k2026', key: randomBytes(32) };

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`drop schema if exists "${schema}" cascade`);
  await c.end();
});

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

interface Dialect {
  name: string;
  open(): Promise<Store>;
  /** every byte the database keeps for the vault's rows, as text */
  rawText(store: Store): Promise<string>;
}

let sqliteFiles = 0;
let currentSqlite = '';
const dialects: Dialect[] = [
  {
    name: 'sqlite',
    open: async () => {
      const s = await openSqliteStore({ file: currentSqlite });
      await s.migrate();
      return s;
    },
    rawText: async () =>
      readdirSync(dir)
        .filter((f) => f.startsWith(path.basename(currentSqlite)))
        .map((f) => readFileSync(path.join(dir, f)).toString('latin1'))
        .join('\n'),
  },
  {
    name: 'postgres',
    open: async () => {
      const s = await openPostgresStore({ connectionString: PG, schema, connectionTimeoutMs: 5000 });
      await s.migrate();
      return s;
    },
    rawText: async () => {
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      try {
        const { rows } = await c.query(`select * from "${schema}".remote_tokens`);
        return JSON.stringify(rows);
      } finally {
        await c.end();
      }
    },
  },
];

describe.each(dialects)('token vault on $name', (d) => {
  const stores: Store[] = [];
  const open = async () => {
    const s = await d.open();
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => {});
  });
  const fresh = () => {
    currentSqlite = path.join(dir, `vault-${sqliteFiles++}.db`);
  };

  it('stores tokens sealed: neither token is in the database, and both read back', async () => {
    fresh();
    const store = await open();
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    const access = secret('access');
    const refresh = secret('refresh');
    await vault.connect('alice', 'github', { accessToken: access, refreshToken: refresh, tokenType: 'Bearer', scope: 'repo', expiresAt: Date.now() + 3_600_000, remoteSubject: 'alice@gh' });
    expect(await vault.read('alice', 'github')).toMatchObject({ accessToken: access, refreshToken: refresh, scope: 'repo', remoteSubject: 'alice@gh' });
    const raw = await d.rawText(store);
    // Positive control: the row itself is in what was searched.
    expect(raw).toContain('alice@gh');
    expect(raw).toContain('v1.k2026.');
    expect(raw).not.toContain(access);
    expect(raw).not.toContain(refresh);
    // The Connections list never carries a token.
    const list = await vault.connections('alice');
    expect(list).toEqual([expect.objectContaining({ remote: 'github', scope: 'repo', remoteSubject: 'alice@gh', refreshable: true })]);
    expect(JSON.stringify(list)).not.toContain(access);
  });

  it('rotates keys: a value sealed with the old key opens while it is listed; new writes use the first key', async () => {
    fresh();
    const store = await open();
    const old = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_OLD]));
    const access = secret('access');
    await old.connect('bob', 'jira', { accessToken: access, tokenType: 'Bearer' });
    const rotated = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW, KEY_OLD]));
    expect((await rotated.read('bob', 'jira'))?.accessToken).toBe(access);
    await rotated.connect('bob', 'drive', { accessToken: secret('a'), tokenType: 'Bearer' });
    expect((await store.oauth.remoteTokens.getRemoteToken('bob', 'drive'))?.accessToken.startsWith('v1.k2026.')).toBe(true);
    // The old key removed from the config: its values no longer open, with an error naming the key.
    const withoutOld = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    await expect(withoutOld.read('bob', 'jira')).rejects.toThrow(/k2025/);
  });

  it("binds a sealed value to its row: one user's ciphertext copied into another's row does not open", async () => {
    fresh();
    const store = await open();
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    await vault.connect('alice', 'github', { accessToken: secret('alice'), tokenType: 'Bearer' });
    await vault.connect('mallory', 'github', { accessToken: secret('mallory'), tokenType: 'Bearer' });
    const alices = (await store.oauth.remoteTokens.getRemoteToken('alice', 'github'))!;
    await store.oauth.remoteTokens.putRemoteToken({ ...alices, subject: 'mallory' });
    await expect(vault.read('mallory', 'github')).rejects.toBeInstanceOf(VaultDecryptError);
  });

  it('refreshes a token near expiry exactly once across two replicas, and both get the new token', async () => {
    fresh();
    const a = await open();
    const b = await open();
    const cipher = new TokenCipher([KEY_NEW]);
    const first = secret('refresh');
    let refreshes = 0;
    const refresher = async (rt: string): Promise<RemoteTokens> => {
      expect(rt).toBe(first);
      refreshes++;
      // Slow enough that the other replica arrives while this one holds the lease.
      await new Promise((r) => setTimeout(r, 150));
      return { accessToken: 'access-2', refreshToken: 'refresh-2', tokenType: 'Bearer', expiresAt: Date.now() + 3_600_000 };
    };
    const vaultA = new TokenVault(a.oauth.remoteTokens, cipher, { refreshPollMs: 20 });
    const vaultB = new TokenVault(b.oauth.remoteTokens, cipher, { refreshPollMs: 20 });
    await vaultA.connect('alice', 'github', { accessToken: 'access-1', refreshToken: first, tokenType: 'Bearer', expiresAt: Date.now() + 5_000 });
    const results = await Promise.all([vaultA.usable('alice', 'github', refresher), vaultB.usable('alice', 'github', refresher), vaultB.usable('alice', 'github', refresher)]);
    expect(refreshes).toBe(1);
    for (const r of results) expect(r).toMatchObject({ tokens: { accessToken: 'access-2', refreshToken: 'refresh-2' } });
    expect((await vaultB.read('alice', 'github'))?.refreshToken).toBe('refresh-2');
    // Fresh now: no further refresh.
    await vaultA.usable('alice', 'github', refresher);
    expect(refreshes).toBe(1);
  });

  it('a replica that waited for another refresh takes its token even when that one is short-lived too', async () => {
    fresh();
    const a = await open();
    const b = await open();
    const cipher = new TokenCipher([KEY_NEW]);
    let refreshes = 0;
    // The remote issues tokens that expire within the refresh margin (60 s): each is "near expiry".
    const refresher = async (): Promise<RemoteTokens> => {
      refreshes++;
      await new Promise((r) => setTimeout(r, 150));
      return { accessToken: `access-${refreshes + 1}`, refreshToken: `refresh-${refreshes + 1}`, tokenType: 'Bearer', expiresAt: Date.now() + 30_000 };
    };
    const vaultA = new TokenVault(a.oauth.remoteTokens, cipher, { refreshPollMs: 20 });
    const vaultB = new TokenVault(b.oauth.remoteTokens, cipher, { refreshPollMs: 20 });
    await vaultA.connect('alice', 'github', { accessToken: 'access-1', refreshToken: 'refresh-1', tokenType: 'Bearer', expiresAt: Date.now() + 30_000 });
    const results = await Promise.all([vaultA.usable('alice', 'github', refresher), vaultB.usable('alice', 'github', refresher)]);
    expect(refreshes).toBe(1);
    for (const r of results) expect(r).toMatchObject({ tokens: { accessToken: 'access-2' } });
  });

  it('a refused refresh deletes the row: the user is asked to connect again', async () => {
    fresh();
    const store = await open();
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    await vault.connect('alice', 'github', { accessToken: 'a', refreshToken: 'r', tokenType: 'Bearer', expiresAt: Date.now() - 1 });
    const r = await vault.usable('alice', 'github', async () => {
      throw new RefreshRefusedError('invalid_grant');
    });
    expect(r).toEqual({ connect: 'refresh-refused' });
    expect(await vault.read('alice', 'github')).toBeUndefined();
    expect(await vault.usable('alice', 'github', async () => ({ accessToken: 'x', tokenType: 'Bearer' }))).toEqual({ connect: 'not-connected' });
  });

  it('a refresh that fails for a passing reason keeps the row and frees the lease for the next try', async () => {
    fresh();
    const store = await open();
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    await vault.connect('alice', 'github', { accessToken: 'a', refreshToken: 'r', tokenType: 'Bearer', expiresAt: Date.now() - 1 });
    await expect(
      vault.usable('alice', 'github', async () => {
        throw new Error('ECONNREFUSED');
      }),
    ).rejects.toThrow('ECONNREFUSED');
    const again = await vault.usable('alice', 'github', async () => ({ accessToken: 'a2', tokenType: 'Bearer', expiresAt: Date.now() + 3_600_000 }));
    expect(again).toMatchObject({ tokens: { accessToken: 'a2', refreshToken: 'r' } });
  });

  it('deletes the row on disconnect, and every row of a user deleted', async () => {
    fresh();
    const store = await open();
    const vault = new TokenVault(store.oauth.remoteTokens, new TokenCipher([KEY_NEW]));
    await store.oauth.putUser({ username: 'carol', passwordHash: 'scrypt$x', scopes: [], createdAt: Date.now() });
    await vault.connect('carol', 'github', { accessToken: 'a', tokenType: 'Bearer' });
    await vault.connect('carol', 'jira', { accessToken: 'b', tokenType: 'Bearer' });
    await vault.connect('dave', 'jira', { accessToken: 'c', tokenType: 'Bearer' });
    expect(await vault.disconnect('carol', 'github')).toBe(true);
    expect(await vault.disconnect('carol', 'github')).toBe(false);
    expect((await vault.connections('carol')).map((c) => c.remote)).toEqual(['jira']);
    expect(await store.oauth.deleteUser('carol')).toBe(true);
    expect(await vault.connections('carol')).toEqual([]);
    expect((await vault.connections('dave')).map((c) => c.remote)).toEqual(['jira']);
  });
});

describe('token cipher', () => {
  it('refuses keys that are not 32 bytes and a vault without keys', () => {
    expect(() => new TokenCipher([])).toThrow(/vault.keys/);
    expect(() => new TokenCipher([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
  });

  it('detects tampering and uses a fresh nonce per value', () => {
    const c = new TokenCipher([KEY_NEW]);
    const a = c.seal('same', 'ctx');
    const b = c.seal('same', 'ctx');
    expect(a).not.toBe(b);
    expect(c.open(a, 'ctx')).toBe('same');
    const parts = a.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => c.open(parts.join('.'), 'ctx')).toThrow(VaultDecryptError);
    expect(() => c.open(a, 'other')).toThrow(VaultDecryptError);
  });
});
