/**
 * API keys written in the config file (`auth.apiKeys`): compared by SHA-256 digest in constant
 * time, so neither the key nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyConfig } from '../config/index.js';
import type { Principal } from '../core/authz/principal.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export class ConfigApiKeys {
  private readonly keys: Array<{ hash: Buffer; principal: Principal }>;

  constructor(keys: readonly ApiKeyConfig[]) {
    this.keys = keys.map((k) => ({
      hash: digest(k.key),
      principal: Object.freeze({ subject: k.subject, authenticated: true, scopes: Object.freeze([...k.scopes]), keyId: `config:${k.subject}` }),
    }));
  }

  /** The principal of a configured key, or undefined when `presented` is none of them. */
  match(presented: string): Principal | undefined {
    // How many keys the config holds is no secret; hashing every bearer token for nothing cost
    // ~3% of a blocking echo.
    if (this.keys.length === 0) return undefined;
    const h = digest(presented);
    let found: Principal | undefined;
    // Every key is compared, so the time taken does not say which one matched.
    for (const k of this.keys) if (timingSafeEqual(k.hash, h)) found ??= k.principal;
    return found;
  }
}
