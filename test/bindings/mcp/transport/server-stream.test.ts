/**
 * The 2025-era standalone server stream (src/bindings/mcp/transport/server-stream.ts): GET /mcp with
 * `Accept: text/event-stream` opens an SSE stream that carries list-change notifications; it is
 * authorized like every other MCP request.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { post } from '../clients.js';

const KEY = 'k-stream-0123456789abcdef';
/** The MCP conformance fixtures, for their tool that announces a list change. */
const FIXTURE_MODULE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../support/mcp-conformance/fixture-module.ts');

/** Reads SSE text from a response until `until` matches or the time runs out. */
async function readUntil(res: Response, until: RegExp, ms = 5000): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  while (!until.test(text) && Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), new Promise<{ done: true; value?: undefined }>((r) => setTimeout(() => r({ done: true }), deadline - Date.now()))]);
    if (chunk.done) break;
    text += decoder.decode(chunk.value);
  }
  return text;
}

describe('GET /mcp server stream (2025 era)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ auth: { mode: 'none' }, mcp: { fixtureModule: FIXTURE_MODULE }, agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => s?.stop());

  it('opens an SSE stream that carries notifications/tools/list_changed', async () => {
    const ac = new AbortController();
    const res = await fetch(`${s.http}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    // a fixture tool that announces a tools list change on the shared bus
    const call = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_trigger_tool_change', arguments: {} } }, { 'mcp-protocol-version': '2025-11-25' });
    expect(call.status).toBe(200);
    const text = await readUntil(res, /list_changed/);
    ac.abort();
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(data).toContainEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
});

describe('GET /mcp server stream with authentication', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['mcp:tools'] }] }, agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => s?.stop());

  it('is refused without a credential (401 with the challenge) and opened with one', async () => {
    const anon = await fetch(`${s.http}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const ac = new AbortController();
    const ok = await fetch(`${s.http}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${KEY}` }, signal: ac.signal });
    expect(ok.status).toBe(200);
    ac.abort();
  });
});
