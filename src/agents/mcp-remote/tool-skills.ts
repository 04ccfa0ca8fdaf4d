/**
 * A remote MCP tool as an A2A skill. A2A skills have no input schema, so the tool's arguments are
 * described in words (name, type, required) in the description, and one example shows the DataPart
 * that calls the tool: `{"tool": name, "arguments": {...}}`.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { AgentSkill } from '../../protocol/a2a/types.js';

/** Skill descriptions stay readable in cards and tool lists. */
const MAX_DESCRIPTION = 2000;

export function skillOfTool(tool: Tool): AgentSkill {
  const name = tool.title ?? tool.annotations?.title ?? tool.name;
  const args = argumentSummary(tool.inputSchema);
  const description = `${tool.description?.trim() || `Calls the MCP tool "${tool.name}".`}${args ? ` Arguments: ${args}.` : ''}`;
  return {
    id: tool.name,
    name,
    description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description,
    tags: ['mcp-tool', ...(tool.annotations?.readOnlyHint ? ['read-only'] : [])],
    examples: [JSON.stringify({ tool: tool.name, arguments: exampleArguments(tool.inputSchema) })],
    inputModes: ['application/json', 'text/plain'],
    outputModes: ['text/plain', 'application/json', 'image/*', 'audio/*'],
  };
}

type Schema = { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] };

function argumentSummary(schema: Tool['inputSchema']): string {
  const s = schema as Schema;
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  return props.map(([key, p]) => `${key} (${typeof p.type === 'string' ? p.type : 'any'}${required.has(key) ? ', required' : ''})${p.description ? `: ${p.description}` : ''}`).join('; ');
}

function exampleArguments(schema: Tool['inputSchema']): Record<string, unknown> {
  const s = schema as Schema;
  const out: Record<string, unknown> = {};
  for (const key of s.required ?? []) {
    const type = s.properties?.[key]?.type;
    out[key] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : '…';
  }
  return out;
}

/** The one string argument a plain-text message can fill, when the tool has exactly one required string (or one string property). */
export function soleStringArgument(schema: Tool['inputSchema']): string | undefined {
  const s = schema as Schema;
  const strings = Object.entries(s.properties ?? {})
    .filter(([, p]) => p.type === 'string')
    .map(([k]) => k);
  const required = (s.required ?? []).filter((k) => strings.includes(k));
  if ((s.required ?? []).length === 1 && required.length === 1) return required[0];
  if ((s.required ?? []).length === 0 && strings.length === 1) return strings[0];
  return undefined;
}
