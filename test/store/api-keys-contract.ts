/**
 * Stored API keys, part of the Store contract: only hashes are kept, lookups go by key id, and a
 * revocation sticks at its first time.
 */
import { describe, expect, it } from 'vitest';
import type { StoredApiKey } from '../../src/store/store.js';
import { T0 } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

const key = (keyId: string, extra: Partial<StoredApiKey> = {}): StoredApiKey => ({
  keyId,
  secretHash: 'ab'.repeat(32),
  subject: `subject-${keyId}`,
  scopes: ['a2a:discover', 'a2a:publish'],
  createdAt: T0,
  ...extra,
});

export function describeApiKeysContract(ctx: ContractContext): void {
  describe('api keys', () => {
    it('stores a key and reads it back by id, optional fields absent when unset', async () => {
      await ctx.store().putApiKey(key('k1'));
      expect(await ctx.store().getApiKey('k1')).toEqual(key('k1'));
      expect(await ctx.store().getApiKey('nope')).toBeUndefined();
    });

    it('keeps usecase, expiry and an empty scope list', async () => {
      const full = key('k2', { scopes: [], usecase: 'sales', expiresAt: T0 + 86_400_000_000 });
      await ctx.store().putApiKey(full);
      expect(await ctx.store().getApiKey('k2')).toEqual(full);
    });

    it('refuses a second key with the same id and keeps the first', async () => {
      await ctx.store().putApiKey(key('k1'));
      await expect(ctx.store().putApiKey(key('k1', { subject: 'intruder' }))).rejects.toThrow(/UNIQUE constraint failed: api_keys\.key_id|duplicate key value violates unique constraint/);
      expect((await ctx.store().getApiKey('k1'))?.subject).toBe('subject-k1');
    });

    it('lists every key oldest first, revoked ones included', async () => {
      await ctx.store().putApiKey(key('b', { createdAt: T0 + 2 }));
      await ctx.store().putApiKey(key('a', { createdAt: T0 + 1 }));
      await ctx.store().putApiKey(key('c', { createdAt: T0 + 2 }));
      await ctx.store().revokeApiKey('a', T0 + 5);
      expect((await ctx.store().listApiKeys()).map((k) => k.keyId)).toEqual(['a', 'b', 'c']);
      expect(await ctx.store().listApiKeys()).toHaveLength(3);
    });

    it('revokes once: the first revocation time stays; an unknown id answers false', async () => {
      await ctx.store().putApiKey(key('k1'));
      expect(await ctx.store().revokeApiKey('k1', T0 + 10)).toBe(true);
      expect(await ctx.store().revokeApiKey('k1', T0 + 20)).toBe(true);
      expect((await ctx.store().getApiKey('k1'))?.revokedAt).toBe(T0 + 10);
      expect(await ctx.store().revokeApiKey('nope', T0)).toBe(false);
    });
  });
}
