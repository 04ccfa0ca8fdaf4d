/**
 * What an MCP request tells its usage record: the MCP method as the operation, the tool of a
 * `tools/call`, and the protocol version in the face ('mcp/2025-11-25'). A record's operation
 * stays the MCP method even when the core later runs an A2A operation for it.
 */
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import { jsonRpcOutcome } from './mcp-errors.js';

export { jsonRpcOutcome };

export function noteMcpCall(u: UsageDraft, parsed: unknown, versionHeader: string | undefined): void {
  if (typeof parsed !== 'object' || parsed === null) return;
  const m = parsed as { method?: unknown; params?: { name?: unknown; protocolVersion?: unknown } };
  if (typeof m.method !== 'string') return;
  // A method MCP does not define is one value: a client's made-up names would group without bound.
  u.operation = MCP_METHODS.has(m.method) ? m.method : 'other';
  const version = versionHeader ?? (m.method === 'initialize' && typeof m.params?.protocolVersion === 'string' ? m.params.protocolVersion : undefined);
  if (version !== undefined && /^[\w.-]{1,20}$/.test(version)) u.face = `${u.face.split('/')[0]}/${version}`;
  if (m.method === 'tools/call' && typeof m.params?.name === 'string') u.tool = m.params.name.slice(0, 128);
}

/** The methods of MCP (2025-11-25), client to server and back: the operations a record may name. */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'roots/list',
  'sampling/createMessage',
  'elicitation/create',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'tasks/update',
  'server/discover',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/message',
  'notifications/tasks/status',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
]);

/**
 * A JSON-RPC error the answer carries with HTTP 200 (an unknown tool or bad arguments, answered by
 * the MCP SDK): the record's outcome, so it does not count as a success. Reads the answer's first
 * bytes only, and parses them only when they hold a top-level error's key (an error answer is
 * small; a result whose text mentions one has it escaped, so it does not match).
 */
export function noteMcpAnswerError(u: UsageDraft, firstBytes: Uint8Array): void {
  if (u.error) return;
  const text = Buffer.from(firstBytes.buffer, firstBytes.byteOffset, Math.min(firstBytes.byteLength, 4096)).toString('utf8');
  if (!text.includes('"error"')) return;
  // A streamed answer (SSE) carries the message as an event's data line.
  const json = text.startsWith('{') ? text : /^data: ?(.*)$/m.exec(text)?.[1];
  if (json === undefined) return;
  let message: unknown;
  try {
    message = JSON.parse(json);
  } catch {
    return;
  }
  const code = (message as { error?: { code?: unknown } } | null)?.error?.code;
  if (typeof code === 'number') noteMcpError(u, code);
}

/** The call failed with JSON-RPC error `code`. */
export function noteMcpError(u: UsageDraft, code: number): void {
  if (u.error) return;
  u.error = true;
  u.outcome = jsonRpcOutcome(code);
  u.jsonRpcCode = code;
}
