/**
 * The hidden-agent rule (issue 19, D3): a caller who may not see an agent (`visibility: extended`)
 * gets exactly what an unknown id gets, on every path; so does an agent of another usecase for a
 * caller bound to a usecase. Servers differ only in that one has the hidden agent `vault` (another
 * the usecase agent `ledger`) and the last has neither; every request below is sent to both by
 * callers who may not see it, and the answers are compared byte for byte (status, the headers a
 * client could tell apart, body), with only the servers' own URLs normalised.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type A2AGrpcTestClient } from '../../bindings/a2a-grpc/client.js';
import { userMessage } from '../../support/server.js';
import { startAuthzServer, type AuthzServer } from './support.js';

const HIDDEN = 'vault';
/** a public agent of usecase `finance`: it does not exist for a caller bound to another usecase */
const LEDGER = 'ledger';
const INVALID_KEY = 'ap_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

interface Side {
  s: AuthzServer;
  grpc: A2AGrpcTestClient;
  keys: Record<Caller, Record<string, string>>;
}

type Caller = 'anonymous' | 'invalid key' | 'publish only' | 'mcp only' | 'discover only' | 'other usecase';

let withHidden: Side;
/** has the agent of another usecase (public, but not there for a caller bound to another usecase) */
let withLedger: Side;
let without: Side;

async function side(agents: object[]): Promise<Side> {
  const s = await startAuthzServer({ agents });
  const keys: Record<Caller, Record<string, string>> = {
    anonymous: {},
    'invalid key': { 'x-api-key': INVALID_KEY },
    'publish only': { 'x-api-key': await s.key('carol', ['a2a:publish']) },
    'mcp only': { 'x-api-key': await s.key('carol', ['mcp:tools:other']) },
    'discover only': { 'x-api-key': await s.key('carol', ['a2a:discover']) },
    'other usecase': { 'x-api-key': await s.key('carol', ['a2a:discover', 'a2a:publish', 'mcp:tools:retail'], 'retail') },
  };
  return { s, grpc: connect(Number(s.grpc.split(':').pop())), keys };
}

beforeAll(async () => {
  const echo = { id: 'echo', builtin: 'echo' };
  withHidden = await side([echo, { id: HIDDEN, builtin: 'echo', visibility: 'extended' }]);
  withLedger = await side([echo, { id: LEDGER, builtin: 'echo', usecase: 'finance' }]);
  without = await side([echo]);
}, 60_000);

afterAll(async () => {
  for (const x of [withHidden, withLedger, without]) {
    x?.grpc.close();
    await x?.s.stop();
  }
});

/** Headers a client could use to tell two answers apart (not Date, not the request id). */
const COMPARED = ['content-type', 'www-authenticate', 'cache-control', 'vary', 'allow', 'access-control-allow-origin', 'etag', 'mcp-session-id'];

interface Req {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  callers: Caller[];
  /** the server holding the agent: the hidden one (default), or the other usecase's */
  holder?: 'ledger';
}

const rpcBody = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
const v1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const v03 = { 'content-type': 'application/json', 'a2a-version': '0.3' };
const send = rpcBody('SendMessage', { message: userMessage('hi') });
const v03Send = rpcBody('message/send', { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } });
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const A2A_CALLERS: Caller[] = ['anonymous', 'invalid key', 'publish only', 'mcp only'];
const MCP_CALLERS: Caller[] = ['anonymous', 'invalid key', 'publish only', 'discover only'];
const ALL: Caller[] = ['anonymous', 'invalid key', 'publish only', 'mcp only', 'discover only'];

const REQUESTS: Req[] = [
  { name: 'JSON-RPC v1.0 SendMessage', method: 'POST', path: `/a2a/${HIDDEN}`, headers: v1, body: send, callers: A2A_CALLERS },
  { name: 'JSON-RPC v1.0 with Content-Type text/plain', method: 'POST', path: `/a2a/${HIDDEN}`, headers: { ...v1, 'content-type': 'text/plain' }, body: send, callers: A2A_CALLERS },
  { name: 'JSON-RPC v1.0 unparsable body', method: 'POST', path: `/a2a/${HIDDEN}`, headers: v1, body: '{', callers: A2A_CALLERS },
  { name: 'JSON-RPC v1.0 GetExtendedAgentCard', method: 'POST', path: `/a2a/${HIDDEN}`, headers: v1, body: rpcBody('GetExtendedAgentCard', {}), callers: A2A_CALLERS },
  { name: 'JSON-RPC v1.0 with an unsupported A2A-Version', method: 'POST', path: `/a2a/${HIDDEN}`, headers: { ...v1, 'a2a-version': '9.9' }, body: send, callers: A2A_CALLERS },
  {
    name: 'JSON-RPC on the shared endpoint, tenant names it',
    method: 'POST',
    path: '/a2a',
    headers: v1,
    body: rpcBody('SendMessage', { tenant: HIDDEN, message: userMessage('hi') }),
    callers: ['anonymous', 'publish only', 'mcp only'],
  },
  { name: 'JSON-RPC on the shared endpoint, GetTask in its tenant', method: 'POST', path: '/a2a', headers: v1, body: rpcBody('GetTask', { tenant: HIDDEN, id: 'x' }), callers: ['anonymous', 'publish only', 'mcp only'] },
  { name: 'HTTP+JSON v1.0 GetTask', method: 'GET', path: `/a2a/${HIDDEN}/tasks/x`, headers: { 'a2a-version': '1.0' }, callers: A2A_CALLERS },
  { name: 'HTTP+JSON v1.0 SendMessage', method: 'POST', path: `/a2a/${HIDDEN}/message:send`, headers: v1, body: JSON.stringify({ message: userMessage('hi') }), callers: A2A_CALLERS },
  { name: 'HTTP+JSON v1.0 with a form body', method: 'POST', path: `/a2a/${HIDDEN}/message:send`, headers: { ...v1, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b', callers: A2A_CALLERS },
  { name: 'HTTP+JSON with the tenant form', method: 'GET', path: `/a2a/${HIDDEN}/${HIDDEN}/tasks`, headers: { 'a2a-version': '1.0' }, callers: A2A_CALLERS },
  { name: 'HTTP+JSON with a method not allowed', method: 'PUT', path: `/a2a/${HIDDEN}/tasks`, headers: { 'a2a-version': '1.0' }, callers: A2A_CALLERS },
  { name: 'HTTP+JSON extended card', method: 'GET', path: `/a2a/${HIDDEN}/extendedAgentCard`, headers: { 'a2a-version': '1.0' }, callers: A2A_CALLERS },
  { name: 'JSON-RPC v0.3 message/send', method: 'POST', path: `/a2a/${HIDDEN}`, headers: v03, body: v03Send, callers: A2A_CALLERS },
  {
    name: 'JSON-RPC v0.1 tasks/send (no version header)',
    method: 'POST',
    path: `/a2a/${HIDDEN}`,
    headers: { 'content-type': 'application/json' },
    body: rpcBody('tasks/send', { id: 't1', message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } }),
    callers: A2A_CALLERS,
  },
  { name: 'HTTP+JSON v0.3 card', method: 'GET', path: `/a2a/${HIDDEN}/v1/card`, headers: { 'a2a-version': '0.3' }, callers: A2A_CALLERS },
  { name: 'GET on the JSON-RPC path', method: 'GET', path: `/a2a/${HIDDEN}`, callers: A2A_CALLERS },
  { name: 'public card', method: 'GET', path: `/a2a/${HIDDEN}/.well-known/agent-card.json`, callers: A2A_CALLERS },
  { name: 'v0.2 card path', method: 'GET', path: `/a2a/${HIDDEN}/.well-known/agent.json`, callers: A2A_CALLERS },
  { name: 'registry card', method: 'GET', path: `/api/v1/agents/${HIDDEN}/card`, callers: A2A_CALLERS },
  { name: 'registry listing', method: 'GET', path: '/api/v1/agents', callers: ['anonymous', 'publish only', 'mcp only'] },
  { name: 'RFC 9728 metadata of the A2A base path', method: 'GET', path: `/.well-known/oauth-protected-resource/a2a/${HIDDEN}`, callers: ALL },
  { name: 'RFC 9728 metadata of its MCP endpoint', method: 'GET', path: `/.well-known/oauth-protected-resource/a2a/${HIDDEN}/mcp`, callers: ALL },
  { name: 'RFC 9728 metadata, suffix form', method: 'GET', path: `/a2a/${HIDDEN}/.well-known/oauth-protected-resource`, callers: ALL },
  { name: 'MCP initialize on its endpoint', method: 'POST', path: `/a2a/${HIDDEN}/mcp`, headers: mcpHeaders, body: initialize, callers: MCP_CALLERS },
  { name: 'MCP with a body too broken to parse', method: 'POST', path: `/a2a/${HIDDEN}/mcp`, headers: mcpHeaders, body: '{', callers: MCP_CALLERS },
  { name: 'MCP GET on its endpoint', method: 'GET', path: `/a2a/${HIDDEN}/mcp`, headers: { accept: 'text/event-stream' }, callers: MCP_CALLERS },
  { name: 'item page', method: 'GET', path: `/a2a/${HIDDEN}/items/row:x`, callers: MCP_CALLERS },
  { name: 'another usecase’s agent: JSON-RPC SendMessage', method: 'POST', path: `/a2a/${LEDGER}`, headers: v1, body: send, callers: ['other usecase'], holder: 'ledger' },
  { name: 'another usecase’s agent: Content-Type text/plain', method: 'POST', path: `/a2a/${LEDGER}`, headers: { ...v1, 'content-type': 'text/plain' }, body: send, callers: ['other usecase'], holder: 'ledger' },
  { name: 'another usecase’s agent: unsupported A2A-Version', method: 'POST', path: `/a2a/${LEDGER}`, headers: { ...v1, 'a2a-version': '9.9' }, body: send, callers: ['other usecase'], holder: 'ledger' },
  { name: 'another usecase’s agent: HTTP+JSON GetTask', method: 'GET', path: `/a2a/${LEDGER}/tasks/x`, headers: { 'a2a-version': '1.0' }, callers: ['other usecase'], holder: 'ledger' },
  {
    name: 'another usecase’s agent: HTTP+JSON form body',
    method: 'POST',
    path: `/a2a/${LEDGER}/message:send`,
    headers: { ...v1, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'a=b',
    callers: ['other usecase'],
    holder: 'ledger',
  },
  { name: 'another usecase’s agent: MCP initialize', method: 'POST', path: `/a2a/${LEDGER}/mcp`, headers: mcpHeaders, body: initialize, callers: ['other usecase'], holder: 'ledger' },
  { name: 'another usecase’s agent: MCP broken body', method: 'POST', path: `/a2a/${LEDGER}/mcp`, headers: mcpHeaders, body: '{', callers: ['other usecase'], holder: 'ledger' },
  {
    name: 'another usecase’s agent: shared endpoint tenant',
    method: 'POST',
    path: '/a2a',
    headers: v1,
    body: rpcBody('SendMessage', { tenant: LEDGER, message: userMessage('hi') }),
    callers: ['other usecase'],
    holder: 'ledger',
  },
  { name: '/mcp/health counts', method: 'GET', path: '/mcp/health', callers: ['anonymous'] },
  { name: '/.well-known/mcp-metadata', method: 'GET', path: '/.well-known/mcp-metadata', callers: ['anonymous'] },
  { name: 'GET /mcp server info', method: 'GET', path: '/mcp', callers: ['anonymous'] },
  { name: 'compat tools/list', method: 'GET', path: '/mcp/tools/list', callers: ['anonymous'] },
];

interface Answer {
  status: number | string;
  headers: Record<string, string>;
  body: string;
}

const normalise = (text: string, x: Side) => text.replaceAll(x.s.http, 'http://SERVER').replaceAll(x.s.http.replace('http://', ''), 'SERVER').replaceAll(x.s.grpc, 'GRPC');

async function httpAnswer(x: Side, r: Req, caller: Caller): Promise<Answer> {
  const res = await fetch(`${x.s.http}${r.path}`, {
    method: r.method,
    headers: { 'x-request-id': 'same-id', ...(r.headers ?? {}), ...x.keys[caller] },
    ...(r.body !== undefined ? { body: r.body } : {}),
  });
  const headers: Record<string, string> = {};
  for (const h of COMPARED) {
    const v = res.headers.get(h);
    if (v !== null) headers[h] = normalise(v, x);
  }
  return { status: res.status, headers, body: normalise(await res.text(), x) };
}

describe('a hidden agent answers exactly like an unknown one', () => {
  const cases = REQUESTS.flatMap((r) => r.callers.map((caller) => ({ ...r, caller })));
  it.each(cases)('$name, $caller', async (c) => {
    const holder = c.holder === 'ledger' ? withLedger : withHidden;
    const [hidden, unknown] = await Promise.all([httpAnswer(holder, c, c.caller), httpAnswer(without, c, c.caller)]);
    expect(hidden).toEqual(unknown);
  });

  // The same requests, from a caller who may see it, are not the unknown answer: the rule hides
  // the agent from those who may not see it, not from everyone.
  it.each([
    ['JSON-RPC', 'POST', `/a2a/${HIDDEN}`, v1, rpcBody('GetExtendedAgentCard', {})],
    ['public card', 'GET', `/a2a/${HIDDEN}/.well-known/agent-card.json`, {}, undefined],
  ] as const)('%s with a2a:discover reaches it', async (_n, method, path, headers, body) => {
    const h = { ...headers, ...withHidden.keys['discover only'] };
    const res = await fetch(`${withHidden.s.http}${path}`, { method, headers: h, ...(body ? { body } : {}) });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"name"');
  });
});

describe('challenges for a hidden agent', () => {
  it('name the server’s own RFC 9728 document, which exists (the agent’s own would tell it exists)', async () => {
    const x = withHidden;
    const r = await fetch(`${x.s.http}/a2a/${HIDDEN}`, { method: 'POST', headers: { ...v1, ...x.keys['discover only'] }, body: send });
    expect(r.status).toBe(403);
    const metadata = /resource_metadata="([^"]+)"/.exec(r.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadata).toBe(`${x.s.http}/.well-known/oauth-protected-resource`);
    expect((await fetch(metadata!)).status).toBe(200);
  });
});

describe('gRPC: a hidden tenant answers exactly like an unknown one', () => {
  const grpcCall = (x: Side, method: string, req: object, caller: Caller) =>
    x.grpc.unary(method, req, { 'a2a-version': '1.0', ...x.keys[caller] }).then(
      () => ({ code: grpc.status.OK, details: 'ok' }),
      (e: grpc.ServiceError) => ({ code: e.code, details: e.details, meta: JSON.stringify(Object.keys(e.metadata?.getMap() ?? {}).sort()) }),
    );
  it.each([
    ['SendMessage', { tenant: HIDDEN, message: userMessage('hi') }],
    ['GetTask', { tenant: HIDDEN, id: 'x' }],
    ['GetExtendedAgentCard', { tenant: HIDDEN }],
  ] as const)('%s', async (method, req) => {
    for (const caller of ['anonymous', 'invalid key', 'publish only', 'mcp only'] as Caller[]) {
      const [hidden, unknown] = await Promise.all([grpcCall(withHidden, method, req, caller), grpcCall(without, method, req, caller)]);
      expect(hidden, caller).toEqual(unknown);
    }
    const other = { ...req, tenant: LEDGER };
    const [hidden, unknown] = await Promise.all([grpcCall(withLedger, method, other, 'other usecase'), grpcCall(without, method, other, 'other usecase')]);
    expect(hidden, 'another usecase').toEqual(unknown);
  });
});
