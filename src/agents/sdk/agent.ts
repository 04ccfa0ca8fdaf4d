/**
 * The agent SDK: an agent is a card plus an executor that turns a request context into events.
 * `defineAgent` keeps the common cases short; the full event model stays available via `ctx.emit`.
 * The contract itself lives with the engine that runs it (src/core/agents/agent-definition.ts).
 */
import type { AgentDefinition } from '../../core/agents/agent-definition.js';
import { withTools } from './mcp-tools.js';

export type { AgentContext, AgentDefinition, AgentEvent, UsageReport } from '../../core/agents/agent-definition.js';
export { toParts } from '../../core/agents/agent-definition.js';
export type { AgentCardSpec } from '../../protocol/a2a/card/agent-card-spec.js';
export type { JsonValue } from '../../protocol/a2a/types.js';

export function defineAgent(def: AgentDefinition): AgentDefinition {
  return withTools(def);
}
