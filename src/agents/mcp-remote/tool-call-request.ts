/**
 * Which remote tool an A2A message calls, and with what arguments. In order:
 * 1. a DataPart `{"tool": name, "arguments": {...}}` (the documented form; nothing else in it);
 * 2. the skill named in the request metadata `agentport/skill` (what Agentport's own MCP tools
 *    send), with the arguments from a DataPart or the text;
 * 3. text whose first word names a tool; the rest is the arguments;
 * 4. a server with a single tool takes any message.
 * Text arguments are a JSON object, or the text itself when the tool has one string argument.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { JsonObject, Message } from '../../protocol/a2a/types.js';
import { soleStringArgument } from './tool-skills.js';
import { SKILL_METADATA_KEY } from '../../protocol/a2a/skill-metadata.js';

export type ToolCallRequest = { ok: true; tool: Tool; arguments: Record<string, unknown> } | { ok: false; reason: string };

/** Request metadata naming the skill (MCP tool) a message is for. */
export { SKILL_METADATA_KEY };

export function toolCallOf(message: Message, tools: ReadonlyMap<string, Tool>, requestMetadata?: JsonObject): ToolCallRequest {
  const dataParts = message.parts.filter((p) => isObject(p.data)).map((p) => p.data as Record<string, unknown>);
  const text = message.parts
    .filter((p) => typeof p.text === 'string')
    .map((p) => p.text!)
    .join('\n')
    .trim();

  const envelope = dataParts.find(isCallEnvelope);
  if (envelope) {
    const tool = tools.get(envelope.tool);
    if (!tool) return unknownTool(envelope.tool, tools);
    return { ok: true, tool, arguments: envelope.arguments ?? {} };
  }

  const hinted = requestMetadata?.[SKILL_METADATA_KEY];
  if (typeof hinted === 'string' && tools.has(hinted)) return withArguments(tools.get(hinted)!, dataParts[0], text);

  const jsonText = parseObject(text);
  if (jsonText && isCallEnvelope(jsonText)) {
    const tool = tools.get(jsonText.tool);
    return tool ? { ok: true, tool, arguments: jsonText.arguments ?? {} } : unknownTool(jsonText.tool, tools);
  }

  const [first, ...rest] = text.split(/\s+/);
  if (first && tools.has(first)) return withArguments(tools.get(first)!, dataParts[0], text.slice(first.length).trim());

  if (tools.size === 1) return withArguments([...tools.values()][0]!, dataParts[0], text);
  if (!text && !dataParts.length) return { ok: false, reason: `The message is empty. ${toolList(tools)}` };
  return { ok: false, reason: `The message does not name a tool of this MCP server${first && rest.length === 0 ? ` ("${first}" is not one)` : ''}. ${toolList(tools)}` };
}

/**
 * The tool a message names beyond doubt: a `{"tool", "arguments"}` DataPart, which wins over
 * every other form. The authorization engine checks that tool's scopes (`skillOf`); any other
 * message may end up calling any tool, so it needs the scopes of all of them.
 */
export function explicitToolOf(message: Message): string | undefined {
  for (const p of message.parts) if (isObject(p.data) && isCallEnvelope(p.data)) return p.data.tool;
  return undefined;
}

function withArguments(tool: Tool, data: Record<string, unknown> | undefined, text: string): ToolCallRequest {
  if (data) return { ok: true, tool, arguments: data };
  if (!text) return { ok: true, tool, arguments: {} };
  const json = parseObject(text);
  if (json) return { ok: true, tool, arguments: json };
  const sole = soleStringArgument(tool.inputSchema);
  if (sole) return { ok: true, tool, arguments: { [sole]: text } };
  return {
    ok: false,
    reason: `The tool "${tool.name}" takes structured arguments: send them as a JSON object, or as a data part {"tool": "${tool.name}", "arguments": {...}}.`,
  };
}

function isCallEnvelope(v: Record<string, unknown>): v is { tool: string; arguments?: Record<string, unknown> } {
  if (typeof v.tool !== 'string') return false;
  if (v.arguments !== undefined && !isObject(v.arguments)) return false;
  return Object.keys(v).every((k) => k === 'tool' || k === 'arguments');
}

function unknownTool(name: string, tools: ReadonlyMap<string, Tool>): ToolCallRequest {
  return { ok: false, reason: `This MCP server has no tool "${name}". ${toolList(tools)}` };
}

function toolList(tools: ReadonlyMap<string, Tool>): string {
  if (tools.size === 0) return 'It offers no tools right now.';
  const names = [...tools.keys()];
  return `Its tools: ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', …' : ''}.`;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
