/**
 * `auth.oauth.enabled: false`: no authorization server (oidc-provider is never loaded); the RFC
 * 9728 documents stay, naming only external issuers, because every 401 points at them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { mcpToolsList } from './support.js';

describe('OAuth turned off', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      auth: { mode: 'required', oauth: { enabled: false }, apiKeys: [{ key: 'tools-key-0123456789abcdef', subject: 'bot', scopes: ['mcp:tools'] }] },
      agents: [{ id: 'echo', builtin: 'echo' }],
    });
  });
  afterAll(async () => s?.stop());

  it('serves neither discovery nor the OAuth endpoints', async () => {
    for (const p of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/oauth/token', '/mcp/oauth/register', '/mcp/config/', '/api/v1/users']) {
      const res = await fetch(`${s.http}${p}`, { method: p.endsWith('token') || p.endsWith('register') ? 'POST' : 'GET' });
      expect(res.status, p).toBe(404);
    }
  });

  it('still accepts API keys on /mcp', async () => {
    expect((await mcpToolsList(s, 'tools-key-0123456789abcdef')).status).toBe(200);
  });

  it('points 401 challenges at metadata it serves, which names no authorization server of its own', async () => {
    const res = await fetch(`${s.http}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    const url = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    const doc = await fetch(url!);
    expect(doc.status).toBe(200);
    expect(await doc.json()).toMatchObject({ resource: `${s.http}/mcp`, authorization_servers: [] });
  });
});
