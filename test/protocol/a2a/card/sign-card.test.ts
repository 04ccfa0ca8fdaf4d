import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { base64url, decodeProtectedHeader, exportJWK, FlattenedSign, generateKeyPair, type JSONWebKeySet } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyStore } from '../../../../src/core/keys/key-store.js';
import { buildAgentCard } from '../../../../src/protocol/a2a/card/build-card.js';
import { canonicalCardPayload, sdkCompatibleCardPayload } from '../../../../src/protocol/a2a/card/canonical-form.js';
import { signAgentCard, verifyAgentCard } from '../../../../src/protocol/a2a/card/sign-card.js';
import { signedWording } from '../../../../src/protocol/a2a/card/signing-keys.js';
import type { AgentCard } from '../../../../src/protocol/a2a/types.js';
import { buildOptions, richSpec } from './fixtures.js';

const asSdk = (card: AgentCard): SdkAgentCard => card as unknown as SdkAgentCard;

/** The official a2a-js verifier, fed from our JWKS by kid. */
async function sdkVerifies(card: AgentCard, jwks: JSONWebKeySet): Promise<boolean> {
  const verify = verifyAgentCardSignature(async (kid) => {
    const jwk = jwks.keys.find((k) => k.kid === kid);
    if (jwk === undefined) throw new Error(`unknown kid ${kid}`);
    return jwk;
  });
  return verify(asSdk(card)).then(
    () => true,
    () => false,
  );
}

function publicCard(): AgentCard {
  return buildAgentCard(richSpec(), buildOptions());
}

function extendedCard(): AgentCard {
  return buildAgentCard(richSpec(), buildOptions({ extended: true }));
}

/** A card whose spec-form and SDK-form payloads differ: REQUIRED empty skills, a scope-less requirement. */
function cardWithRequiredEmpties(): AgentCard {
  return buildAgentCard(
    { ...richSpec(), skills: [] },
    buildOptions({
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } }, mtls: { mtlsSecurityScheme: {} } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    }),
  );
}

let store: KeyStore;
let jwks: JSONWebKeySet;
beforeEach(async () => {
  store = new KeyStore();
  jwks = await store.jwks();
  // a2a-js logs every signature entry it could not verify; keep test output readable.
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('canonical card payload', () => {
  it('matches the worked example of spec §8.4.1 (REQUIRED empties kept, optional false kept, empty repeated omitted)', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    } as unknown as AgentCard;
    expect(canonicalCardPayload(fragment)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}');
  });

  it('excludes signatures and omits defaults of fields without presence (extension.required=false, empty tenant)', () => {
    const card = publicCard();
    const noisy = {
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, tenant: i.tenant ?? '' })),
      capabilities: { ...card.capabilities, extensions: card.capabilities.extensions!.map((e) => ({ required: false, ...e })) },
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    expect(canonicalCardPayload(noisy)).toBe(canonicalCardPayload(card));
  });

  it('equals what the official a2a-js SDK canonicalizes for every card the builder produces without REQUIRED empties', () => {
    for (const card of [publicCard(), extendedCard()]) {
      expect(canonicalCardPayload(card)).toBe(canonicalizeAgentCard(asSdk(card)));
      expect(sdkCompatibleCardPayload(card)).toBe(canonicalCardPayload(card));
    }
  });

  it('has an SDK form equal to the SDK canonicalization when the spec form keeps REQUIRED empties', () => {
    const card = cardWithRequiredEmpties();
    expect(canonicalCardPayload(card)).not.toBe(canonicalizeAgentCard(asSdk(card)));
    expect(sdkCompatibleCardPayload(card)).toBe(canonicalizeAgentCard(asSdk(card)));
  });

  it('keeps fields outside the v1.0 schema, so they are covered by the signature', () => {
    const card = { ...publicCard(), url: 'https://legacy.example' } as AgentCard;
    expect(canonicalCardPayload(card)).toContain('"url":"https://legacy.example"');
  });
});

describe('signAgentCard', () => {
  it('produces one detached JWS with protected header {alg: ES256, typ: JOSE, kid}', async () => {
    const key = await store.getSigningKey();
    const signed = await signAgentCard(publicCard(), key);
    expect(signed.signatures).toHaveLength(1);
    const sig = signed.signatures![0]!;
    expect(Object.keys(sig).sort()).toEqual(['protected', 'signature']);
    expect(decodeProtectedHeader(sig)).toEqual({ alg: 'ES256', typ: 'JOSE', kid: key.kid });
  });

  it('puts jku in the protected header when given, and rejects a jku that is not an http(s) URL', async () => {
    const key = await store.getSigningKey();
    const signed = await signAgentCard(publicCard(), key, { jku: 'https://agents.example.org/.well-known/jwks.json' });
    expect(decodeProtectedHeader(signed.signatures![0]!)).toEqual({
      alg: 'ES256',
      typ: 'JOSE',
      kid: key.kid,
      jku: 'https://agents.example.org/.well-known/jwks.json',
    });
    await expect(signAgentCard(publicCard(), key, { jku: 'file:///etc/jwks' })).rejects.toThrow(TypeError);
    await expect(signAgentCard(publicCard(), key, { jku: 'jwks.json' })).rejects.toThrow(TypeError);
  });

  it('signs the canonical payload: the JWS verifies over exactly those bytes', async () => {
    const card = publicCard();
    const signed = await signAgentCard(card, await store.getSigningKey());
    const sig = signed.signatures![0]!;
    const { flattenedVerify, createLocalJWKSet } = await import('jose');
    const result = await flattenedVerify({ payload: base64url.encode(canonicalCardPayload(card)), protected: sig.protected, signature: sig.signature }, createLocalJWKSet(jwks));
    expect(new TextDecoder().decode(result.payload)).toBe(canonicalCardPayload(card));
  });

  it('leaves the input card untouched and replaces signatures on re-signing', async () => {
    const card = publicCard();
    const before = JSON.stringify(card);
    const once = await signAgentCard(card, await store.getSigningKey());
    expect(JSON.stringify(card)).toBe(before);
    const twice = await signAgentCard(once, await store.getSigningKey());
    expect(twice.signatures).toHaveLength(1);
  });

  it('adds a second signature over the SDK form when the two canonical forms differ', async () => {
    const signed = await signAgentCard(cardWithRequiredEmpties(), await store.getSigningKey());
    expect(signed.signatures).toHaveLength(2);
  });

  it('is described by its signers, not its signature count: two signatures of one key read "by key <kid>"', async () => {
    const key = await store.getSigningKey();
    expect(signedWording(await signAgentCard(cardWithRequiredEmpties(), key))).toBe(`yes, by key ${key.kid}`);
    expect(signedWording(publicCard())).toBe('no');
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString('base64url');
    const twoKeys = {
      signatures: [
        { protected: header({ alg: 'ES256', kid: 'k1' }), signature: 'x' },
        { protected: header({ alg: 'ES256', kid: 'k2' }), signature: 'y' },
      ],
    };
    expect(signedWording(twoKeys)).toBe('yes, by keys k1, k2');
    expect(signedWording({ signatures: [{ protected: 'not json', signature: 'x' }] })).toBe('yes');
  });
});

describe('verifyAgentCard (ours) and verifyAgentCardSignature (a2a-js)', () => {
  it('both accept a card we signed', async () => {
    for (const card of [publicCard(), extendedCard()]) {
      const signed = await signAgentCard(card, await store.getSigningKey());
      expect(await verifyAgentCard(signed, jwks)).toBe(true);
      expect(await sdkVerifies(signed, jwks)).toBe(true);
    }
  });

  it('both accept a signed card after a JSON round trip (what a client receives)', async () => {
    const signed = await signAgentCard(extendedCard(), await store.getSigningKey());
    const received = JSON.parse(JSON.stringify(signed)) as AgentCard;
    expect(await verifyAgentCard(received, jwks)).toBe(true);
    expect(await sdkVerifies(received, jwks)).toBe(true);
  });

  it('both accept a card whose spec and SDK forms differ (REQUIRED empties)', async () => {
    const signed = await signAgentCard(cardWithRequiredEmpties(), await store.getSigningKey());
    expect(await verifyAgentCard(signed, jwks)).toBe(true);
    expect(await sdkVerifies(signed, jwks)).toBe(true);
  });

  it('we accept a card signed by the a2a-js SDK signer', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const sdkSigned = await generateAgentCardSignature(privateKey, { alg: 'ES256', typ: 'JOSE', kid: 'sdk-key' })(asSdk(publicCard()));
    const sdkJwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'sdk-key', alg: 'ES256' }] };
    expect(await verifyAgentCard(sdkSigned as unknown as AgentCard, sdkJwks)).toBe(true);
  });

  const tampering: Array<[string, (card: AgentCard) => void]> = [
    ['description changed', (c) => void (c.description = 'Plans routes, and more.')],
    ['interface url changed', (c) => void (c.supportedInterfaces[0]!.url = 'https://evil.example/a2a')],
    ['skill tag added', (c) => void c.skills[0]!.tags.push('admin')],
    ['skill removed', (c) => void c.skills.pop()],
    ['capability flipped', (c) => void (c.capabilities.pushNotifications = true)],
    ['security requirement dropped', (c) => void delete c.securityRequirements],
    ['provider organization changed', (c) => void (c.provider!.organization = 'Evil Org')],
  ];
  for (const [name, tamper] of tampering) {
    it(`both reject a signed card with ${name}`, async () => {
      const signed = await signAgentCard(publicCard(), await store.getSigningKey());
      const tampered = structuredClone(signed);
      tamper(tampered);
      expect(await verifyAgentCard(tampered, jwks)).toBe(false);
      expect(await sdkVerifies(tampered, jwks)).toBe(false);
    });
  }

  it('both reject tampering with a dual-signed card', async () => {
    const signed = await signAgentCard(cardWithRequiredEmpties(), await store.getSigningKey());
    const tampered = structuredClone(signed);
    tampered.name = 'Someone else';
    expect(await verifyAgentCard(tampered, jwks)).toBe(false);
    expect(await sdkVerifies(tampered, jwks)).toBe(false);
  });

  it('in spec-only mode rejects removing a scope-less requirement, which the SDK form cannot detect', async () => {
    const signed = await signAgentCard(cardWithRequiredEmpties(), await store.getSigningKey());
    const stripped = structuredClone(signed);
    delete stripped.securityRequirements;
    expect(await verifyAgentCard(stripped, jwks, { payloadForms: 'spec' })).toBe(false);
    // The documented weakness of the SDK form, shared by the a2a-js verifier:
    expect(await verifyAgentCard(stripped, jwks)).toBe(true);
    expect(await sdkVerifies(stripped, jwks)).toBe(true);
  });

  it('in spec-only mode still accepts every card we sign', async () => {
    for (const card of [publicCard(), extendedCard(), cardWithRequiredEmpties()]) {
      const signed = await signAgentCard(card, await store.getSigningKey());
      expect(await verifyAgentCard(signed, jwks, { payloadForms: 'spec' })).toBe(true);
    }
  });

  it('we reject an unsigned field added to a signed card (a2a-js does not: it drops unknown fields)', async () => {
    const signed = await signAgentCard(publicCard(), await store.getSigningKey());
    const withLegacyUrl = { ...structuredClone(signed), url: 'https://evil.example/a2a' } as AgentCard;
    expect(await verifyAgentCard(withLegacyUrl, jwks)).toBe(false);
    expect(await sdkVerifies(withLegacyUrl, jwks)).toBe(true);
  });

  it('rejects a card without signatures', async () => {
    expect(await verifyAgentCard(publicCard(), jwks)).toBe(false);
  });

  it('rejects a signature whose kid is not in the JWKS', async () => {
    const other = new KeyStore();
    const signed = await signAgentCard(publicCard(), await other.getSigningKey());
    expect(await verifyAgentCard(signed, jwks)).toBe(false);
  });

  it('rejects a signature whose protected header has no kid', async () => {
    const card = publicCard();
    const key = await store.getSigningKey();
    const jws = await new FlattenedSign(new TextEncoder().encode(canonicalCardPayload(card))).setProtectedHeader({ alg: 'ES256', typ: 'JOSE' }).sign(key.privateKey);
    expect(await verifyAgentCard({ ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] }, jwks)).toBe(false);
  });

  it('rejects an HMAC signature even when the JWKS holds a matching symmetric key', async () => {
    const card = publicCard();
    const secret = new TextEncoder().encode('a-shared-secret-of-32-bytes-long!');
    const jws = await new FlattenedSign(new TextEncoder().encode(canonicalCardPayload(card))).setProtectedHeader({ alg: 'HS256', typ: 'JOSE', kid: 'hmac' }).sign(secret);
    const withOct = { keys: [...jwks.keys, { kty: 'oct', k: base64url.encode(secret), kid: 'hmac', alg: 'HS256' }] };
    expect(await verifyAgentCard({ ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] }, withOct)).toBe(false);
  });

  it('skips malformed signature entries and still accepts a valid one after them', async () => {
    const signed = await signAgentCard(publicCard(), await store.getSigningKey());
    const entries = [{ protected: 'not-base64!', signature: 'x' }, { nonsense: true }, ...signed.signatures!];
    expect(await verifyAgentCard({ ...signed, signatures: entries as AgentCard['signatures'] }, jwks)).toBe(true);
  });
});

describe('card signatures across key rotation', () => {
  it('a card signed with the previous key verifies while that key is retained, and not after', async () => {
    let now = Date.UTC(2026, 0, 1);
    const rotating = new KeyStore({ now: () => new Date(now), retentionMs: 1000 });
    const signed = await signAgentCard(publicCard(), await rotating.getSigningKey());
    now += 10;
    await rotating.rotate();
    expect(await verifyAgentCard(signed, await rotating.jwks())).toBe(true);
    expect(await sdkVerifies(signed, await rotating.jwks())).toBe(true);
    now += 1000;
    expect(await verifyAgentCard(signed, await rotating.jwks())).toBe(false);
  });
});
