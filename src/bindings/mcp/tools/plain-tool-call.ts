/**
 * The hot path of the MCP face: a plain `tools/call` of an agent tool is answered without the
 * SDK's per-request machinery (a web `Request`, a fresh `McpServer` with every tool registered,
 * its schema-validated dispatch, a web-stream response). The call itself is the same
 * `callAgentTool` the SDK path runs, so the task, its authorization and the result are identical;
 * only the envelope work is skipped, which was most of the CPU of a call (docs/benchmarks.md, MCP).
 *
 * Only the ordinary case takes it: one request, the era's headers exactly as the SDK requires
 * them, no progress token, no MRTR state or answers, a client that cannot take elicitation (so the
 * result is never `input_required`), arguments the tool's schema accepts, and a tool this caller
 * may see. Anything else returns undefined and goes to the SDK, which answers it — errors
 * included — as before. test/bindings/mcp/tools/plain-tool-call.test.ts pins that both paths answer alike.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { AgentToolArgs } from './agent-tools.js';
import { LEGACY_VERSIONS, MODERN_VERSIONS } from '../admission/lenient-edge.js';
import { declaresTasks } from '../tasks/mcp-tasks.js';

export interface PlainToolCall {
  id: string | number;
  name: string;
  args: AgentToolArgs;
  era: 'modern' | 'legacy';
  /** the request's `_meta` (the modern envelope), as the tool context carries it */
  meta?: Record<string, unknown>;
  /** the client declared the tasks extension (mcp-tasks.ts): answer a task handle */
  tasks: boolean;
}

/** Request headers by lower-case name (web `Headers` fit; the endpoint passes a plain record's lookup). */
export type HeaderLookup = { get(name: string): string | null };

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (o: Record<string, unknown>, allowed: readonly string[]) => Object.keys(o).every((k) => allowed.includes(k));

/** The call, when `body` and `headers` are the plain case described above; otherwise undefined. */
export function plainToolCallOf(body: unknown, headers: HeaderLookup): PlainToolCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const id = body.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) || !onlyKeys(body, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string' || !onlyKeys(params, ['name', 'arguments', '_meta'])) return undefined;
  if (!(headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) return undefined;
  const args = agentToolArgs(params.arguments);
  if (!args) return undefined;
  const meta = params._meta;
  if (meta !== undefined && !isObject(meta)) return undefined;
  const version = headers.get('mcp-protocol-version');

  if (meta && VERSION_KEY in meta) {
    if (!MODERN_VERSIONS.includes(meta[VERSION_KEY] as string) || version !== meta[VERSION_KEY]) return undefined;
    if (headers.get('mcp-method') !== 'tools/call' || headers.get('mcp-name') !== params.name) return undefined;
    if (!onlyKeys(meta, [VERSION_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY])) return undefined; // progressToken, logLevel, trace context…
    const caps = meta[CAPABILITIES_KEY];
    const tasks = declaresTasks(meta);
    // With elicitation (and no tasks) the result may be an MRTR round: the SDK's business.
    if (!isObject(caps) || (caps.elicitation !== undefined && !tasks)) return undefined;
    const info = meta[CLIENT_INFO_KEY];
    if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) return undefined;
    return { id, name: params.name, args, era: 'modern', meta, tasks };
  }
  if (version !== null && !LEGACY_VERSIONS.includes(version)) return undefined;
  if (meta && Object.keys(meta).length) return undefined;
  return { id, name: params.name, args, era: 'legacy', tasks: false };
}

/** AGENT_TOOL_INPUT_SCHEMA, checked by hand: `{message: non-empty string, data?: object, taskId?: non-empty string}`, nothing else. */
function agentToolArgs(a: unknown): AgentToolArgs | undefined {
  if (!isObject(a) || !onlyKeys(a, ['message', 'data', 'taskId'])) return undefined;
  const { message, data, taskId } = a;
  if (typeof message !== 'string' || message.length === 0) return undefined;
  if (data !== undefined && !isObject(data)) return undefined;
  if (taskId !== undefined && (typeof taskId !== 'string' || taskId.length === 0)) return undefined;
  // The parsed body's own object (nothing else holds it, and the call only reads it); a key given
  // as undefined cannot come out of JSON.
  return a as unknown as AgentToolArgs;
}

/** The slice of an AbortSignal a plain call reads: an AbortSignal, or transport/response-close.ts. */
export interface CallSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', fn: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', fn: () => void): void;
}

/** The slice of the SDK's tool context that `callAgentTool` reads, for a plain call. */
export function plainToolContext(call: PlainToolCall, signal: CallSignal): ServerContext {
  // a slice of the SDK's context type (the SDK builds the full one only for calls it routes itself), cast whole
  return {
    mcpReq: {
      id: call.id,
      method: 'tools/call',
      ...(call.meta ? { _meta: call.meta, envelope: call.meta } : {}),
      requestState: noRequestState,
      signal,
      // No progress token was sent, so nothing is ever notified.
      notify: notifyNothing,
    },
  } as unknown as ServerContext;
}

const noRequestState = (): undefined => undefined;
const notifyNothing = async (): Promise<void> => {};

const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'];

/** A modern `tasks/*` request whose headers agree with it (else the SDK answers it). */
export function tasksRequestOf(
  body: unknown,
  headers: HeaderLookup,
): { id: string | number; method: string; params: Record<string, unknown>; meta: Record<string, unknown> /** SEP-2663: `Mcp-Name`, when sent, carries params.taskId */; nameMatches: boolean } | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !TASK_METHODS.includes(body.method)) return undefined;
  const id = body.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  const params = body.params;
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  const meta = params._meta;
  if (!MODERN_VERSIONS.includes(meta[VERSION_KEY] as string) || headers.get('mcp-protocol-version') !== meta[VERSION_KEY]) return undefined;
  if (headers.get('mcp-method') !== body.method || !isObject(meta[CAPABILITIES_KEY])) return undefined;
  // A missing Mcp-Name is tolerated (docs/compliance.md); one naming another task is not.
  const name = headers.get('mcp-name');
  return { id, method: body.method, params, meta, nameMatches: name === null || name.trim() === params.taskId };
}
