/**
 * MCP prompts from agent skills: each example of a skill's card entry (`skills[].examples`) is a
 * prompt a user can pick in a client's prompt menu. `prompts/get` answers one user message, the
 * example itself, with a note naming the tool that reaches the skill, so the model calls that tool.
 * The prompts follow the tools: a caller sees the prompts of exactly the tools it may use
 * (mcp-server-factory.ts filters both with the same rule).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { RegisteredAgent } from '../../../core/agents/agent-registry.js';
import type { AgentToolSpec } from '../tools/agent-tools.js';

const MAX_PROMPT_NAME = 64;

export interface SkillPrompt {
  name: string;
  title: string;
  description: string;
  /** the example text, sent as the user message */
  text: string;
  /** the tool reaching the skill */
  tool: string;
}

/** One prompt per example of each tool's skill: `<tool name>_example_<n>` (n from 1). */
export function skillPrompts(agents: readonly RegisteredAgent[], tools: readonly AgentToolSpec[]): Array<{ spec: AgentToolSpec; prompt: SkillPrompt }> {
  const out: Array<{ spec: AgentToolSpec; prompt: SkillPrompt }> = [];
  const seen = new Set<string>();
  for (const spec of tools) {
    const agent = agents.find((a) => a.id === spec.agentId);
    const skill = agent?.publicCard.skills.find((s) => s.id === spec.skillId);
    const examples = (skill?.examples ?? []).filter((e) => e.trim() !== '');
    examples.forEach((text, i) => {
      const suffix = `_example_${i + 1}`;
      const name = `${spec.name.slice(0, MAX_PROMPT_NAME - suffix.length)}${suffix}`;
      if (seen.has(name)) return;
      seen.add(name);
      out.push({
        spec,
        prompt: {
          name,
          title: `${spec.title}: example ${i + 1}`,
          description: `An example request for ${spec.title}: ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`,
          text,
          tool: spec.name,
        },
      });
    });
  }
  return out;
}

/** Registers the prompts on one server instance; `cacheHint` as the server's other lists. */
export function registerSkillPrompts(server: McpServer, prompts: ReadonlyArray<{ prompt: SkillPrompt }>): void {
  for (const { prompt } of prompts) {
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description }, () => ({
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: `${prompt.text}\n\n(Use the tool ${prompt.tool}.)` } }],
    }));
  }
}
