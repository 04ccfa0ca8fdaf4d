/**
 * `agents[].llm`: an agent declared in configuration — a model (OpenAI Chat Completions or
 * Anthropic Messages, streamed) with instructions, whose tools are other hosted agents called
 * through the core as the task's caller (AgentContext.agents). Its card comes from the
 * configuration: the skills listed there, or one skill described by the instructions. It is
 * resumable: the loop's state is the task's log (run-steps.ts), so a run cut off by a restart or a
 * lost replica continues where the log stands.
 */
import type { AgentConfig, LlmAgentConfig } from '../../config/config.js';
import { defineAgent, type AgentCardSpec, type AgentDefinition } from '../sdk/agent.js';
import { anthropicMessages } from './anthropic-messages.js';
import type { ModelProvider } from './model.js';
import { openAiChat } from './openai-chat.js';
import { runLoop } from './run-loop.js';

export interface LlmAgentLog {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export function llmAgent(agent: AgentConfig & { llm: LlmAgentConfig }, _log: LlmAgentLog, provider: ModelProvider = providerOf(agent.llm)): AgentDefinition {
  const cfg = agent.llm;
  return defineAgent({
    card: cardOf(agent.id, cfg),
    resumable: true,
    execute: (ctx) => runLoop(cfg, provider, ctx),
  });
}

export function providerOf(cfg: LlmAgentConfig): ModelProvider {
  return cfg.provider === 'anthropic' ? anthropicMessages(cfg) : openAiChat(cfg);
}

function cardOf(id: string, cfg: LlmAgentConfig): AgentCardSpec {
  const firstLine =
    cfg.instructions
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? id;
  const description = firstLine.length > 300 ? `${firstLine.slice(0, 299)}…` : firstLine;
  return {
    name: id,
    description,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: cfg.skills?.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags, ...(s.examples ? { examples: s.examples } : {}) })) ?? [{ id: 'chat', name: id, description, tags: ['llm'] }],
  };
}
