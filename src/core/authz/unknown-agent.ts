/**
 * The answers for an agent that does not exist, in one place. Every face gives exactly these to a
 * caller who may not see an agent (a hidden one, another usecase's), so the two cannot be told
 * apart (docs/auth.md, "Hidden agents"). Which of them a request gets is decided by the one
 * lookup (agent-lookup.ts); the face only encodes it.
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { AuthorizationPolicy } from './policy.js';

/**
 * The message for a path that names no agent here (`/a2a/{id}…`, cards, MCP, item pages): it names
 * the agents anyone may discover, so a typo teaches the right id. Only agents every caller may see
 * are named (public, of no usecase), whoever asks: the answer then cannot differ between an
 * unknown agent and a hidden or another usecase's one, for any caller.
 */
export function unknownAgentMessage(agentId: string, registry: AgentRegistry, policy: AuthorizationPolicy | undefined, surface: 'a2a' | 'mcp' = 'a2a'): string {
  const ids = registry
    .list()
    .map((a) => a.id)
    .filter((id) => !policy || policy.seenByEveryone(id, surface));
  return ids.length ? `No agent '${agentId}' here; the agents here are: ${ids.join(', ')}` : `No agent '${agentId}' here`;
}

/**
 * The error of a `tenant` (JSON-RPC params, HTTP+JSON path, gRPC field) that names no agent here,
 * or one the caller may not see. Its own class so that a face can tell this refusal of the core
 * from a request's other invalid params without reading its wording.
 */
export class UnknownTenant extends A2AError {
  constructor(readonly agentId: string) {
    super('InvalidParams', `Unknown tenant '${agentId}'`, {
      fieldViolations: [{ field: 'tenant', description: 'no agent is served under this tenant' }],
    });
  }
}

export function unknownTenant(agentId: string): UnknownTenant {
  return new UnknownTenant(agentId);
}
