export { defineAgent, toParts } from './agent.js';
export type { AgentContext, AgentDefinition, AgentEvent, AgentCardSpec, UsageReport } from './agent.js';
export { TOOL_CALL_KEY, TOOL_RESULT_KEY, toolCallMessage, toolCallOf, toolResultOf } from './mcp-tools.js';
export type { AgentMcp, AgentPage, AgentPageRequest, AgentTool, AgentToolCall, AgentToolContent, AgentToolHints, AgentToolResult, ToolCall } from './mcp-tools.js';
export * from '../../protocol/a2a/types.js';
