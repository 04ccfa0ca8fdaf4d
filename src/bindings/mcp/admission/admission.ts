/**
 * Who may use the MCP face: the one authorization question asked at admission. Authentication
 * (by the edge, `RequestContext.principal`) and the core's `use-mcp` decision are answered here in
 * MCP's shape — a 401 or 403 whose challenge names the endpoint's protected-resource metadata
 * (RFC 9728 §5.1: MCP clients start from it) — and the hidden-agent rule of `/a2a/{id}/mcp`.
 * What a caller may do past the door (which tools, which tasks) is decided by the core
 * (core/stages/authorizing-handler.ts) when the call reaches it.
 */
import type { AgentRegistry } from '../../../core/agents/agent-registry.js';
import { unknownAgentMessage } from '../../../core/authz/unknown-agent.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';
import type { Principal } from '../../../core/authz/principal.js';
import { SCOPES } from '../../../core/authz/scopes.js';
import { bearerChallenge } from '../../../auth/challenge.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import { rpcError, type Answer } from '../answer.js';
import { MCP_CODE, mcpRefusal } from '../mcp-errors.js';

export interface AdmissionDeps {
  registry: AgentRegistry;
  policy?: AuthorizationPolicy;
  /** the authenticator's challenge for a refused credential (auth/authenticator.ts) */
  challenge: (err: A2AError, o: { scope?: string; resourceMetadata?: string }) => string;
  /** the RFC 9728 metadata URL of an MCP endpoint path (`/mcp`, `/a2a/{id}/mcp`), named in 401s */
  resourceMetadataUrl?: (path: string) => string;
}

/** The caller, as the edge authenticates it for a resource path (memoised per path). */
export type PrincipalOf = (resourcePath: string) => Promise<Principal>;

export const mcpPath = (agentId: string | undefined) => (agentId ? `/a2a/${agentId}/mcp` : '/mcp');

export function unknownAgent(d: AdmissionDeps, agentId: string): Answer {
  return rpcError(404, MCP_CODE.MethodNotFound, unknownAgentMessage(agentId, d.registry, d.policy, 'mcp'));
}

/**
 * The agent of `/a2a/{id}/mcp` and `/a2a/{id}/items/…`: its 404 when it does not exist, or when
 * the caller may not see it (the hidden-agent rule, which must look the same); else undefined.
 */
export async function admitToAgent(d: AdmissionDeps, agentId: string, principal: PrincipalOf): Promise<Answer | undefined> {
  if (!d.registry.get(agentId)) return unknownAgent(d, agentId);
  const admitted = d.policy ? await d.policy.admitToAgent(agentId, 'mcp', () => principal(mcpPath(agentId))) : undefined;
  return admitted?.unknown ? unknownAgent(d, agentId) : undefined;
}

/**
 * Authentication, then the `use-mcp` decision: the principal, or the answer to send — a 401 (no
 * or a refused credential) or 403 (no MCP scope) with its challenge, or the 404 of an agent the
 * caller may not see.
 */
export async function admit(d: AdmissionDeps, agentId: string | undefined, principalOf: PrincipalOf): Promise<Principal | Answer> {
  const path = mcpPath(agentId);
  let principal: Principal;
  try {
    principal = await principalOf(path);
  } catch (e) {
    const err = e instanceof A2AError ? e : new A2AError('Unauthenticated');
    if (err.kind !== 'Unauthenticated') {
      const refusal = mcpRefusal(err);
      return rpcError(refusal.status, refusal.code, err.message);
    }
    return rpcError(401, MCP_CODE.TransportRefused, 'The credential presented is not valid', { 'WWW-Authenticate': d.challenge(err, challengeOf(d, path)) });
  }
  if (d.policy && !d.policy.allows(principal, 'use-mcp')) {
    const anonymous = !principal.authenticated;
    const header = { 'WWW-Authenticate': bearerChallenge({ ...challengeOf(d, path), ...(anonymous ? {} : { error: 'insufficient_scope' as const }) }) };
    return anonymous
      ? rpcError(401, MCP_CODE.TransportRefused, 'Authentication required (scope: mcp:tools)', header)
      : rpcError(403, MCP_CODE.TransportRefused, 'The credential lacks an MCP scope (mcp:tools or mcp:tools:<usecase>)', header);
  }
  if (agentId && d.policy && !d.policy.canSeeAgent(principal, agentId, 'mcp')) return unknownAgent(d, agentId);
  return principal;
}

/** What a refusal's challenge names; built only for a refusal (the metadata URL parses the public URL, and most calls are admitted). */
function challengeOf(d: AdmissionDeps, path: string): { scope: string; resourceMetadata?: string } {
  const resourceMetadata = d.resourceMetadataUrl?.(path);
  return { scope: SCOPES.mcpTools, ...(resourceMetadata ? { resourceMetadata } : {}) };
}

export const isAnswer = (v: Principal | Answer): v is Answer => 'kind' in v;
