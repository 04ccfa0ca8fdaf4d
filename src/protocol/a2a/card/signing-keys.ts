/**
 * Who signed a card, in one wording for every face (`agentport card`, the console): the distinct
 * `kid`s of its signatures' protected headers. One key usually makes two signatures, over the
 * spec's payload form and over the SDKs' (sign-card.ts), so counting signatures says "2" where
 * there is one signer.
 */
import type { AgentCard } from '../types.js';

/** The key ids named by the card's signatures, each once, in order; unreadable headers are skipped. */
export function signingKeyIds(card: Pick<AgentCard, 'signatures'>): string[] {
  const kids: string[] = [];
  for (const s of card.signatures ?? []) {
    try {
      const header = JSON.parse(Buffer.from(s.protected, 'base64url').toString('utf8')) as { kid?: unknown };
      if (typeof header.kid === 'string' && !kids.includes(header.kid)) kids.push(header.kid);
    } catch {
      // a header that is not base64url JSON names no key
    }
  }
  return kids;
}

/** `no`, `yes, by key k1`, `yes, by keys k1, k2`, or `yes` when no signature names its key. */
export function signedWording(card: Pick<AgentCard, 'signatures'>): string {
  if (!card.signatures?.length) return 'no';
  const kids = signingKeyIds(card);
  if (kids.length === 0) return 'yes';
  return `yes, by key${kids.length > 1 ? 's' : ''} ${kids.join(', ')}`;
}
