/**
 * The request id on every kind of answer of the A2A face, which writes it itself (Face.writesRequestId:
 * a JSON-RPC answer's head goes to writeHead in one array), and on MCP's JSON answers, which now
 * carry their length: exactly once, the client's when well formed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userMessage, type TestServer } from '../support/server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
});

afterAll(async () => {
  await s?.stop();
});

const ID = 'req-answers-1';

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.http}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': ID, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('the request id on answers', () => {
  it('is on a JSON-RPC reply once, with the length of the body, and the body is the same as before', async () => {
    const res = await post('/a2a/echo', { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage('hi'), configuration: { blocking: true } } });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(ID);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(JSON.parse(text).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('is on JSON-RPC errors: an unknown method, an unknown agent, a wrong media type, a body that is not JSON', async () => {
    const answers = await Promise.all([
      post('/a2a/echo', { jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} }),
      post('/a2a/nobody', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      post('/a2a/echo', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }, { 'content-type': 'text/plain' }),
      post('/a2a/echo', '{not json'),
    ]);
    for (const res of answers) {
      expect(res.headers.get('x-request-id')).toBe(ID);
      expect(JSON.parse(await res.text()).error.code).toBeTypeOf('number');
    }
  });

  it('is on a JSON-RPC stream (SSE) and on HTTP+JSON answers', async () => {
    const stream = await post('/a2a/echo', { jsonrpc: '2.0', id: 2, method: 'SendStreamingMessage', params: { message: userMessage('hi') } });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(stream.headers.get('x-request-id')).toBe(ID);
    await stream.text();
    const rest = await fetch(`${s.http}/a2a/echo/tasks/no-such-task`, { headers: { 'a2a-version': '1.0', 'x-request-id': ID } });
    expect(rest.status).toBe(404);
    expect(rest.headers.get('x-request-id')).toBe(ID);
  });

  it('is a new id when the client sent none', async () => {
    const res = await post('/a2a/echo', { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'x' } }, { 'x-request-id': 'not a valid id!' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('is on an MCP JSON answer, which carries its length instead of being chunked', async () => {
    // A tool call of the 2026-07-28 era, as bench/lib/workloads.mjs sends it (mcp-modern).
    const res = await post(
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'echo_echo',
          arguments: { message: 'hello' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' } },
        },
      },
      { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' },
    );
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(ID);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(JSON.parse(text).result.resultType).toBe('complete');
  });

  it("is first in an MCP JSON answer's head, before its type and length, as when the edge set it", async () => {
    const { rawHeaders, body } = await rawPost('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hi' } } }), MCP_HEADERS);
    expect(rawHeaders.slice(0, 6)).toEqual(['X-Request-Id', ID, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))]);
    expect(rawHeaders.filter((h) => h.toLowerCase() === 'x-request-id')).toHaveLength(1);
  });

  it("is on the MCP face's other answers: an edge error, a refused agent, CORS, a preflight, a GET, a page", async () => {
    const mcp = { ...MCP_HEADERS, 'x-request-id': ID };
    const answers = await Promise.all([
      post('/mcp', '{not json', MCP_HEADERS),
      post('/a2a/nobody/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, MCP_HEADERS),
      post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...MCP_HEADERS, origin: 'http://localhost' }),
      fetch(`${s.http}/mcp`, { method: 'OPTIONS', headers: { ...mcp, origin: 'http://localhost', 'access-control-request-method': 'POST' } }),
      fetch(`${s.http}/mcp`, { method: 'PUT', headers: mcp }),
      fetch(`${s.http}/a2a/echo/items/no-such-item`, { headers: mcp }),
    ]);
    for (const res of answers) {
      expect(res.headers.get('x-request-id'), `${res.url} ${res.status}`).toBe(ID);
      await res.arrayBuffer();
    }
    expect(answers[2]!.headers.get('access-control-allow-origin')).toBe('http://localhost');
    // A Host the face refuses (DNS rebinding) is answered by its own edge check.
    const refused = await rawPost('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { ...MCP_HEADERS, host: 'evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.rawHeaders.slice(0, 2)).toEqual(['X-Request-Id', ID]);
  });
});

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A POST whose answer's header fields are read in the order they were written. */
function rawPost(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.http}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': ID, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
