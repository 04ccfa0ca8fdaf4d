/**
 * Hosted agents as the model's tools: one tool per skill of each configured agent the caller may
 * see (a remote MCP server's tools map one to one, with their own input schemas), named
 * `<agent>__<skill>` within the providers' `[A-Za-z0-9_-]{1,64}`. Built per run, from the cards
 * as the caller sees them, so a caller never learns of a tool it could not use.
 */
import { createHash } from 'node:crypto';
import type { HostedAgents } from '../../core/agents/agent-definition.js';
import type { ToolDefinition } from './model.js';

export interface AgentTool {
  definition: ToolDefinition;
  agentId: string;
  skillId: string;
  /** true: the arguments go as a `{tool, arguments}` data part (an MCP tool), else as text */
  structured: boolean;
}

/** The argument schema of an agent skill that takes words. */
const REQUEST_SCHEMA = {
  type: 'object',
  properties: { request: { type: 'string', description: 'What to ask the agent, in plain words, with every detail it needs' } },
  required: ['request'],
  additionalProperties: false,
};

export const ASK_USER_TOOL: ToolDefinition = {
  name: 'ask_user',
  description: 'Ask the user a question and wait for the answer. Use it only when the request cannot be answered without more information from the user.',
  parameters: { type: 'object', properties: { question: { type: 'string', description: 'The question, as the user will read it' } }, required: ['question'], additionalProperties: false },
};

export function agentTools(agents: HostedAgents | undefined, toolAgentIds: readonly string[]): Map<string, AgentTool> {
  const out = new Map<string, AgentTool>();
  if (!agents) return out;
  for (const agentId of toolAgentIds) {
    const view = agents.get(agentId);
    if (!view) continue;
    for (const skill of view.card.skills) {
      const schema = view.inputSchema(skill.id);
      const name = toolName(agentId, skill.id);
      const description = `${view.card.name}: ${skill.name}. ${skill.description}`.slice(0, 1024);
      out.set(name, { agentId, skillId: skill.id, structured: schema !== undefined, definition: { name, description, parameters: schema ?? REQUEST_SCHEMA } });
    }
  }
  return out;
}

/** `<agent>__<skill>`, characters outside the allowed set replaced; too long: cut with a hash suffix. */
export function toolName(agentId: string, skillId: string): string {
  const raw = `${agentId}__${skillId}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (raw.length <= 64) return raw;
  const hash = createHash('sha256').update(`${agentId}\0${skillId}`).digest('hex').slice(0, 8);
  return `${raw.slice(0, 55)}_${hash}`;
}
