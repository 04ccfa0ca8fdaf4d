/**
 * The routes beside the A2A operations, under the same engine: MCP (endpoint, tools/list,
 * tools/call), public discovery, the registry and hidden agents' cards, the management API
 * (/api/v1/keys: a non-admin's own keys only) — each × {no credential, wrong scope, right scope} — plus auth.mode none's
 * start-up guard and the first start's admin key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernClient, post } from '../../bindings/mcp/clients.js';
import { rpc, startTestServer, userMessage } from '../../support/server.js';
import { challengeParams, startAuthzServer, type AuthzServer } from './support.js';

let s: AuthzServer;
const k: Record<string, string> = {};

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'secret-agent', builtin: 'echo', visibility: 'extended' },
    ],
  });
  k.a2a = await s.key('alice', ['a2a:discover', 'a2a:publish']);
  k.publishOnly = await s.key('alice', ['a2a:publish']);
  k.mcp = await s.key('alice', ['mcp:tools']);
}, 30_000);

afterAll(async () => s?.stop());

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('MCP endpoint', () => {
  it.each([
    ['/mcp', '/mcp'],
    ['/a2a/echo/mcp', '/a2a/echo/mcp'],
  ])('%s without a credential: 401 with a challenge naming its protected-resource metadata', async (p, resource) => {
    const r = await post(`${s.http}${p}`, initialize);
    expect(r.status).toBe(401);
    const c = challengeParams(r.headers.get('www-authenticate'));
    expect(c.resource_metadata).toBe(`${s.http}/.well-known/oauth-protected-resource${resource}`);
    expect(c.scope).toBe('mcp:tools');
    expect(c.error).toBeUndefined();
    expect(r.text).not.toContain('serverInfo');
  });

  it('a refused credential: 401 invalid_token with the same challenge', async () => {
    const r = await post(`${s.http}/mcp`, initialize, { 'x-api-key': 'ap_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(r.status).toBe(401);
    const c = challengeParams(r.headers.get('www-authenticate'));
    expect(c.error).toBe('invalid_token');
    expect(c.resource_metadata).toBe(`${s.http}/.well-known/oauth-protected-resource/mcp`);
  });

  it('a credential without an MCP scope: 403 insufficient_scope', async () => {
    const r = await post(`${s.http}/mcp`, initialize, { 'x-api-key': k.a2a! });
    expect(r.status).toBe(403);
    const c = challengeParams(r.headers.get('www-authenticate'));
    expect(c.error).toBe('insufficient_scope');
    expect(c.scope).toBe('mcp:tools');
    expect(r.text).not.toContain('serverInfo');
  });

  it('mcp:tools: tools/list and tools/call work (A2A scopes are not needed on MCP)', async () => {
    const c = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': k.mcp! } });
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['echo_echo', 'secret-agent_echo']));
      const r = (await c.callTool({ name: 'echo_echo', arguments: { message: 'over mcp' } })) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(r.isError ?? false).toBe(false);
      expect(JSON.stringify(r.content)).toContain('over mcp');
    } finally {
      await c.close();
    }
  });
});

describe('public discovery stays anonymous', () => {
  it.each(['/.well-known/agent-card.json', '/a2a/echo/.well-known/agent-card.json', '/.well-known/agent.json', '/.well-known/jwks.json', '/healthz', '/readyz'])('%s is 200 without a credential', async (p) => {
    expect((await fetch(`${s.http}${p}`)).status).toBe(200);
  });
});

describe('registry and hidden (visibility: extended) agents', () => {
  const ids = async (h: Record<string, string>) => ((await (await fetch(`${s.http}/api/v1/agents`, { headers: h })).json()) as { agents: Array<{ id: string }> }).agents.map((a) => a.id);

  it('an anonymous caller or one without a2a:discover does not see the hidden agent; a2a:discover does', async () => {
    expect(await ids({})).toEqual(['echo']);
    expect(await ids({ 'x-api-key': k.publishOnly! })).toEqual(['echo']);
    expect((await ids({ 'x-api-key': k.a2a! })).sort()).toEqual(['echo', 'secret-agent']);
  });

  it('its card is exactly an unknown agent’s 404 unless the caller holds a2a:discover', async () => {
    const hidden = await fetch(`${s.http}/a2a/secret-agent/.well-known/agent-card.json`);
    const unknown = await fetch(`${s.http}/a2a/nobody/.well-known/agent-card.json`);
    expect(hidden.status).toBe(404);
    expect((await hidden.text()).replaceAll('secret-agent', 'X')).toBe((await unknown.text()).replaceAll('nobody', 'X'));
    const seen = await fetch(`${s.http}/a2a/secret-agent/.well-known/agent-card.json`, { headers: { 'x-api-key': k.a2a! } });
    expect(seen.status).toBe(200);
    expect(seen.headers.get('cache-control')).toContain('private');
  });

  it('an A2A call to it answers like an unknown agent, for anonymous and for callers without a2a:discover', async () => {
    for (const h of [{}, { 'x-api-key': k.publishOnly! }] as Array<Record<string, string>>) {
      const hidden = await rpc(`${s.http}/a2a/secret-agent`, 'SendMessage', { message: userMessage('hi') }, h);
      const unknown = await rpc(`${s.http}/a2a/nobody`, 'SendMessage', { message: userMessage('hi') }, h);
      expect(hidden.status).toBe(unknown.status);
      expect(JSON.stringify(hidden.body).replaceAll('secret-agent', 'X')).toBe(JSON.stringify(unknown.body).replaceAll('nobody', 'X'));
    }
    const ok = await rpc(`${s.http}/a2a/secret-agent`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': k.a2a! });
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('on the shared endpoint, its tenant answers like an unknown tenant', async () => {
    const h = { 'x-api-key': k.publishOnly! };
    const hidden = await rpc(`${s.http}/a2a`, 'SendMessage', { tenant: 'secret-agent', message: userMessage('hi') }, h);
    const unknown = await rpc(`${s.http}/a2a`, 'SendMessage', { tenant: 'nobody', message: userMessage('hi') }, h);
    expect(hidden.body.error.code).toBe(-32602);
    expect(JSON.stringify(hidden.body).replaceAll('secret-agent', 'X')).toBe(JSON.stringify(unknown.body).replaceAll('nobody', 'X'));
    const seen = await rpc(`${s.http}/a2a`, 'SendMessage', { tenant: 'secret-agent', message: userMessage('hi') }, { 'x-api-key': k.a2a! });
    expect(seen.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('management API: /api/v1/keys', () => {
  const call = (method: string, p: string, h: Record<string, string>, body?: unknown) =>
    fetch(`${s.http}${p}`, { method, headers: { ...h, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });

  it.each([
    ['GET', '/api/v1/keys', undefined],
    ['POST', '/api/v1/keys', { subject: 'x', scopes: ['a2a:discover'] }],
    ['DELETE', '/api/v1/keys/0123456789abcdef', undefined],
  ])('%s %s: 401 without a credential (scope admin named)', async (method, p, body) => {
    const none = await call(method, p, {}, body);
    expect(none.status).toBe(401);
    expect(challengeParams(none.headers.get('www-authenticate'))).toMatchObject({ scope: 'admin', resource_metadata: `${s.http}/.well-known/oauth-protected-resource/api/v1` });
    expect(((await none.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
  });

  it("a non-admin credential sees only its subject's keys, and gets 403 (scope admin named) for another subject's", async () => {
    const other = await s.key('bob', ['a2a:discover']);
    const listed = (await (await call('GET', '/api/v1/keys', { 'x-api-key': k.a2a! })).json()) as { keys: Array<{ subject: string }> };
    expect(listed.keys.length).toBeGreaterThanOrEqual(3);
    expect(new Set(listed.keys.map((x) => x.subject))).toEqual(new Set(['alice']));
    const wrong = await call('POST', '/api/v1/keys', { 'x-api-key': k.a2a! }, { subject: 'x', scopes: ['a2a:discover'] });
    expect(wrong.status).toBe(403);
    expect(challengeParams(wrong.headers.get('www-authenticate'))).toMatchObject({ scope: 'admin', error: 'insufficient_scope' });
    const text = await wrong.text();
    expect(text).toContain('PERMISSION_DENIED');
    expect(text).not.toContain('"keys"');
    // bob's key, revoked by alice's: answered as a key that does not exist, and still working.
    const bobsId = other.split('_')[1]!;
    const revoke = await call('DELETE', `/api/v1/keys/${bobsId}`, { 'x-api-key': k.a2a! });
    const unknown = await call('DELETE', '/api/v1/keys/0123456789abcdef', { 'x-api-key': k.a2a! });
    expect(revoke.status).toBe(404);
    expect((await revoke.text()).replace(bobsId, 'X')).toBe((await unknown.text()).replace('0123456789abcdef', 'X'));
    expect((await call('GET', '/api/v1/keys', { 'x-api-key': other })).status).toBe(200);
  });

  it('admin creates (key shown once), lists (never secrets) and revokes (the key stops working)', async () => {
    const admin = { 'x-api-key': s.adminKey };
    const created = await call('POST', '/api/v1/keys', admin, { subject: 'ci-bot', scopes: ['a2a:publish'], usecase: 'ops', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(created.status).toBe(201);
    const c = (await created.json()) as { id: string; key: string; subject: string; scopes: string[]; usecase: string; status: string };
    expect(c).toMatchObject({ subject: 'ci-bot', scopes: ['a2a:publish'], usecase: 'ops', status: 'active' });
    expect(c.key.startsWith(`ap_${c.id}_`)).toBe(true);
    const secret = secretPartOf(c.key);
    const listText = await (await call('GET', '/api/v1/keys', admin)).text();
    expect(listText).toContain(c.id);
    expect(listText).not.toContain(secret);
    expect(listText).not.toContain('"key"');
    expect(listText).not.toContain(secretPartOf(s.adminKey));
    const works = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': c.key });
    expect(works.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await call('DELETE', `/api/v1/keys/${c.id}`, admin)).status).toBe(204);
    const refused = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hi') }, { 'x-api-key': c.key });
    expect(refused.status).toBe(401);
    const listed = (await (await call('GET', '/api/v1/keys', admin)).json()) as { keys: Array<{ id: string; status: string }> };
    expect(listed.keys.find((x) => x.id === c.id)!.status).toBe('revoked');
  });

  it('bad input is a 400 naming the field; an unknown id is a 404; neither leaks internals', async () => {
    const admin = { 'x-api-key': s.adminKey };
    const bad = await call('POST', '/api/v1/keys', admin, { subject: 'x', scopes: ['has space'] });
    expect(bad.status).toBe(400);
    const badText = await bad.text();
    expect(badText).toContain('scopes.0');
    expect(badText).not.toMatch(/\bat \w+ \(|node_modules/);
    const past = await call('POST', '/api/v1/keys', admin, { subject: 'x', expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    const notJson = await fetch(`${s.http}/api/v1/keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    expect((await call('DELETE', '/api/v1/keys/ffffffffffffffff', admin)).status).toBe(404);
  });
});

describe('start-up', () => {
  it('the first start creates the admin key once; the next start on the same data creates none', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'authz-first-'));
    try {
      const first = await startTestServer({ auth: { mode: 'required' } }, { dataDir, keepData: true });
      const key = first.firstAdminKey;
      const user = first.firstAdminUser;
      await first.stop();
      expect(key).toMatch(/^ap_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(user).toMatchObject({ username: 'admin', loginUrl: `${first.http}/oauth/authorize` });
      expect(user!.password.length).toBeGreaterThanOrEqual(16);
      const second = await startTestServer({ auth: { mode: 'required' } }, { dataDir, keepData: true });
      try {
        expect(second.firstAdminKey).toBeUndefined();
        expect(second.firstAdminUser).toBeUndefined();
        expect((await fetch(`${second.http}/api/v1/keys`, { headers: { 'x-api-key': key! } })).status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('mode none refuses a non-loopback host unless allowInsecureNone', async () => {
    await expect(startTestServer({ server: { host: '0.0.0.0' }, auth: { mode: 'none' } })).rejects.toThrow(/not loopback/);
    const forced = await startTestServer({ server: { host: '0.0.0.0' }, auth: { mode: 'none', allowInsecureNone: true } });
    await forced.stop();
  });
});

/** The secret of an `ap_<id>_<secret>` key. The secret is base64url and may itself contain `_`,
 * so splitting on `_` and taking the last piece can yield a two-letter fragment found anywhere. */
function secretPartOf(key: string): string {
  const secret = /^ap_[0-9a-f]{16}_(.+)$/.exec(key)?.[1];
  if (secret === undefined || secret.length < 40) throw new Error(`not an API key: ${key.slice(0, 8)}…`);
  return secret;
}
