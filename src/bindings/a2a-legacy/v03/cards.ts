/**
 * The v0.3 views of an agent's cards: the v0.3 interfaces a v1.0 card declares, the card both
 * generations read (src/protocol/a2a-v03/dual-card.ts), and the v0.3 card shape for clients that ask for it.
 */
import type { Config } from '../../../config/index.js';
import type { AgentCard, AgentInterface } from '../../../protocol/a2a/types.js';
import { agentCardFromV1, type V03AgentCard } from '../../../protocol/a2a-v03/cards.js';
import { dualCardSignatures, dualGenerationCard } from '../../../protocol/a2a-v03/dual-card.js';
import { isV03Version } from '../../a2a-common/service-params.js';

/**
 * v0.3 is translated at the edge on the same URLs: slash methods on the JSON-RPC URL and `/v1/…`
 * paths beneath the base. Declared so that v1.0-aware clients with v0.3 support (a2a-js
 * `legacyCompat`) may pick them.
 */
export function v03Interfaces(config: Config, agentId: string, base: string): AgentInterface[] {
  const out: AgentInterface[] = [
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
  ];
  // The v0.3 gRPC service (a2a.v1) has no tenant field, so it can only serve the primary agent.
  if (config.server.grpc.enabled && agentId === config.primaryAgent) {
    out.push({ url: config.server.grpc.publicUrl, protocolBinding: 'GRPC', protocolVersion: '0.3' });
  }
  return out;
}

/** The v1.0 card with v0.3 members; signed as dual-card.ts explains when the v1.0 card is. */
export async function headerlessCardOf(publicCard: AgentCard, sign: (card: AgentCard) => Promise<AgentCard>): Promise<AgentCard> {
  const dual = dualGenerationCard(publicCard);
  if (!publicCard.signatures?.length) return dual;
  const whole = await sign(dual);
  return { ...dual, signatures: dualCardSignatures(publicCard, whole.signatures ?? []) };
}

/**
 * The card shape a card request gets. `A2A-Version: 0.3[.x]` (or 0.2, whose cards had the same
 * shape) gets v0.3; any other version, v1.0. A missing header gets `both`: the spec leaves this
 * open (digest §12.12); a missing header means 0.3 for A2A calls (§3.6.2), yet v1.0 clients and
 * the TCK fetch cards without one too, so the answer is the card both read (src/protocol/a2a-v03/dual-card.ts), or the
 * exact v1.0 card with `cards.v03Fields: false`.
 */
export function cardVersionFor(header: string | string[] | undefined): '0.3' | '1.0' | 'both' {
  const given = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!given) return 'both';
  return isV03Version(given) || /^0\.2(\.\d+)?$/.test(given) ? '0.3' : '1.0';
}

const v03Cards = new WeakMap<AgentCard, V03AgentCard>();

/** The v0.3 shape of a card, computed once per card object (cards are immutable once registered). */
export function v03CardOf(card: AgentCard): V03AgentCard {
  let v03 = v03Cards.get(card);
  if (!v03) v03Cards.set(card, (v03 = agentCardFromV1(card)));
  return v03;
}
