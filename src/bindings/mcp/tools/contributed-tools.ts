/**
 * The MCP tools agents contribute beside their skill tools (AgentDefinition.mcp, see
 * src/agents/sdk/mcp-tools.ts), as specs the server factory lists and calls like any agent tool:
 * a call is a SendMessage to the agent through the core (agent-tools.ts `callAgentTool`), never a
 * function call in the face. The face knows no agent by name.
 */
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';
import type { AgentToolSpec } from './agent-tools.js';

export interface ContributedToolSpec extends AgentToolSpec {
  contributed: { tool: string; pages?: string };
  /** the card skills the tool reaches (a caller must be allowed them all to see it) */
  skills: readonly string[];
  outputSchema?: Record<string, unknown>;
}

/** The agents' own tools, first come first served: a name already taken (`taken`, or an earlier agent's) is skipped. */
export function contributedToolSpecs(agents: readonly RegisteredAgent[], taken: ReadonlySet<string>): ContributedToolSpec[] {
  const out: ContributedToolSpec[] = [];
  const seen = new Set(taken);
  for (const agent of agents) {
    const mcp = agent.definition.mcp;
    const pages = mcp?.page ? `${agent.baseUrl}/items` : undefined;
    for (const t of mcp?.tools ?? []) {
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      out.push({
        name: t.name,
        agentId: agent.id,
        skillId: '',
        title: t.title ?? t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        annotations: t.annotations ?? {},
        skills: t.skills,
        contributed: { tool: t.name, ...(pages ? { pages } : {}) },
      });
    }
  }
  return out;
}

/** The sentences the agents in scope add to the server's instructions, each once. */
export function contributedInstructions(agents: readonly RegisteredAgent[]): string {
  const said = new Set(agents.map((a) => a.definition.mcp?.instructions).filter((s): s is string => !!s));
  return [...said].map((s) => ` ${s}`).join('');
}

/** Whether the agent contributes a tool of this name (e.g. the `search`/`fetch` pair deep-research clients look for). */
export function contributesTool(agent: RegisteredAgent, name: string): boolean {
  return (agent.definition.mcp?.tools ?? []).some((t) => t.name === name);
}
