/**
 * Encryption at rest of the tokens Agentport holds for remotes (the token vault, ADR 0035):
 * AES-256-GCM (node:crypto) with a fresh 96-bit nonce per value. A sealed value names the key that
 * sealed it, so keys rotate without re-encrypting: the first configured key seals, every
 * configured key opens. The additional authenticated data binds a value to its row and field, so a
 * ciphertext copied into another user's row (or from the refresh into the access column) does not
 * open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** `vault.keys[]`: an id (stored beside each value) and 32 bytes of key. */
export interface VaultKey {
  id: string;
  key: Buffer;
}

const FORMAT = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A value that does not open: an unknown key id (removed from the config), or tampering. */
export class VaultDecryptError extends Error {
  override readonly name = 'VaultDecryptError';
}

export class TokenCipher {
  private readonly byId: ReadonlyMap<string, Buffer>;
  private readonly sealing: VaultKey;

  /** `keys`: the sealing key first, older ones after it (they still open what they sealed). */
  constructor(keys: readonly VaultKey[]) {
    if (keys.length === 0) throw new Error('the token vault needs at least one key (vault.keys)');
    for (const k of keys) if (k.key.length !== 32) throw new Error(`vault key ${k.id}: must be 32 bytes (AES-256), got ${k.key.length}`);
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.sealing = keys[0]!;
  }

  /** `context`: what the value belongs to (row and field), authenticated but not stored in it. */
  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealing.key, nonce);
    cipher.setAAD(Buffer.from(`${FORMAT}.${this.sealing.id}\n${context}`));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${FORMAT}.${this.sealing.id}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [format, keyId, nonce, body, ...rest] = sealed.split('.');
    if (format !== FORMAT || !keyId || !nonce || !body || rest.length) throw new VaultDecryptError('not a sealed vault value');
    const key = this.byId.get(keyId);
    if (!key) throw new VaultDecryptError(`sealed with vault key ${keyId}, which is no longer configured`);
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < TAG_BYTES) throw new VaultDecryptError('not a sealed vault value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(`${FORMAT}.${keyId}\n${context}`));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new VaultDecryptError(`a vault value sealed with key ${keyId} does not open (altered, or moved from another row)`);
    }
  }

  /** Whether `sealed` was sealed with a key other than the current sealing key (re-seal on next write). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.sealing.id;
  }
}
