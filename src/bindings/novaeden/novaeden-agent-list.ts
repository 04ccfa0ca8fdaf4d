/**
 * The registry as the replaced service returned it: a JSON array of agent cards, in the card shape
 * of `/.well-known/agent.json` (A2A v0.3, which its clients read), only the agents the caller may
 * see. Agentport's own summary (`{agents: [{id, name, …}]}`) stays the default of
 * `GET /api/v1/agents`; `?view=cards` asks for this one (docs/migrating-from-novaeden.md).
 */
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { Principal } from '../../core/authz/principal.js';
import type { V03AgentCard } from '../../protocol/a2a-v03/cards.js';
import { v03CardOf } from '../a2a-legacy/v03/cards.js';

export function novaedenAgentCards(registry: AgentRegistry, policy: AuthorizationPolicy | undefined, principal: Principal): V03AgentCard[] {
  return registry
    .list()
    .filter((a) => !policy || policy.canSeeAgent(principal, a.id))
    .map((a) => v03CardOf(a.publicCard));
}
