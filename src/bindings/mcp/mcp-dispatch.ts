/**
 * `dispatch`: a request whose caller was admitted (./mcp-face.ts), in this order: a fixture
 * module that failed to load answers 503; the body through the lenient edge (depth, parse,
 * invalid params, Accept and MCP-Protocol-Version corrected); its usage noted; then the first of
 * the fast paths that takes it (tasks-requests.ts, a fixture module's fastPath,
 * plain-tool-answer.ts), else the SDK: a legacy session, or the scope's Streamable HTTP handler.
 */
import { carryUsage, type UsageDraft } from '../../core/usage/usage-draft.js';
import type { Principal } from '../../core/authz/principal.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { normaliseAccept, reconcileVersionHeader } from './admission/lenient-edge.js';
import { PUBLIC_DISCOVERY_PRINCIPAL } from './admission/public-discovery.js';
import { json, rpcError, type Answer } from './answer.js';
import { MCP_CODE } from './mcp-errors.js';
import type { McpFaceState } from './mcp-face-state.js';
import { noteMcpCall } from './mcp-usage.js';
import { invalidParamsOf } from './request-params.js';
import { authInfoFor } from './surface/mcp-server-factory.js';
import { startToolTask } from './tasks/mcp-tasks.js';
import { answerTasksRequest } from './tasks/tasks-requests.js';
import { answerPlainToolCall } from './tools/plain-tool-answer.js';
import { plainToolCallOf, tasksRequestOf, type CallSignal } from './tools/plain-tool-call.js';
import { isElicitingLegacyInitialize } from './transport/legacy-sessions.js';
import { webRequest } from './transport/sdk-bridge.js';

/** What `dispatch` needs of a request whose caller was admitted. */
export interface Admitted {
  method: string;
  /** path and query as received */
  url: string;
  host: string | undefined;
  /** header fields by lower-case name (sdk-bridge.ts `headerFields`); the lenient edge corrects them */
  fields: Record<string, string>;
  sessionId: string | undefined;
  body: string | undefined;
  principal: Principal;
  /** the scope served: an agent id, undefined for `/mcp`, or PUBLIC_SCOPE */
  scope: string | undefined;
  /**
   * The client leaving: an AbortSignal, or (a node request) the response's close
   * (transport/response-close.ts), which makes its AbortSignal only when the SDK path asks for one.
   */
  signal: AbortSignal | ClosingResponse;
  usage: UsageDraft | undefined;
  /** a POST of the 2024-11-05 HTTP+SSE transport: never a 2025-era session (its answers go on the stream) */
  sseTransport?: true;
}

/** What a plain tool call listens to, and the AbortSignal it becomes when asked (ResponseClose fits). */
export interface ClosingResponse extends CallSignal {
  readonly signal: AbortSignal;
}

const abortSignalOf = (s: AbortSignal | ClosingResponse): AbortSignal => (s instanceof AbortSignal ? s : s.signal);

/** The body through the lenient edge, then the first of the fast paths that takes it, else the SDK. */
export async function dispatch(s: McpFaceState, r: Admitted): Promise<Answer> {
  if (s.fixtures.loaded && (await failed(s.fixtures.loaded))) return rpcError(503, MCP_CODE.InternalError, 'The server failed to start');
  const body = r.body === undefined ? { parsed: undefined } : readBody(s, r.body, r.fields);
  if ('answer' in body) return body.answer;
  const { parsed } = body;
  if (r.usage) noteMcpCall(r.usage, parsed, r.fields['mcp-protocol-version']);
  if (r.method === 'POST' && r.sessionId === undefined) {
    const fast = await fastPath(s, r, parsed);
    if (fast) return fast;
  }
  return toSdk(s, r, parsed, carrying(r));
}

/** Whether the fixture module failed to load (mcp.fixtureModule). */
async function failed(loaded: Promise<void>): Promise<boolean> {
  return !(await loaded.then(
    () => true,
    () => false,
  ));
}

/** The body parsed, or refused (too deep, invalid params); Accept and the version header corrected in `fields`. */
function readBody(s: McpFaceState, body: string, fields: Record<string, string>): { parsed: unknown } | { answer: Answer } {
  // The SDK's validation recurses: a body nested thousands deep would end in its 500.
  if (exceedsJsonDepth(body)) return { answer: rpcError(400, MCP_CODE.InvalidRequest, `The request body nests deeper than ${MAX_JSON_DEPTH} levels`) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined; // the SDK answers the parse error
  }
  const invalid = invalidParamsOf(parsed, fields['mcp-protocol-version']);
  if (invalid) return { answer: json(200, { jsonrpc: '2.0', ...invalid }) };
  const accept = normaliseAccept(fields.accept);
  if (accept.correction) {
    fields.accept = accept.value;
    s.d.log.debug({ correction: accept.correction }, 'mcp: lenient edge corrected Accept');
  }
  const version = reconcileVersionHeader(fields['mcp-protocol-version'], parsed);
  if (version.correction) {
    if (version.value === undefined) delete fields['mcp-protocol-version'];
    else fields['mcp-protocol-version'] = version.value;
    s.d.log.debug({ correction: version.correction }, 'mcp: lenient edge corrected MCP-Protocol-Version');
  }
  return { parsed };
}

/** The usage draft the core is to fill for this caller (a public discovery call's is the edge's alone). */
function draftOf(r: Admitted): UsageDraft | undefined {
  return r.principal !== PUBLIC_DISCOVERY_PRINCIPAL ? r.usage : undefined;
}

/**
 * The caller carrying the call's usage draft into the core: tool calls reach it from inside the
 * SDK, where only the principal travels. The plain path needs no such copy (it hands the draft to
 * the call context itself).
 */
function carrying(r: Admitted): Principal {
  const usage = draftOf(r);
  return usage ? carryUsage(r.principal, usage) : r.principal;
}

/** A sessionless POST answered without the SDK: a tasks request, a fixture's fastPath, a plain tool call. */
async function fastPath(s: McpFaceState, r: Admitted, parsed: unknown): Promise<Answer | undefined> {
  const { fields, scope } = r;
  const { handler, d, info } = s;
  const headers = { get: (name: string) => fields[name] ?? null };
  const tasksRequest = tasksRequestOf(parsed, headers);
  if (tasksRequest) return answerTasksRequest({ handler, registry: d.registry, ...(d.policy ? { policy: d.policy } : {}), info }, tasksRequest, carrying(r), scope);
  const fixtures = s.fixtures.module;
  if (fixtures?.fastPath) {
    const principal = carrying(r);
    const fixture = await fixtures.fastPath(parsed, headers, {
      principal,
      info,
      agentTool: (name) => s.scopes.for(scope).factory.agentTool(name, principal),
      startToolTask: (spec, args) => startToolTask(handler, spec, args, principal),
    });
    if (fixture) return fixture;
  }
  // The plain path asks no one but the core whether this caller may use the tool (plain-tool-answer.ts).
  const plain = plainToolCallOf(parsed, headers);
  const spec = plain && s.scopes.for(scope).factory.plainTool(plain.name, r.principal);
  return plain && spec ? await answerPlainToolCall(s.plain, plain, spec, { principal: r.principal, usage: draftOf(r) }, r.signal) : undefined;
}

/** The SDK's answer: in the request's legacy session, a new one for an eliciting legacy client, else sessionless. */
async function toSdk(s: McpFaceState, r: Admitted, parsed: unknown, principal: Principal): Promise<Answer> {
  const { fields, scope } = r;
  const request = webRequest({ host: r.host, url: r.url, method: r.method, fields, body: r.body, signal: abortSignalOf(r.signal) });
  const authInfo = authInfoFor(principal);
  const scopeKey = scope ?? '';
  if (r.sessionId !== undefined) {
    const response = await s.sessions.serve(r.sessionId, scopeKey, request, authInfo, principal.subject, parsed);
    return response ? { kind: 'web', response } : rpcError(404, MCP_CODE.TransportRefused, 'Session not found');
  }
  const h = s.scopes.for(scope);
  if (r.method === 'POST' && !r.sseTransport && isElicitingLegacyInitialize(parsed)) {
    return { kind: 'web', response: await s.sessions.open(scopeKey, h.factory, request, authInfo, principal.subject, parsed) };
  }
  return { kind: 'web', response: await h.http.fetch(request, { authInfo, ...(parsed !== undefined ? { parsedBody: parsed } : {}) }) };
}
