/**
 * What the MCP face answers, as a value: a JSON body, a JSON-RPC error of the edge (id null), or
 * the SDK's web `Response`. Every step from admission to dispatch returns one, so the same steps
 * serve a node request (`sendAnswer`) and an in-process call of the compat routes
 * (`answerText`), and neither can answer differently from the other.
 */
import type { ServerResponse } from 'node:http';
import type { UsageDraft } from '../../core/usage/usage-draft.js';
import { noteMcpAnswerError, noteMcpError } from './mcp-usage.js';
import { writeResponse } from './transport/sdk-bridge.js';

export type Answer =
  /** a JSON body (not written when the client has gone) */
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  /** an edge refusal: `{jsonrpc, id: null, error}` (only the end of the answer when one was started) */
  | { kind: 'error'; status: number; code: number; message: string; headers?: Record<string, string> }
  /** the SDK's answer, streamed as it comes */
  | { kind: 'web'; response: Response };

export const json = (status: number, body: unknown): Answer => ({ kind: 'json', status, body });

export const rpcError = (status: number, code: number, message: string, headers?: Record<string, string>): Answer => ({ kind: 'error', status, code, message, ...(headers ? { headers } : {}) });

/**
 * Writes `a` to a node response; `signal` aborts a streamed body when the client goes. With the
 * call's usage draft, a JSON-RPC error in the answer becomes the call's outcome.
 */
export async function sendAnswer(res: ServerResponse, a: Answer, signal?: AbortSignal, usage?: UsageDraft, requestId?: string): Promise<void> {
  // A JSON answer without headers of its own takes the id into its one-array head (below); any
  // other answer has it set first, so that it goes out first as the edge's did (ADR 0066).
  if (requestId !== undefined && (a.kind !== 'json' || a.headers)) res.setHeader('X-Request-Id', requestId);
  if (a.kind === 'web') return writeResponse(res, a.response, signal, usage && ((first) => noteMcpAnswerError(usage, first)));
  if (a.headers) for (const [k, v] of Object.entries(a.headers)) res.setHeader(k, v);
  if (a.kind === 'json') {
    if (res.destroyed) return;
    const code = usage && (a.body as { error?: { code?: unknown } } | null)?.error?.code;
    if (usage && typeof code === 'number') noteMcpError(usage, code);
    // With its length the answer goes out as head and body in one string; without one, Node framed
    // it chunked (the chunk's size line and the last chunk as more buffers through writev), as the
    // A2A face's answers were before ADR 0046. The body is the same bytes.
    const text: string = JSON.stringify(a.body) ?? '';
    const length = Buffer.byteLength(text);
    // With no header set before, Node takes the array as it is; one set before sends it down its
    // slow path (every header through setHeader again, then a walk of the stored ones: ADR 0059).
    res.writeHead(
      a.status,
      requestId !== undefined && !a.headers ? ['X-Request-Id', requestId, 'Content-Type', 'application/json', 'Content-Length', length] : ['Content-Type', 'application/json', 'Content-Length', length],
    );
    return void res.end(text);
  }
  if (usage) noteMcpError(usage, a.code);
  sendJsonRpcError(res, a.status, a.code, a.message);
}

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** An answer as status, headers and body text, for a caller inside the process. */
export async function answerText(a: Answer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  if (a.kind === 'web') {
    const headers: Record<string, string> = {};
    a.response.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    return { status: a.response.status, headers, body: await a.response.text() };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(a.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = a.kind === 'json' ? a.body : { jsonrpc: '2.0', id: null, error: { code: a.code, message: a.message } };
  return { status: a.status, headers, body: JSON.stringify(body) };
}
