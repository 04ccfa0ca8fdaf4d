/** Raw A2A v0.1 JSON-RPC over HTTP, as v0.1 clients sent it: no version header, v0.1 methods and shapes. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSse } from '../../../support/server.js';

export const ALICE = 'test-key-v01-alice-0123456789abcdef';
export const BOB = 'test-key-v01-bob-0123456789abcdef01';

const SCRIPTED = fileURLToPath(new URL('../../../fixtures/agents/scripted-text-agent.mjs', import.meta.url));

export const V01_SERVER_CONFIG = {
  agents: [
    { id: 'scripted', module: path.resolve(SCRIPTED) },
    { id: 'echo', builtin: 'echo' },
    { id: 'plain', builtin: 'echo', streaming: false, pushNotifications: false },
  ],
  push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
  auth: {
    mode: 'none',
    apiKeys: [
      { key: ALICE, subject: 'alice' },
      { key: BOB, subject: 'bob' },
    ],
  },
};

let seq = 0;
export const uid = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++seq}`;

export const v01Message = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

export async function rpc01(url: string, method: string, params?: unknown, key: string = ALICE, id: string | number = 1): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

export async function stream01(url: string, method: string, params: unknown, key: string = ALICE, id: string | number = 's-1') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) return { status: res.status, contentType, events: [], body: JSON.parse(await res.text()) };
  return { status: res.status, contentType, events: await readSse(res), body: undefined };
}
