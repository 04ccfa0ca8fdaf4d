/**
 * The answer to a request for an agent that is not here (or that the caller may not see, which
 * must look the same): it names the agents anyone may discover, so a typo teaches the right id.
 * Only agents every caller may see are named (public, of no usecase: src/core/authz), whoever
 * asks: the answer then cannot differ between an unknown agent and a hidden or another usecase's
 * one, for any caller.
 */
import type { AuthorizationPolicy } from '../authz/policy.js';
import type { AgentRegistry } from './agent-registry.js';

export function unknownAgentMessage(agentId: string, registry: AgentRegistry, policy: AuthorizationPolicy | undefined, surface: 'a2a' | 'mcp' = 'a2a'): string {
  const ids = registry
    .list()
    .map((a) => a.id)
    .filter((id) => !policy || policy.seenByEveryone(id, surface));
  return ids.length ? `No agent '${agentId}' here; the agents here are: ${ids.join(', ')}` : `No agent '${agentId}' here`;
}
