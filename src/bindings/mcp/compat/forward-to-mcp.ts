/**
 * Runs one MCP request of a compatibility route through the MCP face (mcp-face.ts `call`), in
 * process, with the caller's credentials, Host and Origin. The compatibility routes are old wire
 * shapes translated at the edge: running the translated request through the face's own steps
 * means its checks (Host/Origin, body limit, authentication, the MCP scope, per-caller tools)
 * apply unchanged, so `/mcp/tools/call` cannot be authorized differently from `tools/call` on
 * `/mcp`.
 */
import type { UsageDraft } from '../../../core/usage/usage-draft.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { PrincipalOf } from '../admission/admission.js';
import { answerText } from '../answer.js';
import type { McpFace } from '../mcp-face.js';

/** A 2025 revision: served statelessly by the endpoint, no initialize round needed. */
export const FORWARD_PROTOCOL_VERSION = '2025-06-18';

/** Request headers carried over from the caller (credentials, DNS-rebinding and CORS context, tracing). */
const CARRIED = ['authorization', 'x-api-key', 'host', 'origin', 'x-request-id'];

export interface Forwarded {
  status: number;
  /** headers worth passing back (the challenge of a refused credential) */
  headers: Record<string, string>;
  /** the JSON-RPC response, when the body was one */
  message?: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  /** the raw body when it was not JSON-RPC */
  body: string;
}

export interface ForwardTarget {
  /** the MCP face the calls run through */
  mcp: Pick<McpFace, 'call'>;
  /** the longest a forwarded call may take (the listener's request timeout) */
  timeoutMs: number;
}

export async function forwardToMcp(
  target: ForwardTarget,
  incoming: IncomingHttpHeaders,
  principal: PrincipalOf,
  method: string,
  params: Record<string, unknown>,
  id: string | number = 1,
  usage?: UsageDraft,
): Promise<Forwarded> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const headers: IncomingHttpHeaders = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': FORWARD_PROTOCOL_VERSION,
  };
  for (const name of CARRIED) {
    const v = incoming[name];
    if (typeof v === 'string') headers[name] = v;
  }
  // A call past the deadline is abandoned (and cancelled), as the loopback request once was.
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error('timeout'));
    }, target.timeoutMs);
    timer.unref();
  });
  try {
    const answer = await Promise.race([target.mcp.call({ headers, principal, body, signal: abort.signal, usage }).then(answerText), deadline]);
    const out: Record<string, string> = {};
    const challenge = answer.headers['www-authenticate'];
    if (challenge) out['www-authenticate'] = challenge;
    return { status: answer.status, headers: out, body: answer.body, ...withMessage(answer.body) };
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON body, or the last JSON-RPC response of an SSE body. */
function withMessage(text: string): { message?: Forwarded['message'] } {
  const parse = (s: string) => {
    try {
      const v: unknown = JSON.parse(s);
      return v && typeof v === 'object' && ('result' in v || 'error' in v) ? (v as Forwarded['message']) : undefined;
    } catch {
      return undefined;
    }
  };
  const direct = parse(text);
  if (direct) return { message: direct };
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim());
  for (let i = data.length - 1; i >= 0; i--) {
    const m = parse(data[i]!);
    if (m) return { message: m };
  }
  return {};
}
