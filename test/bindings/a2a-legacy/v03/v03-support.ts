/** Raw v0.3 JSON-RPC over HTTP, as a v0.3 client sends it: no A2A-Version header, slash methods. */
import { readSse } from '../../../support/server.js';

export const API_KEY = 'test-key-v03-0123456789abcdef';

/** echo (its skill only on the extended card), conformance, two echoes with features off or required, push to loopback. */
export const V03_SERVER_CONFIG = {
  agents: [
    { id: 'echo', builtin: 'echo', skills: { echo: { visibility: 'extended' } } },
    { id: 'conformance', builtin: 'conformance' },
    // no streaming, no push, no extended card: the v0.3 codes of those refusals
    { id: 'plain', builtin: 'echo', streaming: false, pushNotifications: false, extendedCard: false },
    { id: 'strict', builtin: 'echo', requiredExtensions: ['urn:agentport:test:required'] },
  ],
  push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
  auth: { apiKeys: [{ key: API_KEY, subject: 'alice' }] },
};

const HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };

let seq = 0;
export const uid = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

export const v03Message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: uid('m'),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

export interface RpcResult {
  status: number;
  headers: Headers;
  body: any;
}

export async function rpc03(url: string, method: string, params?: unknown, headers: Record<string, string> = {}, id: string | number = 1): Promise<RpcResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
  });
  return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) };
}

/** A v0.3 streaming call read to its end; returns the SSE events (data = JSON-RPC response). */
export async function stream03(url: string, method: string, params: unknown, id: string | number = 'st-1') {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) return { status: res.status, contentType, events: [], body: JSON.parse(await res.text()) };
  return { status: res.status, contentType, events: await readSse(res), body: undefined };
}

/** Polls tasks/get until the task reaches `state`. */
export async function waitForState(url: string, taskId: string, states: string[], timeoutMs = 5_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await rpc03(url, 'tasks/get', { id: taskId });
    if (r.body.result && states.includes(r.body.result.status.state)) return r.body.result;
    if (Date.now() > end) throw new Error(`task ${taskId} never reached ${states.join('|')}: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}
