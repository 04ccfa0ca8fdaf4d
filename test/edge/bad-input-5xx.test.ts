/**
 * Issue 19 D9: inputs that used to be answered 500. A JSON body nested thousands deep to a compat
 * route, and TRACE on the MCP endpoints, are the client's mistake: 400 in JSON-RPC shape, and 405
 * with `Allow`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startTestServer, type TestServer } from '../support/server.js';

/** fetch() refuses TRACE, so a raw request. */
function request(base: string, method: string, path: string, body?: string, extra: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? extra : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
    const req = http.request({ method, hostname: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('bad input that was answered 500 (issue 19 D9)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  for (const depth of [5_000, 100_000]) {
    it(`POST /mcp/initialize with a body nested ${depth} deep is 400 with a JSON-RPC error`, async () => {
      const body = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
      const r = await request(server.http, 'POST', '/mcp/initialize', body);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(r.text).not.toMatch(/RangeError|stack/i);
    });
  }

  it('a bare-params body nested deep to POST /mcp/tools/call is 400 too', async () => {
    const r = await request(server.http, 'POST', '/mcp/tools/call', `{"name":"echo","arguments":{"a":${'{"a":'.repeat(6_000)}1${'}'.repeat(6_000)}}}`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  for (const path of ['/mcp', '/a2a/echo/mcp']) {
    it(`POST ${path} tools/call with a value nested 3,000 deep (found by the fuzz suite) is 400 with a JSON-RPC error`, async () => {
      const tasks = { 'io.modelcontextprotocol/tasks': { x: '@' } };
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { extensions: tasks } };
      const deep = `${'{"a":['.repeat(3_000)}1${']}'.repeat(3_000)}`;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hi' }, task: { ttl: 60_000 }, _meta: meta } }).replace('"@"', deep);
      const r = await request(server.http, 'POST', path, body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it(`TRACE ${path} is 405 with Allow, in JSON-RPC shape`, async () => {
      const r = await request(server.http, 'TRACE', path);
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, POST, DELETE, OPTIONS');
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });
  }
});
