/**
 * Malformed input on `/mcp`: every case gets a JSON-RPC error in the shape the spec gives it (or
 * the HTTP status the transport defines), nothing leaks internals (no stack traces, no file
 * paths), and the server keeps serving. Complements test/bindings/mcp/admission/edge.test.ts (parse error, body
 * limit, unknown modern method, Accept and version leniency, CORS, Origin/Host), which this does
 * not repeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { envelope, modernHeaders, parseJsonOrSse } from './clients.js';

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const modernList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } };
const modernCall = (extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'x' }, _meta: envelope(), ...extra } });

describe('MCP malformed input', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }], limits: { bodyBytes: 65_536, headerBytes: 16_384 } });
  });
  afterAll(async () => s?.stop());

  async function send(body: string | Uint8Array, headers: Record<string, string> = {}) {
    const res = await fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : Buffer.from(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: parseJsonOrSse(text) };
  }

  /** The error is spec-shaped, reveals nothing internal, and the server still answers. */
  async function expectError(r: { status: number; text: string; json: any }, status: number, code: number) {
    expect(r.status, r.text).toBe(status);
    expect(r.json?.jsonrpc, r.text).toBe('2.0');
    expect(r.json.error.code, r.text).toBe(code);
    expect(typeof r.json.error.message).toBe('string');
    expect(r.text).not.toMatch(/\n\s+at |node_modules|\/src\/|\.ts:\d+/);
    const ok = await send(JSON.stringify(initialize));
    expect(ok.status).toBe(200);
    expect(ok.json.result.serverInfo.name).toBe('agentport');
  }

  describe('bad JSON', () => {
    it.each([
      ['an empty body', ''],
      ['plain text', 'hello'],
      ['a truncated object', '{"jsonrpc":"2.0","id":1,"method":"tools/li'],
      ['a trailing comma', '{"jsonrpc":"2.0","id":1,"method":"tools/list",}'],
    ])('answers %s with 400 -32700', async (_l, body) => expectError(await send(body), 400, -32700));

    it('answers bytes that are not UTF-8 JSON with 400 -32700', async () => {
      await expectError(await send(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 400, -32700);
    });

    it('survives deeply nested JSON (20 000 levels) with a JSON-RPC error', async () => {
      await expectError(await send('['.repeat(20_000) + ']'.repeat(20_000)), 400, -32600);
    });
  });

  describe('bad envelopes', () => {
    it.each([
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"tools/list"'],
      ['no jsonrpc member', JSON.stringify({ id: 1, method: 'tools/list' })],
      ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list' })],
      ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' })],
      ['a numeric method', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 5 })],
      ['array params', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] })],
    ])('answers %s with 400 -32600 (Invalid Request)', async (_l, body) => expectError(await send(body), 400, -32600));

    it('echoes the id of an invalid request when it could read one', async () => {
      const r = await send(JSON.stringify({ jsonrpc: '1.0', id: 77, method: 'tools/list' }));
      expect(r.json.id).toBe(77);
    });
  });

  describe('batch arrays (removed in 2025-06-18; never allowed with 2026-07-28 requests)', () => {
    it('refuses an empty batch with 400 -32600', async () => expectError(await send('[]'), 400, -32600));
    it('refuses a batch of modern requests with 400 -32600', async () => {
      await expectError(await send(JSON.stringify([modernList, { ...modernList, id: 2 }]), modernHeaders('tools/list')), 400, -32600);
    });
    it('refuses a batch that carries initialize with another message with 400 -32600', async () => {
      await expectError(await send(JSON.stringify([initialize, { jsonrpc: '2.0', id: 2, method: 'tools/list' }])), 400, -32600);
    });
  });

  describe('header mismatches (2026-07-28 routing headers)', () => {
    it('refuses an Mcp-Method that names another method with 400 -32020', async () => {
      await expectError(await send(JSON.stringify(modernList), modernHeaders('resources/list')), 400, -32020);
    });
    it('refuses a modern request without Mcp-Method with 400 -32020', async () => {
      await expectError(await send(JSON.stringify(modernList), { 'mcp-protocol-version': '2026-07-28' }), 400, -32020);
    });
    it('refuses an Mcp-Name that names another tool with 400 -32020', async () => {
      await expectError(await send(JSON.stringify(modernCall()), modernHeaders('tools/call', 'other_tool')), 400, -32020);
    });
    it('refuses a tools/call without Mcp-Name with 400 -32020', async () => {
      await expectError(await send(JSON.stringify(modernCall()), modernHeaders('tools/call')), 400, -32020);
    });
    it('refuses an envelope without protocolVersion under a modern header with 400 -32602', async () => {
      const meta = { ...envelope() } as Record<string, unknown>;
      delete meta['io.modelcontextprotocol/protocolVersion'];
      await expectError(await send(JSON.stringify({ ...modernList, params: { _meta: meta } }), modernHeaders('tools/list')), 400, -32602);
    });
  });

  describe('unknown methods and tools', () => {
    it('answers an unknown legacy method with -32601 and the request id', async () => {
      const r = await send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'no/such', params: {} }));
      expect(r.json.id).toBe(5);
      expect(r.json.error.code).toBe(-32601);
    });
    it.each(['initialize', 'ping', 'logging/setLevel'])('answers the removed method %s in the modern era with 404 -32601', async (method) => {
      await expectError(await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope() } }), modernHeaders(method)), 404, -32601);
    });
    it('answers a call to an unknown tool with -32602', async () => {
      const r = await send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }));
      expect(r.json.error.code).toBe(-32602);
    });
    it('answers tool arguments that break the input schema with an isError result naming the problem', async () => {
      const r = await send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 5, extra: true } } }));
      expect(r.json.result.isError).toBe(true);
      expect(r.json.result.content[0].text).toMatch(/message/);
    });
  });

  describe('content types and sizes', () => {
    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])('refuses Content-Type %s with 415', async (ct) => {
      const r = await send(JSON.stringify(initialize), { 'content-type': ct });
      expect(r.status).toBe(415);
      expect(r.json.error.code).toBe(-32000);
      await expectError(await send('x'), 400, -32700);
    });
    it('refuses oversized headers with 431 and keeps serving', async () => {
      const r = await fetch(`${s.http}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-pad': 'x'.repeat(20_000) },
        body: JSON.stringify(initialize),
      });
      expect(r.status).toBe(431);
      await expectError(await send('{'), 400, -32700);
    });
  });

  it('accepts a lone notification or response with 202 and no body', async () => {
    for (const m of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 9, result: {} },
    ]) {
      const r = await send(JSON.stringify(m));
      expect(r.status).toBe(202);
      expect(r.text).toBe('');
    }
  });

  it('keeps serving after a burst of 200 malformed requests in parallel', async () => {
    const bodies = ['', '{', 'null', '[]', '{"jsonrpc":"2.0"}'];
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => send(bodies[i % bodies.length]!)));
    expect(results.every((r) => r.status === 400)).toBe(true);
    await expectError(await send('nope'), 400, -32700);
  });
});
