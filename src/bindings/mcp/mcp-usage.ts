/**
 * What an MCP request tells its usage record: the MCP method as the operation, the tool of a
 * `tools/call`, and the protocol version in the face ('mcp/2025-11-25'). A record's operation
 * stays the MCP method even when the core later runs an A2A operation for it.
 */
import type { UsageDraft } from '../../core/usage/usage-draft.js';

export function noteMcpCall(u: UsageDraft, parsed: unknown, versionHeader: string | undefined): void {
  if (typeof parsed !== 'object' || parsed === null) return;
  const m = parsed as { method?: unknown; params?: { name?: unknown; protocolVersion?: unknown } };
  if (typeof m.method !== 'string') return;
  u.operation = m.method.slice(0, 64);
  const version = versionHeader ?? (m.method === 'initialize' && typeof m.params?.protocolVersion === 'string' ? m.params.protocolVersion : undefined);
  if (version !== undefined && /^[\w.-]{1,20}$/.test(version)) u.face = `${u.face.split('/')[0]}/${version}`;
  if (m.method === 'tools/call' && typeof m.params?.name === 'string') u.tool = m.params.name.slice(0, 128);
}
