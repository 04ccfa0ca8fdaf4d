/**
 * The pages agents serve at `GET /a2a/{agentId}/items/{item}` (AgentDefinition.mcp.page): the
 * `url`s their tool results carry, for people following a citation. The face admits the caller
 * first (the hidden-agent rule, `use-mcp`); the usecases it may read are the core policy's answer.
 */
import type { ServerResponse } from 'node:http';
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';

export function servesPages(agent: RegisteredAgent): boolean {
  return typeof agent.definition.mcp?.page === 'function';
}

/** Writes the agent's page for `item`; the agent must serve pages (`servesPages`). */
export async function serveAgentPage(res: ServerResponse, agent: RegisteredAgent, item: string, accept: string | undefined, usecases: readonly string[] | undefined): Promise<void> {
  const page = await agent.definition.mcp!.page!(item, { agentName: agent.publicCard.name, ...(accept !== undefined ? { accept } : {}), ...(usecases ? { usecases } : {}) });
  res.writeHead(page.status, { 'Content-Type': page.contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" });
  res.end(page.body);
}
