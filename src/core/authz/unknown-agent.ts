/**
 * The answers for an agent that does not exist, in one place. Every face gives exactly these to a
 * caller who may not see an agent (a hidden one, another usecase's), so the two cannot be told
 * apart (docs/auth.md, "Hidden agents").
 */
import { A2AError } from '../../protocol/a2a/errors.js';

// The message of a path that names no agent here (`/a2a/{id}…`, cards, MCP, item pages) is
// unknownAgentMessage (src/core/agents/unknown-agent.ts): it names only publicly visible agents.

/** The error of a `tenant` (JSON-RPC params, HTTP+JSON path, gRPC field) that names no agent here. */
export function unknownTenant(agentId: string): A2AError {
  return new A2AError('InvalidParams', `Unknown tenant '${agentId}'`, {
    fieldViolations: [{ field: 'tenant', description: 'no agent is served under this tenant' }],
  });
}
