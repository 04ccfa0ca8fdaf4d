import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const initialize = (v = '2025-11-25') => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const discover = () => ({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } });
const listTools = () => ({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope() } });

/** A request with a Host header fetch() would not let us set. */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP edge: leniency, limits, CORS, Origin/Host', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], limits: { bodyBytes: 4096 } });
  });
  afterAll(async () => s?.stop());

  it.each([
    ['*/*', '*/*'],
    ['JSON only', 'application/json'],
    ['SSE only', 'text/event-stream'],
    ['none', ''],
  ])('serves Accept %s on both eras', async (_label, accept) => {
    const legacy = await post(`${s.http}/mcp`, initialize(), { accept });
    expect(legacy.status).toBe(200);
    expect(legacy.json.result.serverInfo.name).toBe('agentport');
    const modern = await post(`${s.http}/mcp`, discover(), { accept, ...modernHeaders('server/discover') });
    expect(modern.status).toBe(200);
    expect(modern.json.result.supportedVersions).toContain('2026-07-28');
  });

  it('follows _meta when the version header disagrees (2025-11-25 header, 2026-07-28 envelope)', async () => {
    const r = await post(`${s.http}/mcp`, listTools(), { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2025-11-25' });
    expect(r.status).toBe(200);
    expect(r.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo_echo']);
  });

  it('serves a legacy request that carries an unknown version header, and a legacy initialize with a modern one', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '1999-01-01' });
    expect(r.status).toBe(200);
    expect(r.json.result.tools.map((t: { name: string }) => t.name)).toContain('echo_echo');
    const init = await post(`${s.http}/mcp`, initialize(), { 'mcp-protocol-version': '2026-07-28' });
    expect(init.status).toBe(200);
    expect(init.json.result.protocolVersion).toBe('2025-11-25');
  });

  it('answers a modern-headed request without the _meta envelope with 400 -32602 (2026-07-28)', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32602);
  });

  it('answers an unsupported envelope version with HTTP 400 and -32022 (a modern error, so clients stay modern)', async () => {
    const r = await post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) } },
      { ...modernHeaders('server/discover'), 'mcp-protocol-version': '2099-01-01' },
    );
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32022);
  });

  it('answers an unknown modern method with 404 and -32601', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'no/such', params: { _meta: envelope() } }, modernHeaders('no/such'));
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe(-32601);
  });

  it('answers DELETE, a GET that does not ask for a stream, and a 2026-era GET with 405 (stateless endpoint)', async () => {
    expect((await fetch(`${s.http}/mcp`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${s.http}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } })).status).toBe(405);
  });

  it('answers malformed JSON with a parse error and stays up', async () => {
    const r = await post(`${s.http}/mcp`, '{"jsonrpc":', {});
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32700);
    expect((await post(`${s.http}/mcp`, initialize())).status).toBe(200);
  });

  it('refuses a body over limits.bodyBytes with 413, declared or streamed', async () => {
    const big = JSON.stringify({ ...initialize(), params: { ...initialize().params, pad: 'x'.repeat(5000) } });
    const r = await post(`${s.http}/mcp`, big);
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe(-32600);
    const chunked = await fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(big)), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers CORS preflight on /mcp before auth, allowing and exposing the MCP headers', async () => {
    const res = await fetch(`${s.http}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, mcp-protocol-version' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const allow = res.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['authorization', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id']) expect(allow).toContain(h);
    const expose = res.headers.get('access-control-expose-headers')!.toLowerCase();
    for (const h of ['www-authenticate', 'mcp-session-id', 'mcp-protocol-version']) expect(expose).toContain(h);
  });

  it('adds CORS to /.well-known/* responses and preflights', async () => {
    const pre = await fetch(`${s.http}/.well-known/agent-card.json`, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    const res = await fetch(`${s.http}/.well-known/agent-card.json`, { headers: { origin: 'http://localhost:6274' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('rejects a foreign Origin with 403 when bound to loopback, and accepts loopback and absent Origins', async () => {
    expect((await post(`${s.http}/mcp`, initialize(), { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(`${s.http}/mcp`, initialize(), { origin: 'null' })).status).toBe(403);
    const ok = await post(`${s.http}/mcp`, initialize(), { origin: 'http://127.0.0.1:6274' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:6274');
    expect((await post(`${s.http}/mcp`, initialize())).status).toBe(200);
  });

  it('rejects a foreign Host (DNS rebinding) with 403', async () => {
    const r = await rawPost(`${s.http}/mcp`, JSON.stringify(initialize()), { host: 'evil.example' });
    expect(r.status).toBe(403);
    const ok = await rawPost(`${s.http}/mcp`, JSON.stringify(initialize()), { host: `localhost:${new URL(s.http).port}` });
    expect(ok.status).toBe(200);
  });

  it('streams progress as SSE with X-Accel-Buffering: no', async () => {
    const body = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'sse' }, _meta: envelope({ progressToken: 'p1' }) } };
    const r = await post(`${s.http}/mcp`, body, modernHeaders('tools/call', 'echo_echo'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.headers.get('x-accel-buffering')).toBe('no');
    expect(r.text).toContain('notifications/progress');
    expect(r.json.result.content[0].text).toBe('sse');
  });
});

describe('MCP edge with API keys', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], auth: { apiKeys: [{ key: 'k-0123456789abcdef', subject: 'alice' }] } });
  });
  afterAll(async () => s?.stop());

  it('answers a wrong credential with 401 and WWW-Authenticate, a right one with the tools', async () => {
    const bad = await post(`${s.http}/mcp`, initialize(), { authorization: 'Bearer nope-nope-nope-nope' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const good = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { authorization: 'Bearer k-0123456789abcdef' });
    expect(good.status).toBe(200);
    expect(good.json.result.tools.length).toBe(1);
  });
});
