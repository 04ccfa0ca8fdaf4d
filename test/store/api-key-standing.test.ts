/**
 * API keys with what they stand on (migration 0016_api_key_owners), on SQLite and a real
 * PostgreSQL: a key is read with its owner's row and its grant's in one statement, the
 * authenticator refuses it once the owner is gone (or is a new user of the same name) or the grant
 * is revoked, caps it to the owner's current scopes, and deleting the owner revokes it for good.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, StoredApiKeys } from '../../src/auth/api-keys.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';

const PG = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_keys_${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'agentport-key-standing-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`drop schema if exists "${schema}" cascade`);
  await c.end();
});

const dialects: Array<[string, () => Promise<Store>]> = [
  ['sqlite', () => openSqliteStore({ file: path.join(dir, 'k.db') })],
  ['postgres', () => openPostgresStore({ connectionString: PG, schema, maxConnections: 2, connectionTimeoutMs: 5000 })],
];

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: Error) => e.message,
  );

describe.each(dialects)('API keys standing on an owner or a grant on %s', (_name, open) => {
  it('caps by the owner, ends with the owner and with the grant', async () => {
    const store = await open();
    try {
      await store.migrate();
      const keys = new StoredApiKeys(store);
      const now = Date.now();
      await store.oauth.putUser({ username: 'olga', passwordHash: 'x', scopes: ['a2a:discover', 'a2a:publish'], createdAt: now - 1000 });
      const owned = createApiKey({ subject: 'olga', scopes: ['a2a:discover', 'a2a:publish'], owner: 'olga', now });
      await store.putApiKey(owned.record);
      await store.oauth.upsertRecord('Grant', 'g-1', { payload: { accountId: 'up#1', clientId: 'agentport-console' }, expiresAt: now + 3_600_000 });
      const granted = createApiKey({ subject: 'up#1', scopes: ['a2a:discover'], grantId: 'g-1', now });
      await store.putApiKey(granted.record);
      const plain = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'], now });
      await store.putApiKey(plain.record);

      expect((await keys.authenticate(owned.key)).scopes).toEqual(['a2a:discover', 'a2a:publish']);
      expect((await keys.authenticate(granted.key)).scopes).toEqual(['a2a:discover']);
      expect((await store.getApiKey(plain.record.keyId))?.standing).toBeUndefined();

      await store.oauth.setUserScopes('olga', ['a2a:discover']);
      expect((await keys.authenticate(owned.key)).scopes).toEqual(['a2a:discover']);

      await store.oauth.revokeRecordsOfGrant('g-1', Date.now());
      expect(await refusal(keys.authenticate(granted.key))).toMatch(/sign-in it was made through has ended/);

      expect(await store.oauth.deleteUser('olga')).toBe(true);
      expect((await store.getApiKey(owned.record.keyId))?.revokedAt).toBeTypeOf('number');
      expect(await refusal(keys.authenticate(owned.key))).toMatch(/revoked/);
      expect((await keys.authenticate(plain.key)).scopes).toEqual(['a2a:publish']);
    } finally {
      await store.close();
    }
  });

  it('refuses an owned key whose owner row is missing or newer than the key, even unrevoked', async () => {
    const store = await open();
    try {
      await store.migrate();
      const keys = new StoredApiKeys(store);
      const now = Date.now();
      const orphan = createApiKey({ subject: 'nobody', scopes: ['a2a:discover'], owner: 'nobody', now });
      await store.putApiKey(orphan.record);
      expect(await refusal(keys.authenticate(orphan.key))).toMatch(/no longer exists/);
      // A user of that name created after the key is someone else.
      await store.oauth.putUser({ username: 'nobody', passwordHash: 'x', scopes: ['a2a:discover'], createdAt: now + 1 });
      expect(await refusal(keys.authenticate(orphan.key))).toMatch(/no longer exists/);
    } finally {
      await store.close();
    }
  });
});
