/**
 * Card signature checks for clients (spec §8.4.2): at least one JWS signature over the card must
 * verify with a key the caller trusts. The JWKS is given, or fetched from a URL the caller names;
 * a `jku` in the signature header is not followed (it would let the card choose its own keys).
 */
import type { JSONWebKeySet } from 'jose';
import { verifyAgentCard } from '../protocol/a2a/card/sign-card.js';
import type { AgentCard } from '../protocol/a2a/types.js';
import { AgentCardError, CardSignatureError } from './errors.js';

export interface CardVerification {
  /** a key set, or the URL of one (e.g. https://agents.example.com/.well-known/jwks.json) */
  jwks: JSONWebKeySet | string;
  fetch?: typeof fetch;
}

export async function loadJwks(source: JSONWebKeySet | string, fetchImpl: typeof fetch = fetch): Promise<JSONWebKeySet> {
  if (typeof source !== 'string') return source;
  let res: Response;
  try {
    res = await fetchImpl(source, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    throw new AgentCardError(`cannot fetch the JWKS at ${source}: ${(err as Error).message}`, source, { cause: err });
  }
  const body = (await res.json().catch(() => undefined)) as JSONWebKeySet | undefined;
  if (!res.ok || !body || !Array.isArray(body.keys)) throw new AgentCardError(`${source} is not a JWKS (HTTP ${res.status})`, source, { status: res.status });
  return body;
}

/** Throws AgentCardError unless a signature of `card` verifies with the trusted keys. */
export async function verifyCardSignature(card: AgentCard, cardUrl: string, v: CardVerification): Promise<void> {
  if (!card.signatures?.length) throw new CardSignatureError(`the card at ${cardUrl} is not signed`, cardUrl);
  const jwks = await loadJwks(v.jwks, v.fetch);
  if (!(await verifyAgentCard(card, jwks))) throw new CardSignatureError(`no signature of the card at ${cardUrl} verifies with the trusted keys`, cardUrl);
}
