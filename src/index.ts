/**
 * `agentport`: the server as a library. Agents are written with `agentport/agent`, called with
 * `agentport/client`, and tested with `agentport/testing`.
 */
export { startServer, type RunningServer, type AgentSlots } from './server/start.js';
export { loadConfig, parseConfig, ConfigError, type Config, type ConfigOverrides, type LoadConfigOptions } from './config/index.js';
export { defineAgent, type AgentContext, type AgentDefinition, type AgentCardSpec, type AgentEvent } from './agents/sdk/index.js';
