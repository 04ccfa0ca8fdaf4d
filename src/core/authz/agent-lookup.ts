/**
 * The one decision on the agent a request names: whether it is there for this caller. An agent
 * that does not exist and one the caller may not see (hidden, another usecase's) are the same
 * answer, `unknown`, so the two cannot be told apart. There are two situations, each with its own
 * wire answer, which the face encodes:
 *
 * - the agent is named by the path (`/a2a/{id}…`, cards, MCP, the Novaeden API): decided before
 *   anything agent-specific, before the caller is known (`admitToAgentPath`); the answer names
 *   the agents anyone may discover (`unknownAgentMessage`: MethodNotFound on A2A, TaskNotFound on
 *   cards and the Novaeden API, -32601 on MCP);
 * - the agent is named by a `tenant` in the request (the shared JSON-RPC and HTTP+JSON endpoint,
 *   gRPC): decided once the caller is known (`agentSeen`, A2AHandler.hasAgent); the answer is
 *   `unknownTenant` (InvalidParams on the `tenant` field).
 */
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { AuthorizationPolicy } from './policy.js';
import type { Principal } from './principal.js';
import { unknownAgentMessage } from './unknown-agent.js';

export type AgentPathAdmission =
  | { unknown: true /** the answer's message (unknownAgentMessage) */; message: string }
  /** `principal`: set when the caller was authenticated here, so the face need not repeat it */
  | { unknown: false; principal?: Principal };

/** Whether the agent is there for this caller (exists, and the policy lets it see the agent). */
export function agentSeen(registry: AgentRegistry, policy: AuthorizationPolicy | undefined, agentId: string, principal: Principal, surface: 'a2a' | 'mcp' = 'a2a'): boolean {
  if (registry.get(agentId) === undefined) return false;
  return !policy || policy.canSeeAgent(principal, agentId, surface);
}

/**
 * The agent a path names, before the caller is known: unknown, or admitted. An agent not seen
 * without a credential is admitted only for a caller who authenticates and may see it (the
 * hidden-agent rule, AuthorizationPolicy.admitToAgent); `authenticate` is called only then.
 * `publicDocument`: the path is the agent's card, which only the hidden-agent rule guards.
 */
export async function admitToAgentPath(
  registry: AgentRegistry,
  policy: AuthorizationPolicy | undefined,
  agentId: string,
  surface: 'a2a' | 'mcp',
  authenticate: () => Promise<Principal>,
  o?: { publicDocument?: boolean },
): Promise<AgentPathAdmission> {
  if (registry.get(agentId) === undefined) return unknownAgent(agentId, registry, policy, surface);
  // An agent no caller is refused the sight of is admitted without asking the policy's (async) admission.
  if (!policy || policy.seenByEveryone(agentId, surface)) return ADMITTED;
  // A public agent's card is a public document: read by anyone, a caller bound to another usecase too.
  if (o?.publicDocument && policy.isPublicAgent(agentId, surface)) return ADMITTED;
  const admitted = await policy.admitToAgent(agentId, surface, authenticate);
  return admitted.unknown ? unknownAgent(agentId, registry, policy, surface) : admitted;
}

/**
 * admitToAgentPath's answer when it is known without asking anything that waits (the agent exists
 * and no caller is refused the sight of it: every request on an open server), as one settled
 * promise shared by every such request; undefined otherwise. A face awaits it as it would await
 * admitToAgentPath, one turn, without the async function's frame and promise and the closure that
 * would authenticate (issue 26, bytes a request).
 */
export function admittedAtHand(registry: AgentRegistry, policy: AuthorizationPolicy | undefined, agentId: string, surface: 'a2a' | 'mcp'): Promise<AgentPathAdmission> | undefined {
  if (registry.get(agentId) === undefined) return undefined;
  return !policy || policy.seenByEveryone(agentId, surface) ? ADMITTED_NOW : undefined;
}

/**
 * The admission of an agent seen by everyone, one object for every request (read, never changed by
 * the faces): a request without a credential on an open server made a closure, an options object,
 * the policy's promise and this answer (issue 26, allocation a request).
 */
const ADMITTED: AgentPathAdmission = Object.freeze({ unknown: false });
/** ADMITTED, settled: admittedAtHand's answer. */
const ADMITTED_NOW: Promise<AgentPathAdmission> = Promise.resolve(ADMITTED);

function unknownAgent(agentId: string, registry: AgentRegistry, policy: AuthorizationPolicy | undefined, surface: 'a2a' | 'mcp'): AgentPathAdmission {
  return { unknown: true, message: unknownAgentMessage(agentId, registry, policy, surface) };
}
