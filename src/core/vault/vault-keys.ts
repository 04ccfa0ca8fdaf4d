import type { VaultConfig } from '../../config/config.js';
import type { VaultKey } from './token-cipher.js';

/** `auth.vault.keys` (validated: 32 bytes of base64 each) as cipher keys, the sealing one first. */
export function vaultKeysOf(cfg: VaultConfig): VaultKey[] {
  return cfg.keys.map((k) => ({ id: k.id, key: Buffer.from(k.secret, 'base64') }));
}
