/**
 * The agent card both protocol generations can read, for card requests without `A2A-Version`.
 *
 * Deployed v0.3 clients (a2a-js 0.3, a2a-python 0.3 and the frameworks on them) fetch
 * `/.well-known/agent-card.json` without the header and read `url`, `preferredTransport` and
 * `additionalInterfaces`; v1.0 clients fetch the same URL and read `supportedInterfaces`. So the
 * headerless card is the v1.0 card with the v0.3 fields beside it (as the a2a-js 1.x server's
 * legacy card does), with one difference: members both generations name (`securitySchemes`) keep
 * the v1.0 form and gain the v0.3 members, so each scheme object reads correctly as either
 * (`{"apiKeySecurityScheme": {…}, "type": "apiKey", "in": "header", "name": "X-API-Key"}`);
 * both generations' parsers ignore members they do not know.
 *
 * Signatures (docs/compliance.md): the v1.0 card's own signatures are kept, because the SDK
 * verifiers parse the card into v1.0 types before canonicalizing, which drops every v0.3 member,
 * so what they check is exactly the v1.0 card. One more signature covers the whole served card
 * (v0.3 members included) in the spec's canonical form, so a verifier that canonicalizes what it
 * received, as verifyAgentCard does, covers the v0.3 `url` too.
 */
import type { AgentCard, AgentCardSignature } from '../a2a/types.js';
import { agentCardFromV1 } from './cards.js';

/** A v1.0 AgentCard plus v0.3 members; typed as AgentCard so the card signer takes it as is. */
export type DualGenerationCard = AgentCard & Record<string, unknown>;

/** The v1.0 card with the v0.3 members added; without signatures (see signDualCard). */
export function dualGenerationCard(card: AgentCard): DualGenerationCard {
  const v03 = agentCardFromV1(card);
  const { signatures: _own, ...v1 } = card;
  const out: DualGenerationCard = {
    ...v1,
    protocolVersion: v03.protocolVersion,
    url: v03.url,
    preferredTransport: v03.preferredTransport,
    ...(v03.additionalInterfaces ? { additionalInterfaces: v03.additionalInterfaces } : {}),
    ...(v03.security ? { security: v03.security } : {}),
    ...(v03.supportsAuthenticatedExtendedCard !== undefined ? { supportsAuthenticatedExtendedCard: v03.supportsAuthenticatedExtendedCard } : {}),
    skills: card.skills.map((s, i) => {
      const security = v03.skills[i]?.security;
      return security ? { ...s, security } : s;
    }),
  };
  if (card.securitySchemes && v03.securitySchemes) {
    const v03Schemes = v03.securitySchemes;
    out.securitySchemes = Object.fromEntries(Object.entries(card.securitySchemes).map(([name, s]) => [name, { ...s, ...v03Schemes[name] }])) as AgentCard['securitySchemes'];
  }
  return out;
}

/**
 * The signatures of the dual card: the v1.0 card's own (what the SDK verifiers check), then
 * `overWhole`, signatures over the dual card itself as served.
 */
export function dualCardSignatures(v1Card: AgentCard, overWhole: AgentCardSignature[]): AgentCardSignature[] {
  return [...(v1Card.signatures ?? []), ...overWhole];
}
