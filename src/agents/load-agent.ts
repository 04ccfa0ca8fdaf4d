/** Resolves an agent entry of the config to its AgentDefinition: a built-in or an ES module. */
import { pathToFileURL } from 'node:url';
import type { AgentConfig } from '../config/index.js';
import type { AgentDefinition } from './sdk/agent.js';
import { echoAgent } from './echo/index.js';
import { conformanceAgent } from './conformance/index.js';

const BUILTINS: Record<string, AgentDefinition> = { echo: echoAgent, conformance: conformanceAgent };

export async function loadAgentDefinition(agent: AgentConfig): Promise<AgentDefinition> {
  if (agent.builtin) return BUILTINS[agent.builtin];
  const mod = (await import(pathToFileURL(agent.module!).href)) as Record<string, unknown>;
  const def = (mod.default ?? mod.agent) as AgentDefinition | undefined;
  if (!def || typeof def !== 'object' || typeof def.execute !== 'function' || !def.card) {
    throw new Error(`agents[${agent.id}].module: ${agent.module} must export an AgentDefinition (defineAgent({ card, execute })) as default or as 'agent'`);
  }
  return def;
}
