import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { envelope, legacyClient, modernClient, modernHeaders, post, v2LegacyClient } from './clients.js';

describe('MCP endpoint: both eras on /mcp', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => s?.stop());

  it('answers server/discover as plain JSON with 2026-07-28 and cache hints', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }, modernHeaders('server/discover'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json.result.supportedVersions).toContain('2026-07-28');
    expect(r.json.result.capabilities.tools).toBeDefined();
    expect(r.json.result.ttlMs).toBeGreaterThanOrEqual(0);
    expect(r.json.result.cacheScope).toBe('private');
  });

  it('negotiates the modern era with the v2 client in auto mode', async () => {
    const c = await modernClient(`${s.http}/mcp`);
    expect(c.getProtocolEra()).toBe('modern');
    expect(c.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(c.getServerVersion()?.name).toBe('agentport');
    await c.close();
  });

  it('initializes a legacy session with the v1 SDK client (2025-11-25)', async () => {
    const c = await legacyClient(`${s.http}/mcp`);
    expect(c.getServerVersion()?.name).toBe('agentport');
    expect(c.getServerCapabilities()?.tools).toBeDefined();
    await c.close();
  });

  it('initializes with the v2 client in legacy mode', async () => {
    const c = await v2LegacyClient(`${s.http}/mcp`);
    expect(c.getProtocolEra()).toBe('legacy');
    await c.close();
  });

  it('accepts initialize for each legacy revision', async () => {
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      expect(r.status, v).toBe(200);
      expect(r.json.result.protocolVersion, v).toBe(v);
    }
  });
});
