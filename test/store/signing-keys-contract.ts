/**
 * Shared signing keys, part of the Store contract: replicas publish one JWKS and sign with one
 * key, and concurrent rotations from the same key settle on a single winner.
 */
import { describe, expect, it } from 'vitest';
import type { StoredSigningKey } from '../../src/store/store.js';
import { T0 } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

const key = (kid: string, generation: number, createdAt = T0 + generation): StoredSigningKey => ({
  kid,
  generation,
  privateJwk: JSON.stringify({ kty: 'EC', crv: 'P-256', kid, d: `d-${kid}`, x: 'x', y: 'y' }),
  createdAt,
});

export function describeSigningKeysContract(ctx: ContractContext): void {
  describe('signing keys', () => {
    it('lists no keys at first, then every added key, oldest generation first', async () => {
      expect(await ctx.store().listSigningKeys()).toEqual([]);
      expect(await ctx.store().addSigningKey(key('k2', 2))).toBe(true);
      expect(await ctx.store().addSigningKey(key('k1', 1))).toBe(true);
      expect(await ctx.store().listSigningKeys()).toEqual([key('k1', 1), key('k2', 2)]);
    });

    it('refuses a key whose generation or kid is taken, keeping the first', async () => {
      await ctx.store().addSigningKey(key('k1', 1));
      expect(await ctx.store().addSigningKey(key('other', 1))).toBe(false);
      expect(await ctx.store().addSigningKey(key('k1', 2))).toBe(false);
      expect(await ctx.store().listSigningKeys()).toEqual([key('k1', 1)]);
    });

    it('deletes the given keys and ignores unknown kids', async () => {
      await ctx.store().addSigningKey(key('k1', 1));
      await ctx.store().addSigningKey(key('k2', 2));
      await ctx.store().deleteSigningKeys(['k1', 'nope']);
      await ctx.store().deleteSigningKeys([]);
      expect((await ctx.store().listSigningKeys()).map((k) => k.kid)).toEqual(['k2']);
    });

    it.skipIf(!ctx.options.openPeer)('lets exactly one of two replicas rotating at once add the next generation', async () => {
      const peer = await ctx.options.openPeer!();
      try {
        await peer.migrate();
        await ctx.store().addSigningKey(key('k1', 1));
        for (let generation = 2; generation <= 10; generation++) {
          const [a, b] = await Promise.all([ctx.store().addSigningKey(key(`a${generation}`, generation)), peer.addSigningKey(key(`b${generation}`, generation))]);
          expect([a, b].filter(Boolean)).toHaveLength(1);
        }
        const keys = await peer.listSigningKeys();
        expect(keys.map((k) => k.generation)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(await ctx.store().listSigningKeys()).toEqual(keys);
      } finally {
        await peer.close();
      }
    });
  });
}
