/**
 * The server's signing keys (ES256): generated on first use, persisted as JWK files, rotated on
 * demand, and published as a JWKS. Agent cards are the first consumer (spec v1.0.1 §8.4).
 *
 * On disk: `<dataDir>/keys/<kid>.json`, one private JWK per file, mode 0600, in a 0700 directory.
 * Each file carries one non-standard member, `createdAt` (RFC 3339); RFC 7517 §4 lets JWKs carry
 * extra members, and `jwks()` copies public members by name, so it never reaches the output.
 *
 * Rotation: the newest key signs. An older key is retired the moment the next key is created and
 * stays in the JWKS for the retention window after that, so cards cached by clients (and signed
 * with it) keep verifying; after the window it leaves the JWKS and its file is deleted, because
 * the spec says expired keys MUST NOT be used for verification.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

export const SIGNING_ALG = 'ES256' as const;
export const DEFAULT_KEY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface SigningKey {
  /** RFC 7638 SHA-256 thumbprint of the public key */
  kid: string;
  privateKey: CryptoKey;
  alg: typeof SIGNING_ALG;
}

/** The only members a published key has. */
export interface PublicSigningJwk extends JWK {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: typeof SIGNING_ALG;
  use: 'sig';
}

/** Where replicas keep the keys they share (the store's signing_keys table in distributed mode). */
export interface SharedKeyPersistence {
  listSigningKeys(): Promise<Array<{ kid: string; generation: number; privateJwk: string; createdAt: number }>>;
  /** false when the generation (or kid) was taken by another replica first */
  addSigningKey(key: { kid: string; generation: number; privateJwk: string; createdAt: number }): Promise<boolean>;
  deleteSigningKeys(kids: readonly string[]): Promise<void>;
}

export interface KeyStoreOptions {
  /** Keys persist under `<dataDir>/keys/`. Absent: keys live in memory only (tests, ephemeral runs). */
  dataDir?: string;
  /**
   * Replicas share their keys through this instead of files, so a card signed by one verifies
   * against the JWKS served by any other. Takes precedence over `dataDir`.
   */
  shared?: SharedKeyPersistence;
  /** How long a retired key stays published after its successor was created. Default 7 days. */
  retentionMs?: number;
  /** Clock, injectable for tests. */
  now?: () => Date;
}

export type KeyStoreErrorCode = 'KEY_FILE_INVALID' | 'KEY_FILE_UNREADABLE';

export class KeyStoreError extends Error {
  override readonly name = 'KeyStoreError';
  constructor(
    readonly code: KeyStoreErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${message} (${path})`, options);
  }
}

interface StoredKey {
  kid: string;
  /** position in the shared key sequence (shared persistence only) */
  generation?: number;
  createdAt: Date;
  privateKey: CryptoKey;
  publicJwk: PublicSigningJwk;
  /** the private scalar `d`: input keying material for derivedSecrets(), never published */
  material: Buffer;
}

const KEY_FILE_SUFFIX = '.json';

export class KeyStore {
  private readonly keysDir: string | undefined;
  private readonly shared: SharedKeyPersistence | undefined;
  private readonly retentionMs: number;
  private readonly now: () => Date;
  /** oldest first; the last one signs */
  private keys: StoredKey[] = [];
  private loaded: Promise<void> | undefined;
  /** serializes load/rotate so concurrent callers never generate two keys */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: KeyStoreOptions = {}) {
    this.shared = options.shared;
    this.keysDir = options.dataDir === undefined || options.shared ? undefined : join(options.dataDir, 'keys');
    this.retentionMs = options.retentionMs ?? DEFAULT_KEY_RETENTION_MS;
    if (!Number.isFinite(this.retentionMs) || this.retentionMs < 0) {
      throw new RangeError(`KeyStore retentionMs must be a non-negative number, got ${String(options.retentionMs)}`);
    }
    this.now = options.now ?? (() => new Date());
  }

  /** The active key. Generates (and persists) one if the store is empty. */
  async getSigningKey(): Promise<SigningKey> {
    await this.ensureLoaded();
    const active = this.keys[this.keys.length - 1]!;
    return { kid: active.kid, privateKey: active.privateKey, alg: SIGNING_ALG };
  }

  /**
   * Secrets for MACs every replica must agree on (MCP requestStates), derived with HKDF-SHA256
   * from the published keys' private scalars under `label`: the active key's first, then those of
   * retired keys still published, so a value sealed just before a rotation still verifies. The
   * keys already live in the store every replica shares, so nothing new has to be distributed.
   */
  async derivedSecrets(label: string): Promise<Uint8Array[]> {
    await this.ensureLoaded();
    const info = `agentport derived secret: ${label}`;
    return this.publishedKeys()
      .reverse()
      .map((k) => new Uint8Array(hkdfSync('sha256', k.material, k.kid, info, 32)));
  }

  /** Public keys that verifiers may use: the active key first, then retired keys still in retention. */
  async jwks(): Promise<{ keys: PublicSigningJwk[] }> {
    await this.ensureLoaded();
    return {
      keys: this.publishedKeys()
        .reverse()
        .map((k) => ({ ...k.publicJwk })),
    };
  }

  /** Makes a new key active. The previous key stays published for the retention window. */
  async rotate(): Promise<SigningKey> {
    await this.ensureLoaded();
    await this.serialized(async () => {
      await this.addNewKey();
      await this.pruneExpired();
    });
    return this.getSigningKey();
  }

  /** Re-reads the key directory (e.g. after another process rotated). */
  async reload(): Promise<void> {
    this.loaded = undefined;
    await this.ensureLoaded();
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= this.serialized(() => this.load());
    return this.loaded;
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<void> {
    if (this.shared) this.keys = await this.readShared(this.shared);
    else this.keys = this.keysDir === undefined ? this.keys : await this.readKeyDir(this.keysDir);
    await this.pruneExpired();
    if (this.keys.length === 0) await this.addNewKey();
  }

  private publishedKeys(): StoredKey[] {
    const now = this.now().getTime();
    return this.keys.filter((_key, i) => {
      const successor = this.keys[i + 1];
      return successor === undefined || now - successor.createdAt.getTime() < this.retentionMs;
    });
  }

  private async pruneExpired(): Promise<void> {
    const published = new Set(this.publishedKeys());
    const expired = this.keys.filter((k) => !published.has(k));
    this.keys = this.keys.filter((k) => published.has(k));
    if (this.shared) {
      if (expired.length) await this.shared.deleteSigningKeys(expired.map((k) => k.kid));
      return;
    }
    if (this.keysDir === undefined) return;
    for (const key of expired) await rm(join(this.keysDir, key.kid + KEY_FILE_SUFFIX), { force: true });
  }

  private async addNewKey(): Promise<void> {
    const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const publicJwk = toPublicJwk(privateJwk, await thumbprint(privateJwk));
    // createdAt strictly increases so the newest key is unambiguous even within one millisecond.
    const last = this.keys[this.keys.length - 1];
    const nowMs = this.now().getTime();
    const createdAt = new Date(last === undefined ? nowMs : Math.max(nowMs, last.createdAt.getTime() + 1));
    const stored: StoredKey = { kid: publicJwk.kid, createdAt, privateKey, publicJwk, material: Buffer.from(privateJwk.d!, 'base64url') };
    if (this.shared) {
      const generation = (last?.generation ?? 0) + 1;
      const content = { ...privateJwk, kid: stored.kid, alg: SIGNING_ALG, use: 'sig', createdAt: createdAt.toISOString() };
      const added = await this.shared.addSigningKey({ kid: stored.kid, generation, privateJwk: JSON.stringify(content), createdAt: createdAt.getTime() });
      // Another replica created or rotated at the same moment: its key wins, everyone uses it.
      this.keys = added ? [...this.keys, { ...stored, generation }] : await this.readShared(this.shared);
      return;
    }
    if (this.keysDir !== undefined) await this.writeKeyFile(this.keysDir, stored, privateJwk);
    this.keys.push(stored);
  }

  private async readShared(shared: SharedKeyPersistence): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    for (const row of await shared.listSigningKeys()) {
      const key = await parseKey(row.privateJwk, `signing_keys/${row.kid}`);
      keys.push({ ...key, generation: row.generation });
    }
    return keys.sort((a, b) => (a.generation ?? 0) - (b.generation ?? 0));
  }

  private async writeKeyFile(dir: string, key: StoredKey, privateJwk: JWK): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, key.kid + KEY_FILE_SUFFIX);
    const tmp = join(dir, `.${key.kid}.${randomBytes(6).toString('hex')}.tmp`);
    const content = { ...privateJwk, kid: key.kid, alg: SIGNING_ALG, use: 'sig', createdAt: key.createdAt.toISOString() };
    // Written under a temporary name and renamed, so a crash never leaves a half-written key.
    await writeFile(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, file);
  }

  private async readKeyDir(dir: string): Promise<StoredKey[]> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new KeyStoreError('KEY_FILE_UNREADABLE', dir, 'cannot list the key directory', { cause: err });
    }
    const keys: StoredKey[] = [];
    for (const name of names.filter((n) => n.endsWith(KEY_FILE_SUFFIX) && !n.startsWith('.')).sort()) {
      keys.push(await readKeyFile(join(dir, name)));
    }
    return keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.kid < b.kid ? -1 : 1));
  }
}

async function readKeyFile(path: string): Promise<StoredKey> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KeyStoreError('KEY_FILE_UNREADABLE', path, 'cannot read key file', { cause: err });
  }
  const key = await parseKey(text, path);
  // Best effort: tighten a file someone copied in with looser permissions.
  await chmod(path, 0o600).catch(() => undefined);
  return key;
}

/** A stored private JWK (file content or a signing_keys row), validated; `path` names it in errors. */
async function parseKey(text: string, path: string): Promise<StoredKey> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new KeyStoreError('KEY_FILE_UNREADABLE', path, 'cannot read key file as JSON', { cause: err });
  }
  // A key file that fails validation stops the start: silently replacing it would rotate the
  // server's identity behind the operator's back.
  const invalid = (why: string): KeyStoreError => new KeyStoreError('KEY_FILE_INVALID', path, why);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('key file is not a JSON object');
  const jwk = raw as Record<string, unknown>;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw invalid('key is not an EC P-256 key');
  for (const member of ['x', 'y', 'd'] as const) {
    if (typeof jwk[member] !== 'string' || jwk[member] === '') throw invalid(`key member "${member}" is missing`);
  }
  if (jwk.alg !== undefined && jwk.alg !== SIGNING_ALG) throw invalid(`key alg is ${String(jwk.alg)}, expected ${SIGNING_ALG}`);
  const createdAt = typeof jwk.createdAt === 'string' ? new Date(jwk.createdAt) : new Date(NaN);
  if (Number.isNaN(createdAt.getTime())) throw invalid('key member "createdAt" is missing or not a date');

  const privateJwk: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string, d: jwk.d as string };
  const kid = await thumbprint(privateJwk);
  if (jwk.kid !== undefined && jwk.kid !== kid) throw invalid('key "kid" does not match its RFC 7638 thumbprint');
  let privateKey: CryptoKey;
  try {
    privateKey = (await importJWK(privateJwk, SIGNING_ALG)) as CryptoKey;
  } catch (err) {
    throw new KeyStoreError('KEY_FILE_INVALID', path, 'key material is not a valid P-256 private key', { cause: err });
  }
  return { kid, createdAt, privateKey, publicJwk: toPublicJwk(privateJwk, kid), material: Buffer.from(jwk.d as string, 'base64url') };
}

function thumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, 'sha256');
}

/** Copies public members by name: whatever else a JWK carries (d, createdAt, …) cannot leak. */
function toPublicJwk(jwk: JWK, kid: string): PublicSigningJwk {
  if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string') throw new TypeError('EC JWK without x/y');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: SIGNING_ALG, use: 'sig' };
}
