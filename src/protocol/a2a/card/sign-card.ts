/**
 * Agent card signatures (spec v1.0.1 §8.4): a detached JWS (RFC 7515, flattened form without
 * `payload`) over the canonical card (canonical-form.ts), stored as `signatures[]` entries.
 *
 * Interop (digest §6, §12.9): the spec's presence rules keep REQUIRED empties (`skills: []`,
 * a scheme with no scopes `{}`), the a2a-js and a2a-python verifiers strip every empty value. When
 * the two payloads differ for a card, the card gets one signature over each, from the same key:
 * verifiers accept a card when any one signature verifies (§8.4.3 allows several), so both kinds
 * of verifier succeed. Cards from `buildAgentCard` usually have no empties and get one signature.
 * The extra signature weakens nothing for a spec verifier: it never computes the SDK payload, so
 * that signature cannot match what it checks.
 */
import { base64url, createLocalJWKSet, decodeProtectedHeader, FlattenedSign, flattenedVerify, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters, type KeyObject } from 'jose';
import type { AgentCard, AgentCardSignature, JsonObject } from '../types.js';
import { canonicalCardPayload, sdkCompatibleCardPayload } from './canonical-form.js';

export interface CardSigningKey {
  kid: string;
  privateKey: CryptoKey | KeyObject;
  alg: 'ES256';
}

export interface SignAgentCardOptions {
  /** JWKS URL put in the protected header (§8.4.2 MAY); must be an absolute http(s) URL. */
  jku?: string;
}

export interface VerifyAgentCardOptions {
  /** JWS algorithms accepted; default: asymmetric algorithms only, never HS* or none. */
  algorithms?: string[];
  /**
   * Payloads a signature may cover. `spec-or-sdk` (default) also accepts the SDKs' empty-stripped
   * form, so cards signed by a2a-js / a2a-python verify; `spec` accepts only the §8.4.1 form.
   * The SDK form does not cover empty values, so under it a scope-less requirement
   * (`{"schemes":{"bearer":{"list":[]}}}`) or an mTLS scheme without description can be added or
   * removed without breaking the signature; choose `spec` when that matters more than interop.
   */
  payloadForms?: 'spec' | 'spec-or-sdk';
}

export const DEFAULT_CARD_SIGNATURE_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519'];

const utf8 = new TextEncoder();

/** Candidate payloads for a card: the spec form first, then the SDK form when it differs. */
function cardPayloads(card: AgentCard, forms: 'spec' | 'spec-or-sdk' = 'spec-or-sdk'): string[] {
  const spec = canonicalCardPayload(card);
  if (forms === 'spec') return [spec];
  const sdk = sdkCompatibleCardPayload(card);
  return sdk === spec ? [spec] : [spec, sdk];
}

/**
 * Returns a copy of `card` whose `signatures` are replaced by signatures from `key`.
 * Signatures the card already had are dropped: they may cover a different version of the card.
 */
export async function signAgentCard(card: AgentCard, key: CardSigningKey, opts: SignAgentCardOptions = {}): Promise<AgentCard> {
  if (typeof key.kid !== 'string' || key.kid === '') throw new TypeError('signAgentCard: key.kid must be a non-empty string');
  const header: JWSHeaderParameters = { alg: key.alg, typ: 'JOSE', kid: key.kid };
  if (opts.jku !== undefined) {
    let url: URL;
    try {
      url = new URL(opts.jku);
    } catch {
      throw new TypeError(`signAgentCard: jku is not an absolute URL: ${opts.jku}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`signAgentCard: jku must be an http(s) URL: ${opts.jku}`);
    header.jku = opts.jku;
  }
  const signatures: AgentCardSignature[] = [];
  for (const payload of cardPayloads(card)) {
    const jws = await new FlattenedSign(utf8.encode(payload)).setProtectedHeader(header).sign(key.privateKey);
    // Detached: the payload is recomputed by the verifier from the card itself (§8.4.2 step 4).
    signatures.push({ protected: jws.protected!, signature: jws.signature });
  }
  const { signatures: _previous, ...unsigned } = card;
  return { ...unsigned, signatures };
}

/**
 * True when at least one of the card's signatures verifies with a key of `jwks`, found by the
 * `kid` of its protected header. `jku` is not followed: the caller decides which keys it trusts.
 */
export async function verifyAgentCard(card: AgentCard, jwks: JSONWebKeySet, opts: VerifyAgentCardOptions = {}): Promise<boolean> {
  const signatures: unknown = card.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) return false;
  const keys = createLocalJWKSet(jwks);
  const algorithms = [...(opts.algorithms ?? DEFAULT_CARD_SIGNATURE_ALGORITHMS)];
  const payloads = cardPayloads(card, opts.payloadForms).map((p) => base64url.encode(utf8.encode(p)));
  for (const entry of signatures) {
    if (!isSignatureEntry(entry)) continue;
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader({ protected: entry.protected, signature: entry.signature });
    } catch {
      continue;
    }
    // §8.4.2: the protected header MUST carry alg and kid; without kid no key can be chosen safely.
    if (typeof header.alg !== 'string' || typeof header.kid !== 'string' || header.kid === '') continue;
    for (const payload of payloads) {
      try {
        await flattenedVerify({ payload, protected: entry.protected, signature: entry.signature, ...(entry.header ? { header: entry.header } : {}) }, keys, { algorithms });
        return true;
      } catch {
        // try the next payload form / signature
      }
    }
  }
  return false;
}

function isSignatureEntry(v: unknown): v is { protected: string; signature: string; header?: JsonObject } {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  if (typeof e.protected !== 'string' || typeof e.signature !== 'string') return false;
  return e.header === undefined || (typeof e.header === 'object' && e.header !== null && !Array.isArray(e.header));
}
