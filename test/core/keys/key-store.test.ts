import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, CompactSign, compactVerify, importJWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_KEY_RETENTION_MS, KeyStore, KeyStoreError } from '../../../src/core/keys/key-store.js';

const PUBLIC_MEMBERS = ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'];
const DAY = 24 * 60 * 60 * 1000;

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

async function signAndVerify(store: KeyStore): Promise<void> {
  const key = await store.getSigningKey();
  const jws = await new CompactSign(new TextEncoder().encode('hello')).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  const jwk = (await store.jwks()).keys.find((k) => k.kid === key.kid);
  expect(jwk).toBeDefined();
  await compactVerify(jws, await importJWK(jwk!, 'ES256'));
}

describe('KeyStore in memory', () => {
  it('generates one ES256 key on first use whose kid is its RFC 7638 thumbprint', async () => {
    const store = new KeyStore();
    const key = await store.getSigningKey();
    expect(key.alg).toBe('ES256');
    const { keys } = await store.jwks();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.kid).toBe(key.kid);
    expect(await calculateJwkThumbprint(keys[0]!, 'sha256')).toBe(key.kid);
  });

  it('returns the same key to concurrent first callers', async () => {
    const store = new KeyStore();
    const [a, b, c] = await Promise.all([store.getSigningKey(), store.getSigningKey(), store.jwks()]);
    expect(a.kid).toBe(b.kid);
    expect(c.keys.map((k) => k.kid)).toEqual([a.kid]);
  });

  it('publishes public members only, with kid, alg and use:sig', async () => {
    const store = new KeyStore();
    await store.rotate();
    const { keys } = await store.jwks();
    expect(keys).toHaveLength(2);
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(PUBLIC_MEMBERS);
      expect(k).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(k).not.toHaveProperty('d');
    }
  });

  it('signs with a key that the published JWKS verifies', async () => {
    await signAndVerify(new KeyStore());
  });

  it('jwks() output cannot be used to mutate the store', async () => {
    const store = new KeyStore();
    const first = await store.jwks();
    first.keys[0]!.x = 'tampered';
    expect((await store.jwks()).keys[0]!.x).not.toBe('tampered');
  });
});

describe('KeyStore rotation', () => {
  it('makes the new key active and lists it first while the old key stays published', async () => {
    const store = new KeyStore();
    const old = await store.getSigningKey();
    const next = await store.rotate();
    expect(next.kid).not.toBe(old.kid);
    expect((await store.getSigningKey()).kid).toBe(next.kid);
    expect((await store.jwks()).keys.map((k) => k.kid)).toEqual([next.kid, old.kid]);
  });

  it('drops a retired key from the JWKS once the retention window after its retirement has passed', async () => {
    const clock = manualClock();
    const store = new KeyStore({ now: clock.now });
    const old = await store.getSigningKey();
    clock.advance(30 * DAY); // the key's age does not matter, only the time since it was retired
    const next = await store.rotate();
    clock.advance(DEFAULT_KEY_RETENTION_MS - 1);
    expect((await store.jwks()).keys.map((k) => k.kid)).toEqual([next.kid, old.kid]);
    clock.advance(1);
    expect((await store.jwks()).keys.map((k) => k.kid)).toEqual([next.kid]);
  });

  it('honours a custom retention window', async () => {
    const clock = manualClock();
    const store = new KeyStore({ now: clock.now, retentionMs: 1000 });
    await store.getSigningKey();
    clock.advance(5000);
    const next = await store.rotate();
    clock.advance(1000);
    expect((await store.jwks()).keys.map((k) => k.kid)).toEqual([next.kid]);
  });

  it('never drops the active key however old it is', async () => {
    const clock = manualClock();
    const store = new KeyStore({ now: clock.now, retentionMs: 1 });
    const key = await store.getSigningKey();
    clock.advance(365 * DAY);
    expect((await store.jwks()).keys.map((k) => k.kid)).toEqual([key.kid]);
  });

  it('rejects a negative retention window', () => {
    expect(() => new KeyStore({ retentionMs: -1 })).toThrow(RangeError);
  });
});

describe('KeyStore on disk', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agentport-keys-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('persists the key as <dataDir>/keys/<kid>.json and loads the same key on the next start', async () => {
    const first = await new KeyStore({ dataDir }).getSigningKey();
    expect(await readdir(join(dataDir, 'keys'))).toEqual([`${first.kid}.json`]);
    const second = new KeyStore({ dataDir });
    expect((await second.getSigningKey()).kid).toBe(first.kid);
    await signAndVerify(second);
  });

  it.skipIf(process.platform === 'win32')('writes key files with mode 0600 in a 0700 directory', async () => {
    const key = await new KeyStore({ dataDir }).getSigningKey();
    expect((await stat(join(dataDir, 'keys', `${key.kid}.json`))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'keys'))).mode & 0o777).toBe(0o700);
  });

  it('stores the private JWK on disk but never lets its private member reach the JWKS', async () => {
    const store = new KeyStore({ dataDir });
    const key = await store.getSigningKey();
    const file = JSON.parse(await readFile(join(dataDir, 'keys', `${key.kid}.json`), 'utf8')) as Record<string, string>;
    expect(file).toMatchObject({ kty: 'EC', crv: 'P-256', kid: key.kid, alg: 'ES256' });
    expect(typeof file.d).toBe('string');
    const published = JSON.stringify(await store.jwks());
    expect(published).not.toContain(file.d);
    expect(published).not.toContain('createdAt');
  });

  it('keeps rotation across restarts: the newest key signs, the previous one stays published', async () => {
    const clock = manualClock();
    const store = new KeyStore({ dataDir, now: clock.now });
    const old = await store.getSigningKey();
    clock.advance(1000);
    const next = await store.rotate();
    const restarted = new KeyStore({ dataDir, now: clock.now });
    expect((await restarted.getSigningKey()).kid).toBe(next.kid);
    expect((await restarted.jwks()).keys.map((k) => k.kid)).toEqual([next.kid, old.kid]);
  });

  it('keeps the newest key active after a restart even when rotations happened within one millisecond', async () => {
    const clock = manualClock();
    const store = new KeyStore({ dataDir, now: clock.now });
    await store.getSigningKey();
    await store.rotate();
    const last = await store.rotate();
    expect((await new KeyStore({ dataDir, now: clock.now }).getSigningKey()).kid).toBe(last.kid);
  });

  it('deletes the file of a key whose retention has passed', async () => {
    const clock = manualClock();
    const store = new KeyStore({ dataDir, now: clock.now });
    const old = await store.getSigningKey();
    clock.advance(DAY);
    const next = await store.rotate();
    clock.advance(DEFAULT_KEY_RETENTION_MS);
    const restarted = new KeyStore({ dataDir, now: clock.now });
    expect((await restarted.jwks()).keys.map((k) => k.kid)).toEqual([next.kid]);
    expect(await readdir(join(dataDir, 'keys'))).toEqual([`${next.kid}.json`]);
    expect(old.kid).not.toBe(next.kid);
  });

  it('refuses to start with a key file whose kid is not its thumbprint', async () => {
    const key = await new KeyStore({ dataDir }).getSigningKey();
    const path = join(dataDir, 'keys', `${key.kid}.json`);
    const file = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...file, kid: 'someone-else' }));
    await expect(new KeyStore({ dataDir }).getSigningKey()).rejects.toMatchObject({ code: 'KEY_FILE_INVALID' });
  });

  it('refuses to start with an unreadable key file instead of silently replacing the key', async () => {
    await new KeyStore({ dataDir }).getSigningKey();
    await writeFile(join(dataDir, 'keys', 'broken.json'), '{not json');
    const err = await new KeyStore({ dataDir }).getSigningKey().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeyStoreError);
    expect(err).toMatchObject({ code: 'KEY_FILE_UNREADABLE' });
  });

  it('picks up a rotation made by another process on reload()', async () => {
    const a = new KeyStore({ dataDir });
    const b = new KeyStore({ dataDir });
    await a.getSigningKey();
    await b.getSigningKey();
    const next = await a.rotate();
    await b.reload();
    expect((await b.getSigningKey()).kid).toBe(next.kid);
  });
});
