/**
 * Runs one MCP request of a compatibility route through Agentport's own `/mcp` endpoint, over the
 * loopback connection to this listener, with the caller's credentials, Host and Origin. The
 * compatibility routes are old wire shapes translated at the edge: sending the translated request
 * through the real endpoint means its whole edge (Host/Origin checks, body limit, authentication,
 * the MCP scope check, per-caller tools) applies unchanged, so `/mcp/tools/call` cannot be
 * authorized differently from `tools/call` on `/mcp`.
 */
import http from 'node:http';

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
  /** where this listener can be reached from inside the process, e.g. `http://127.0.0.1:8080` */
  selfUrl: () => string;
  /** the longest a forwarded request may take (the listener's request timeout) */
  timeoutMs: number;
}

export function forwardToMcp(target: ForwardTarget, incoming: http.IncomingHttpHeaders, method: string, params: Record<string, unknown>, id: string | number = 1): Promise<Forwarded> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': FORWARD_PROTOCOL_VERSION,
    'content-length': String(Buffer.byteLength(body)),
  };
  for (const name of CARRIED) {
    const v = incoming[name];
    if (typeof v === 'string') headers[name] = v;
  }
  const url = new URL('/mcp', target.selfUrl());
  return new Promise<Forwarded>((resolve, reject) => {
    const req = http.request(
      { method: 'POST', hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: url.pathname, headers, timeout: target.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const out: Record<string, string> = {};
          const challenge = res.headers['www-authenticate'];
          if (challenge) out['www-authenticate'] = Array.isArray(challenge) ? challenge.join(', ') : challenge;
          resolve({ status: res.statusCode ?? 502, headers: out, body: text, ...withMessage(text) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
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
