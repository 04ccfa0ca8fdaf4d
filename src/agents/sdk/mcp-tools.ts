/**
 * What an agent contributes to the MCP face beyond one tool per skill: tools of its own (the
 * Table Expert's `search`, `fetch`, `query_table_expert`) and the pages their results link to.
 *
 * A contributed tool never runs inside the face. A call is a SendMessage to the agent, like any
 * tool call: the message carries `{ tool, arguments }` in a data part marked by message metadata,
 * so the core authorizes it (the tool's skill), records it as a task and hands the caller's
 * usecases to the run. `defineAgent` dispatches such a message to the tool's `call`, stores what
 * it returns as the task's one artifact (a data part), and the face answers the MCP call with it
 * unchanged. The message and result shapes are a wire format both sides read
 * (src/protocol/a2a/tool-call.ts); the tool and page shapes are part of the agent contract
 * (src/core/agents/agent-definition.ts), re-exported here for agent authors.
 */
import { TOOL_RESULT_KEY, toolCallOf } from '../../protocol/a2a/tool-call.js';
import { toJsonObject } from '../../protocol/a2a/json.js';
import type { AgentDefinition } from '../../core/agents/agent-definition.js';

export { TOOL_CALL_KEY, TOOL_RESULT_KEY, toolCallMessage, toolCallOf, toolResultOf } from '../../protocol/a2a/tool-call.js';
export type { AgentToolContent, AgentToolResult, ToolCall } from '../../protocol/a2a/tool-call.js';
export type { AgentMcp, AgentPage, AgentPageRequest, AgentTool, AgentToolCall, AgentToolHints } from '../../core/agents/agent-definition.js';

/**
 * The agent with its contributed tools wired in: a tool-call message runs the tool, any other
 * message the agent's own executor; `skillOf` names the tool's skill for the core's authorization.
 */
export function withTools(def: AgentDefinition): AgentDefinition {
  const tools = new Map((def.mcp?.tools ?? []).map((t) => [t.name, t]));
  if (tools.size === 0) return def;
  const execute = def.execute.bind(def);
  const skillOf = def.skillOf?.bind(def);
  return {
    ...def,
    async execute(ctx) {
      const call = toolCallOf(ctx.message);
      if (!call) return execute(ctx);
      const tool = tools.get(call.tool);
      if (!tool) return ctx.reject(`This agent has no tool named "${call.tool}".`);
      const pageUrl = (item: string) => `${call.pages ?? 'items'}/${encodeURIComponent(item)}`;
      const result = await tool.call(call.arguments, ctx, { pageUrl });
      if (ctx.signal.aborted) return;
      ctx.artifact([{ data: toJsonObject(result) }], { name: 'tool-result', metadata: { [TOOL_RESULT_KEY]: true } });
      if (!result.isError) return ctx.complete();
      const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
      ctx.emit({ kind: 'status', state: 'TASK_STATE_FAILED', message: text || `${call.tool} failed.` });
    },
    skillOf(message) {
      const call = toolCallOf(message);
      if (!call) return skillOf?.(message);
      const tool = tools.get(call.tool);
      if (!tool) return undefined;
      return tool.skillFor?.(call.arguments) ?? (tool.skills.length === 1 ? tool.skills[0] : undefined);
    },
  };
}
