/**
 * Stored API keys: `ap_<keyId>_<secret>`, where keyId is 16 hex characters (the lookup, safe to
 * show and log) and secret is 32 random bytes in base64url. The store keeps SHA-256(secret)
 * only; a plain hash suffices because the secret has 256 bits of entropy (no dictionary to try).
 */
import * as crypto from 'node:crypto';
import type { Principal } from '../core/authz/principal.js';
import { holdsScope } from '../core/authz/scopes.js';
import { A2AError } from '../protocol/a2a/errors.js';
import type { StoredApiKey } from '../store/store.js';
import { apiKeyRecords, type ApiKeyLookup } from './api-key-record-cache.js';

export const API_KEY_PREFIX = 'ap_';

export type { ApiKeyLookup } from './api-key-record-cache.js';

export interface NewApiKey {
  /** the full key, shown once to whoever created it */
  key: string;
  record: StoredApiKey;
}

export function createApiKey(o: { subject: string; scopes?: readonly string[]; usecase?: string; expiresAt?: number; now?: number; owner?: string; grantId?: string }): NewApiKey {
  const keyId = crypto.randomBytes(8).toString('hex');
  const secret = crypto.randomBytes(32).toString('base64url');
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
      ...(o.owner === undefined ? {} : { owner: o.owner }),
      ...(o.grantId === undefined ? {} : { grantId: o.grantId }),
    },
  };
}

/**
 * The scopes a key has now, given what it stands on (issue 25, K4; read with the key in one
 * statement, src/store/api-key-rows.ts apiKeyRows): a self-made key ends with its owner (a user
 * created after the key is a new person under the old name) and holds no more than the owner
 * holds now; a key minted through an OAuth grant ends with the grant. Throws Unauthenticated.
 */
export function standingScopes(stored: StoredApiKey, now: number): string[] {
  checkStanding(stored, now);
  return scopesOfStanding(stored);
}

/** Throws Unauthenticated when what the key stands on (its grant, its owner) has ended by `now`. */
function checkStanding(stored: StoredApiKey, now: number): void {
  if (stored.grantId !== undefined) {
    const grant = stored.standing?.grant;
    if (!grant || grant.revokedAt !== undefined || (grant.expiresAt !== undefined && grant.expiresAt <= now)) {
      throw new A2AError('Unauthenticated', 'The API key has been revoked: the sign-in it was made through has ended');
    }
  }
  if (stored.owner !== undefined) {
    const owner = stored.standing?.ownerNow;
    if (!owner || owner.createdAt > stored.createdAt) throw new A2AError('Unauthenticated', 'The API key has been revoked: the user who made it no longer exists');
  }
}

/** The key's scopes cut to its owner's current ones (a standing checkStanding accepted). */
function scopesOfStanding(stored: StoredApiKey): string[] {
  const owner = stored.standing?.ownerNow;
  if (stored.owner === undefined || !owner) return [...stored.scopes];
  const holder: Principal = { subject: stored.owner, authenticated: true, scopes: owner.scopes };
  return stored.scopes.filter((s) => holdsScope(holder, s));
}

/** The key's shape, checked without captures (no match array a call): the parts are at fixed places. */
const WELL_FORMED = /^ap_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const KEY_ID_START = API_KEY_PREFIX.length;
const KEY_ID_END = KEY_ID_START + 16;
/** after the key id and its `_` */
const SECRET_START = KEY_ID_END + 1;

/** The key id of a well-formed key (WELL_FORMED), and its secret. */
const keyIdOf = (wellFormed: string): string => wellFormed.slice(KEY_ID_START, KEY_ID_END);
const secretOf = (wellFormed: string): string => wellFormed.slice(SECRET_START);

export function parseApiKey(presented: string): { keyId: string; secret: string } | undefined {
  return WELL_FORMED.test(presented) ? { keyId: keyIdOf(presented), secret: secretOf(presented) } : undefined;
}

/** SHA-256 in hex: Node's one-shot `crypto.hash` (20.12 on) builds no Hash object per call. */
export const hashSecret: (secret: string) => string = typeof crypto.hash === 'function' ? (secret) => crypto.hash('sha256', secret) : (secret) => crypto.createHash('sha256').update(secret).digest('hex');

/** A comparison target for unknown key ids, so a miss costs what a hit does. */
const DUMMY_HASH = hashSecret('');

/**
 * The bytes a digest is compared by: its hex text, one byte a character (no hex decoding, which
 * copies the string to UTF-16 first), in lower case as hashSecret writes it.
 */
function digestBytes(hex: string): Buffer {
  return Buffer.from(hex.toLowerCase(), 'latin1');
}

/** hashSecret's 64 hex characters. */
const DIGEST_HEX_LENGTH = 64;

/**
 * Where a presented secret's digest is written to be compared: one buffer for the process, filled
 * and compared in the same synchronous step (no await between), so no call sees another's bytes.
 * A Buffer a call cost ~1.1 k instructions (callgrind, issue 26). It holds a digest, never a secret.
 */
const presentedDigest = Buffer.alloc(DIGEST_HEX_LENGTH);

/** Whether `secret`'s digest is `expected` (digestBytes of a stored hash), in constant time. */
function secretMatches(secret: string, expected: Buffer): boolean {
  const hex = hashSecret(secret);
  if (hex.length !== DIGEST_HEX_LENGTH || expected.length !== DIGEST_HEX_LENGTH) return false;
  presentedDigest.write(hex, 0, DIGEST_HEX_LENGTH, 'latin1');
  return crypto.timingSafeEqual(expected, presentedDigest);
}

/** What is worked out once from a kept record (frozen, handed to every call until the generation moves). */
interface KeptRecord {
  /** its secret's digest, as compared */
  expected: Buffer;
  /** who it is, once its standing was first accepted: a function of the record alone */
  principal?: Principal;
}

export class StoredApiKeys {
  /** the store, through a cache of its records where it can tell cheaply that none has changed (api-key-record-cache.ts) */
  private readonly records: ApiKeyLookup;
  /** by kept record; a record read afresh on every call (PostgreSQL) is worked out on every call */
  private readonly kept = new WeakMap<StoredApiKey, KeptRecord>();

  constructor(
    store: ApiKeyLookup,
    private readonly now: () => number = Date.now,
  ) {
    this.records = apiKeyRecords(store);
  }

  /** Throws A2AError('Unauthenticated') naming why the key is refused. */
  async authenticate(presented: string): Promise<Principal> {
    return this.answer(presented);
  }

  /**
   * `authenticate`, answered at once when the key's record is kept (no promise, no await: issue
   * 26, CPU a request with a key), else a promise of the answer. Throws (at once, or by rejecting)
   * A2AError('Unauthenticated') naming why the key is refused. The same checks either way.
   */
  answer(presented: string): Principal | Promise<Principal> {
    if (!WELL_FORMED.test(presented)) throw new A2AError('Unauthenticated', 'The API key is malformed');
    const keyId = keyIdOf(presented);
    if (!this.records.apiKeyNow) return this.records.getApiKey(keyId).then((stored) => this.judge(presented, stored));
    const stored = this.records.apiKeyNow(keyId);
    return stored instanceof Promise ? stored.then((s) => this.judge(presented, s)) : this.judge(presented, stored);
  }

  /** The caller `presented` (well formed) names, given its key id's record; throws Unauthenticated. */
  private judge(presented: string, stored: StoredApiKey | undefined): Principal {
    const kept = stored && Object.isFrozen(stored) ? this.keptRecord(stored) : undefined;
    const expected = kept?.expected ?? digestBytes(stored?.secretHash ?? DUMMY_HASH);
    const same = secretMatches(secretOf(presented), expected);
    if (!stored || !same) throw new A2AError('Unauthenticated', 'The API key is not valid');
    if (stored.revokedAt !== undefined) throw new A2AError('Unauthenticated', 'The API key has been revoked');
    const now = this.now();
    if (stored.expiresAt !== undefined && stored.expiresAt <= now) throw new A2AError('Unauthenticated', 'The API key has expired');
    checkStanding(stored, now);
    if (!kept) return principalOf(stored);
    kept.principal ??= principalOf(stored);
    return kept.principal;
  }

  private keptRecord(stored: StoredApiKey): KeptRecord {
    let kept = this.kept.get(stored);
    if (!kept) {
      kept = { expected: digestBytes(stored.secretHash) };
      this.kept.set(stored, kept);
    }
    return kept;
  }
}

/** Who a key whose standing was checked is. */
function principalOf(stored: StoredApiKey): Principal {
  return Object.freeze({
    subject: stored.subject,
    authenticated: true,
    scopes: Object.freeze(scopesOfStanding(stored)),
    keyId: stored.keyId,
    ...(stored.usecase === undefined ? {} : { usecase: stored.usecase }),
  });
}
