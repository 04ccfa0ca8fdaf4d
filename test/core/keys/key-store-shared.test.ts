/**
 * Replicas share signing keys through the store (distributed mode): every KeyStore over the same
 * store signs with the same key and publishes the same JWKS, also when they start or rotate at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../../../src/core/keys/key-store.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';

let store: SqliteStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function sharedStore(): Promise<SqliteStore> {
  store = await openSqliteStore({ file: ':memory:' });
  await store.migrate();
  return store;
}

describe('KeyStore over shared persistence', () => {
  it('gives replicas starting at once one key between them', async () => {
    const shared = await sharedStore();
    const replicas = [new KeyStore({ shared }), new KeyStore({ shared }), new KeyStore({ shared })];
    const keys = await Promise.all(replicas.map((r) => r.getSigningKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect(await shared.listSigningKeys()).toHaveLength(1);
    for (const r of replicas) expect((await r.jwks()).keys.map((k) => k.kid)).toEqual([keys[0]!.kid]);
  });

  it('lets a rotation on one replica reach another on reload, keeping the old key published', async () => {
    const shared = await sharedStore();
    const a = new KeyStore({ shared });
    const b = new KeyStore({ shared });
    const first = await a.getSigningKey();
    expect((await b.getSigningKey()).kid).toBe(first.kid);
    const second = await a.rotate();
    expect(second.kid).not.toBe(first.kid);
    await b.reload();
    expect((await b.getSigningKey()).kid).toBe(second.kid);
    expect((await b.jwks()).keys.map((k) => k.kid)).toEqual([second.kid, first.kid]);
  });

  it('resolves two rotations at the same moment to one winner everyone signs with', async () => {
    const shared = await sharedStore();
    const a = new KeyStore({ shared });
    const b = new KeyStore({ shared });
    await Promise.all([a.getSigningKey(), b.getSigningKey()]);
    await Promise.all([a.rotate(), b.rotate()]);
    const rows = await shared.listSigningKeys();
    expect(rows.map((r) => r.generation)).toEqual([1, 2]);
    await Promise.all([a.reload(), b.reload()]);
    expect((await a.getSigningKey()).kid).toBe(rows[1]!.kid);
    expect((await b.getSigningKey()).kid).toBe(rows[1]!.kid);
  });
});
