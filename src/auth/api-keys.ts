/**
 * Stored API keys: `ap_<keyId>_<secret>`, where keyId is 16 hex characters (the lookup, safe to
 * show and log) and secret is 32 random bytes in base64url. The store keeps SHA-256(secret)
 * only; a plain hash suffices because the secret has 256 bits of entropy (no dictionary to try).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../core/authz/principal.js';
import { A2AError } from '../protocol/a2a/errors.js';
import type { StoredApiKey } from '../store/store.js';

export const API_KEY_PREFIX = 'ap_';
const FORMAT = /^ap_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** What the authenticator needs of the store. */
export interface ApiKeyLookup {
  getApiKey(keyId: string): Promise<StoredApiKey | undefined>;
}

export interface NewApiKey {
  /** the full key, shown once to whoever created it */
  key: string;
  record: StoredApiKey;
}

export function createApiKey(o: { subject: string; scopes?: readonly string[]; usecase?: string; expiresAt?: number; now?: number }): NewApiKey {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return {
    key: `${API_KEY_PREFIX}${keyId}_${secret}`,
    record: {
      keyId,
      secretHash: hashSecret(secret),
      subject: o.subject,
      scopes: [...(o.scopes ?? [])],
      ...(o.usecase === undefined ? {} : { usecase: o.usecase }),
      createdAt: o.now ?? Date.now(),
      ...(o.expiresAt === undefined ? {} : { expiresAt: o.expiresAt }),
    },
  };
}

export function parseApiKey(presented: string): { keyId: string; secret: string } | undefined {
  const m = FORMAT.exec(presented);
  return m ? { keyId: m[1]!, secret: m[2]! } : undefined;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A comparison target for unknown key ids, so a miss costs what a hit does. */
const DUMMY_HASH = hashSecret('');

export class StoredApiKeys {
  constructor(
    private readonly store: ApiKeyLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws A2AError('Unauthenticated') naming why the key is refused. */
  async authenticate(presented: string): Promise<Principal> {
    const parsed = parseApiKey(presented);
    if (!parsed) throw new A2AError('Unauthenticated', 'The API key is malformed');
    const stored = await this.store.getApiKey(parsed.keyId);
    const expected = Buffer.from(stored?.secretHash ?? DUMMY_HASH, 'hex');
    const actual = Buffer.from(hashSecret(parsed.secret), 'hex');
    const same = expected.length === actual.length && timingSafeEqual(expected, actual);
    if (!stored || !same) throw new A2AError('Unauthenticated', 'The API key is not valid');
    if (stored.revokedAt !== undefined) throw new A2AError('Unauthenticated', 'The API key has been revoked');
    if (stored.expiresAt !== undefined && stored.expiresAt <= this.now()) throw new A2AError('Unauthenticated', 'The API key has expired');
    return Object.freeze({
      subject: stored.subject,
      authenticated: true,
      scopes: Object.freeze([...stored.scopes]),
      keyId: stored.keyId,
      ...(stored.usecase === undefined ? {} : { usecase: stored.usecase }),
    });
  }
}
