export { defineAgent, toParts } from './agent.js';
export type { AgentContext, AgentDefinition, AgentEvent, AgentCardSpec } from './agent.js';
export * from '../../protocol/a2a/types.js';
