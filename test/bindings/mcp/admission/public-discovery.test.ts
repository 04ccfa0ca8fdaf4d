/**
 * `mcp.publicDiscovery` (src/bindings/mcp/admission/public-discovery.ts): initialize and tools/list on /mcp
 * without credentials (an invalid token ignored), from the public surface only; every other call
 * still needs a credential; off by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const KEY = 'k-discovery-0123456789abcdef';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'validator', version: '1' } } };
const toolsList = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
const names = (r: { json: any }) => (r.json.result.tools as Array<{ name: string }>).map((t) => t.name);

const config = (publicDiscovery?: boolean) => ({
  agents: [
    { id: 'echo', builtin: 'echo' },
    { id: 'secret', builtin: 'echo', visibility: 'extended' },
    { id: 'hr', builtin: 'echo', usecase: 'hr' },
  ],
  auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['mcp:tools', 'a2a:discover'] }] },
  ...(publicDiscovery === undefined ? {} : { mcp: { publicDiscovery } }),
});

describe('mcp.publicDiscovery: true', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(config(true));
  });
  afterAll(async () => s?.stop());

  it('answers initialize and tools/list without credentials, listing only the tools every caller sees', async () => {
    const init = await post(`${s.http}/mcp`, initialize, LEGACY);
    expect(init.status).toBe(200);
    expect(init.json.result.serverInfo.name).toBeDefined();
    const list = await post(`${s.http}/mcp`, toolsList, LEGACY);
    expect(list.status).toBe(200);
    expect(names(list)).toEqual(['echo_echo']);
    const modern = await post(`${s.http}/mcp`, { ...toolsList, params: { _meta: envelope() } }, modernHeaders('tools/list'));
    expect(modern.status).toBe(200);
    expect(names(modern)).toEqual(['echo_echo']);
  });

  it('ignores an invalid token on them', async () => {
    const list = await post(`${s.http}/mcp`, toolsList, { ...LEGACY, authorization: 'Bearer not-a-valid-token-at-all' });
    expect(list.status).toBe(200);
    expect(names(list)).toEqual(['echo_echo']);
  });

  it('gives a valid credential its own list', async () => {
    const list = await post(`${s.http}/mcp`, toolsList, { ...LEGACY, authorization: `Bearer ${KEY}` });
    expect(names(list).sort()).toEqual(['echo_echo', 'hr_echo', 'secret_echo']);
  });

  it('still protects everything else: tools/call, resources/list, and a batch', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hi' } } },
      { jsonrpc: '2.0', id: 4, method: 'resources/list', params: {} },
      [toolsList, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hi' } } }],
    ]) {
      const r = await post(`${s.http}/mcp`, body, LEGACY);
      expect(r.status, JSON.stringify(body)).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const invalid = await post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hi' } } },
      { ...LEGACY, authorization: 'Bearer not-a-valid-token-at-all' },
    );
    expect(invalid.status).toBe(401);
  });
});

describe('mcp.publicDiscovery off (the default)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(config());
  });
  afterAll(async () => s?.stop());

  it('challenges initialize and tools/list without credentials (the 401 starts OAuth in MCP clients)', async () => {
    for (const body of [initialize, toolsList]) {
      const r = await post(`${s.http}/mcp`, body, LEGACY);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
    }
  });
});
