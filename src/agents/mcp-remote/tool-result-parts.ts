/**
 * A remote tool's result as A2A parts (the inverse of src/bindings/mcp/tools/tool-result.ts): text
 * blocks → text parts; images and audio → raw parts with their media type; resource links → url
 * parts; embedded resources → text or raw parts named by their URI; `structuredContent` → one
 * JSON DataPart. Unknown block types are kept as DataParts rather than dropped.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { JsonValue, Part } from '../../protocol/a2a/types.js';

export function partsOfToolResult(result: CallToolResult): Part[] {
  const parts: Part[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push({ text: block.text });
        break;
      case 'image':
      case 'audio':
        parts.push({ raw: block.data, mediaType: block.mimeType });
        break;
      case 'resource_link':
        parts.push({ url: block.uri, filename: block.name, ...(block.mimeType ? { mediaType: block.mimeType } : {}) });
        break;
      case 'resource': {
        const r = block.resource;
        const meta = { metadata: { uri: r.uri } };
        if ('text' in r && typeof r.text === 'string') parts.push({ text: r.text, ...(r.mimeType ? { mediaType: r.mimeType } : {}), ...meta });
        else if ('blob' in r && typeof r.blob === 'string') parts.push({ raw: r.blob, mediaType: r.mimeType ?? 'application/octet-stream', ...meta });
        break;
      }
      default:
        // a block type newer than this SDK (typed never here): the remote's decoded JSON as it came
        parts.push({ data: block, mediaType: 'application/json' });
    }
  }
  if (result.structuredContent !== undefined) parts.push({ data: result.structuredContent as JsonValue, mediaType: 'application/json' });
  return parts;
}

/** The text of an error result, for the task's failure reason. */
export function errorTextOf(result: CallToolResult): string {
  const text = (result.content ?? [])
    .filter((b): b is Extract<typeof b, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('\n')
    .trim();
  return text || 'The tool reported an error without a message.';
}
