/**
 * The mutation corpus: real requests of every face, which the fuzzer mutates. A2A requests (v1.0,
 * v0.3 and v0.1, JSON-RPC and HTTP+JSON) are harvested from the golden fixtures, the exact
 * requests the conformance tests replay; the other faces (MCP in both eras, the compat routes,
 * OAuth, the management API, the admin page, cards) are written out here from their documents.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Face = 'a2a-jsonrpc' | 'a2a-rest' | 'mcp' | 'mcp-compat' | 'oauth' | 'management' | 'admin-page' | 'cards';

export interface SeedRequest {
  face: Face;
  /** where it came from, for reports */
  origin: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** sent as is */
  body?: string;
}

const GOLDEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/golden');

/** Agents of the golden fixtures' server are served by the fuzz server's echo agent. */
const AGENT_IN_PATH = /^\/a2a\/(scripted|plain|conformance|echo)(?=\/|$)/;

interface GoldenFile {
  steps: Array<{ request: { method?: string; path: string; headers?: Record<string, string>; body?: unknown } }>;
}

function goldenSeeds(taskId: string): SeedRequest[] {
  const out: SeedRequest[] = [];
  const seen = new Set<string>();
  for (const version of readdirSync(GOLDEN)) {
    for (const binding of readdirSync(path.join(GOLDEN, version))) {
      for (const file of readdirSync(path.join(GOLDEN, version, binding))) {
        const fixture = JSON.parse(readFileSync(path.join(GOLDEN, version, binding, file), 'utf8')) as GoldenFile;
        for (const { request } of fixture.steps) {
          const fill = (s: string) => s.replace(/<(?:id|token):\d+>/g, taskId);
          const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : fill(JSON.stringify(request.body));
          const seed: SeedRequest = {
            face: binding === 'jsonrpc' ? 'a2a-jsonrpc' : 'a2a-rest',
            origin: `golden ${version}/${binding}/${file}`,
            method: request.method ?? 'POST',
            path: fill(request.path).replace(AGENT_IN_PATH, '/a2a/echo'),
            headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
            ...(body !== undefined ? { body } : {}),
          };
          const key = `${seed.method} ${seed.path} ${seed.body ?? ''}`;
          if (!seen.has(key)) out.push(seed), seen.add(key);
        }
      }
    }
  }
  return out;
}

const json = (v: unknown) => JSON.stringify(v);
const rpc = (method: string, params?: unknown, id: unknown = 1) => json({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const MODERN = '2026-07-28';
const LEGACY = '2025-06-18';
const MCP_ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

function mcpSeeds(): SeedRequest[] {
  const seeds: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['legacy initialize', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } })],
    ['legacy tools/list', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('tools/list', {})],
    ['legacy tools/call', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('tools/call', { name: 'echo_echo', arguments: { message: 'hello' } })],
    ['legacy resources/list', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('resources/list', {})],
    ['legacy resources/read', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('resources/read', { uri: 'a2a://agents/echo/card' })],
    ['legacy ping', 'POST', { 'mcp-protocol-version': LEGACY }, rpc('ping')],
    ['legacy notification', 'POST', { 'mcp-protocol-version': LEGACY }, json({ jsonrpc: '2.0', method: 'notifications/initialized' })],
    ['legacy batch', 'POST', { 'mcp-protocol-version': LEGACY }, json([JSON.parse(rpc('ping', undefined, 1)), JSON.parse(rpc('tools/list', {}, 2))])],
    ['modern discover', 'POST', { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' }, rpc('server/discover', { _meta: modernMeta })],
    ['modern tools/list', 'POST', { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, rpc('tools/list', { _meta: modernMeta })],
    [
      'modern tools/call',
      'POST',
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' },
      rpc('tools/call', { name: 'echo_echo', arguments: { message: 'hi', data: { a: [1, null] } }, _meta: modernMeta }),
    ],
    [
      'modern tools/call as task',
      'POST',
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' },
      rpc('tools/call', {
        name: 'echo_echo',
        arguments: { message: 'hi' },
        task: { ttl: 60000 },
        _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      }),
    ],
    [
      'modern tasks/get',
      'POST',
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tasks/get' },
      rpc('tasks/get', { taskId: 'x', _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } }),
    ],
    ['modern resources/read', 'POST', { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read' }, rpc('resources/read', { uri: 'a2a://agents/echo/card', _meta: modernMeta })],
    ['modern subscriptions/listen', 'POST', { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' }, rpc('subscriptions/listen', { _meta: modernMeta })],
    ['GET stream', 'GET', { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY }, undefined],
    ['DELETE session', 'DELETE', { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': LEGACY }, undefined],
  ];
  const out: SeedRequest[] = [];
  for (const [name, method, headers, body] of seeds) {
    for (const p of ['/mcp', '/a2a/echo/mcp']) {
      out.push({ face: 'mcp', origin: `mcp ${name}`, method, path: p, headers: { ...MCP_ACCEPT, ...headers }, ...(body !== undefined ? { body } : {}) });
    }
  }
  out.push({ face: 'mcp', origin: 'mcp item page', method: 'GET', path: '/a2a/echo/items/1', headers: {} });
  return out;
}

function compatSeeds(): SeedRequest[] {
  const j = { 'content-type': 'application/json' };
  const list: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['GET', '/mcp', {}, undefined],
    ['POST', '/mcp/initialize', j, rpc('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } })],
    ['POST', '/mcp/initialize', j, json({ protocolVersion: LEGACY, capabilities: { roots: {} } })],
    ['GET', '/mcp/tools/list', {}, undefined],
    ['POST', '/mcp/tools/list', j, rpc('tools/list', {})],
    ['POST', '/mcp/tools/call', j, json({ name: 'echo_echo', arguments: { message: 'hi' } })],
    ['POST', '/mcp/tools/call', j, rpc('tools/call', { name: 'echo_echo', arguments: { message: 'hi' } }, 'abc')],
    ['GET', '/mcp/resources/list', {}, undefined],
    ['GET', '/mcp/health', {}, undefined],
    ['GET', '/mcp/validate', {}, undefined],
    ['GET', '/.well-known/mcp-metadata', {}, undefined],
    ['OPTIONS', '/mcp/tools/call', { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' }, undefined],
  ];
  return list.map(([method, p, headers, body]) => ({ face: 'mcp-compat' as const, origin: `compat ${method} ${p}`, method, path: p, headers, ...(body !== undefined ? { body } : {}) }));
}

function oauthSeeds(): SeedRequest[] {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const j = { 'content-type': 'application/json' };
  const redirect = 'http://127.0.0.1:9/callback';
  const list: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['GET', '/.well-known/oauth-authorization-server', {}, undefined],
    ['GET', '/.well-known/openid-configuration', {}, undefined],
    ['GET', '/.well-known/oauth-protected-resource', {}, undefined],
    ['GET', '/.well-known/oauth-protected-resource/mcp', {}, undefined],
    ['GET', '/.well-known/oauth-protected-resource/a2a/echo', {}, undefined],
    ['POST', '/oauth/register', j, json({ client_name: 'fuzz', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' })],
    ['POST', '/mcp/oauth/register', j, json({ client_name: 'fuzz', redirect_uris: [redirect] })],
    [
      'GET',
      `/oauth/authorize?response_type=code&client_id=fuzz&redirect_uri=${encodeURIComponent(redirect)}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&scope=mcp:tools&state=s`,
      {},
      undefined,
    ],
    ['POST', '/oauth/token', form, 'grant_type=authorization_code&code=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&client_id=fuzz&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'],
    ['POST', '/oauth/token', form, 'grant_type=client_credentials&client_id=fuzz&client_secret=x&scope=a2a:publish'],
    ['POST', '/oauth/token', form, 'grant_type=refresh_token&refresh_token=abc&client_id=fuzz'],
    ['POST', '/mcp/oauth/token', form, 'grant_type=client_credentials&client_id=fuzz&client_secret=x'],
    ['POST', '/oauth/token', j, json({ grant_type: 'client_credentials', client_id: 'fuzz', client_secret: 'x' })],
    ['POST', '/oauth/revoke', form, 'token=abc&client_id=fuzz'],
    ['GET', '/oauth/jwks', {}, undefined],
    ['GET', '/oauth/interaction/abc', {}, undefined],
    ['POST', '/oauth/interaction/abc/login', form, 'csrf=x&username=admin&password=y'],
    ['GET', '/mcp/oauth/metadata', {}, undefined],
    ['GET', '/mcp/oauth/clients', {}, undefined],
  ];
  return list.map(([method, p, headers, body]) => ({ face: 'oauth' as const, origin: `oauth ${method} ${p.split('?')[0]}`, method, path: p, headers, ...(body !== undefined ? { body } : {}) }));
}

function managementSeeds(): SeedRequest[] {
  const j = { 'content-type': 'application/json' };
  const list: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['GET', '/api/v1/agents', {}, undefined],
    ['GET', '/api/v1/agents/echo/card', {}, undefined],
    ['GET', '/api/v1/keys', {}, undefined],
    ['POST', '/api/v1/keys', j, json({ subject: 'fuzz', scopes: ['a2a:discover'], expiresAt: '2099-01-01T00:00:00Z' })],
    ['DELETE', '/api/v1/keys/0123456789abcdef', {}, undefined],
    ['GET', '/api/v1/users', {}, undefined],
    ['POST', '/api/v1/users', j, json({ username: 'fuzzer', scopes: ['a2a:discover'] })],
    ['DELETE', '/api/v1/users/fuzzer', {}, undefined],
    ['GET', '/api/v1/clients', {}, undefined],
    ['POST', '/api/v1/clients', j, json({ name: 'fuzz', kind: 'machine', scopes: ['a2a:publish'] })],
    ['DELETE', '/api/v1/clients/nope', {}, undefined],
  ];
  return list.map(([method, p, headers, body]) => ({ face: 'management' as const, origin: `management ${method} ${p}`, method, path: p, headers, ...(body !== undefined ? { body } : {}) }));
}

function pageAndCardSeeds(): SeedRequest[] {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  return [
    { face: 'admin-page', origin: 'admin page', method: 'GET', path: '/mcp/config/', headers: {} },
    { face: 'admin-page', origin: 'admin login', method: 'POST', path: '/mcp/config/login', headers: form, body: 'csrf=x&username=admin&password=wrong' },
    { face: 'admin-page', origin: 'admin clients', method: 'POST', path: '/mcp/config/clients', headers: form, body: 'csrf=x&name=a&kind=public&redirectUris=http%3A%2F%2F127.0.0.1%2Fcb' },
    { face: 'cards', origin: 'card', method: 'GET', path: '/.well-known/agent-card.json', headers: {} },
    { face: 'cards', origin: 'card v0.3', method: 'GET', path: '/.well-known/agent-card.json', headers: { 'a2a-version': '0.3' } },
    { face: 'cards', origin: 'agent card', method: 'GET', path: '/a2a/echo/.well-known/agent-card.json', headers: { 'if-none-match': '"x"' } },
    { face: 'cards', origin: 'agent.json', method: 'GET', path: '/.well-known/agent.json', headers: {} },
    { face: 'cards', origin: 'jwks', method: 'GET', path: '/.well-known/jwks.json', headers: {} },
    { face: 'cards', origin: 'healthz', method: 'GET', path: '/healthz', headers: {} },
  ];
}

/** Every seed; `taskId` fills the fixtures' task id placeholders (an existing task of the fuzz server). */
export function corpus(taskId: string): SeedRequest[] {
  return [...goldenSeeds(taskId), ...mcpSeeds(), ...compatSeeds(), ...oauthSeeds(), ...managementSeeds(), ...pageAndCardSeeds()];
}
