/**
 * How a call of an agent's own MCP tool travels as A2A (src/agents/sdk/mcp-tools.ts): the MCP face
 * sends a message whose metadata names the tool and whose one data part carries
 * `{ tool, arguments, pages? }`; the agent leaves the tool's MCP result as the task's artifact
 * (one data part, marked by artifact metadata). Both sides read these shapes, so they live here.
 */
import type { Artifact, JsonObject, Message, Part, Task } from './types.js';

/** MCP content items a tool may return (the subset agents produce; see the MCP schema). */
export type AgentToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** A tool's answer, as the MCP client receives it. */
export interface AgentToolResult {
  content: AgentToolContent[];
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** Message metadata naming the contributed tool a message calls. */
export const TOOL_CALL_KEY = 'agentport/tool';
/** Artifact metadata marking a contributed tool's result. */
export const TOOL_RESULT_KEY = 'agentport/toolResult';

export interface ToolCall {
  tool: string;
  arguments: JsonObject;
  /** where the agent's pages are served (`…/a2a/{agent}/items`), when the face serves them */
  pages?: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts and metadata of a message calling `tool`. */
export function toolCallMessage(call: ToolCall): Pick<Message, 'parts' | 'metadata'> {
  const data: JsonObject = { tool: call.tool, arguments: call.arguments, ...(call.pages ? { pages: call.pages } : {}) };
  return { parts: [{ data }], metadata: { [TOOL_CALL_KEY]: call.tool } };
}

/** The tool call a message carries, if it is one. */
export function toolCallOf(message: Message): ToolCall | undefined {
  const tool = message.metadata?.[TOOL_CALL_KEY];
  if (typeof tool !== 'string') return undefined;
  const data = message.parts.find((p): p is Part & { data: JsonObject } => isObject(p.data))?.data;
  if (!data || data.tool !== tool) return undefined;
  return { tool, arguments: isObject(data.arguments) ? data.arguments : {}, ...(typeof data.pages === 'string' ? { pages: data.pages } : {}) };
}

/** The result a contributed tool left on its task, if it left one. */
export function toolResultOf(task: Task): AgentToolResult | undefined {
  const artifact = (task.artifacts ?? []).find((a: Artifact) => a.metadata?.[TOOL_RESULT_KEY] === true);
  const data = artifact?.parts.find((p) => isObject(p.data))?.data;
  // the artifact withTools (src/agents/sdk/mcp-tools.ts) wrote from an AgentToolResult, its content checked to be a list
  return isObject(data) && Array.isArray(data.content) ? (data as unknown as AgentToolResult) : undefined;
}
