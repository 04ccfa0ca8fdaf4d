/**
 * Lets oidc-provider sign access tokens with Agentport's KeyStore (the keys of
 * /.well-known/jwks.json, rotation included), so the resource server's verifier
 * (src/auth/jwt-bearer.ts) needs no second key set and a rotation reaches the OAuth server too.
 *
 * oidc-provider's keystore is fixed when the provider is built; its `ExternalSigningKey` asks us
 * for `kid` and a signature instead of holding key material. `refresh()` is awaited before each
 * token is made (resource server info is resolved per token request), so `kid` and `sign` always
 * name the key that is active at that moment; both read the same snapshot.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ExternalSigningKey } from 'oidc-provider';
import type { KeyStore, PublicSigningJwk } from '../../core/keys/key-store.js';

interface Snapshot {
  kid: string;
  privateKey: CryptoKey;
  publicKey: KeyObject;
}

export async function createKeyStoreSigningKey(Base: typeof ExternalSigningKey, keys: KeyStore) {
  class KeyStoreSigningKey extends Base {
    current: Snapshot | undefined;

    override get kid(): string {
      return this.current?.kid ?? 'pending';
    }
    override set kid(_v: string) {
      // the KeyStore names its keys (RFC 7638 thumbprints); oidc-provider may not rename them
    }
    override get alg(): string {
      return 'ES256';
    }
    override set alg(_v: string) {}

    get kty() {
      return 'EC';
    }
    get crv() {
      return 'P-256';
    }

    async refresh(): Promise<void> {
      const key = await keys.getSigningKey();
      if (this.current?.kid === key.kid) return;
      const jwk = (await keys.jwks()).keys.find((k: PublicSigningJwk) => k.kid === key.kid);
      if (!jwk) throw new Error('the active signing key is not published');
      this.current = { kid: key.kid, privateKey: key.privateKey as CryptoKey, publicKey: createPublicKey({ key: { ...jwk }, format: 'jwk' }) };
    }

    override keyObject(): KeyObject {
      if (!this.current) throw new Error('signing key not loaded');
      return this.current.publicKey;
    }

    override async sign(data: Uint8Array): Promise<Uint8Array> {
      if (!this.current) throw new Error('signing key not loaded');
      // WebCrypto ECDSA signatures are r||s (IEEE P1363), which is what JWS ES256 wants.
      const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.current.privateKey, new Uint8Array(data));
      return new Uint8Array(sig);
    }
  }
  const key = new KeyStoreSigningKey();
  await key.refresh();
  return key;
}

export type KeyStoreSigningKey = Awaited<ReturnType<typeof createKeyStoreSigningKey>>;
