/**
 * `/openapi.json` is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator),
 * `/docs` renders it without any outside resource, and every documented operation answers, on a
 * real server, with a status and body the document describes (test/support/openapi-conformance.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';
import { MemoryUsageStore } from '../../support/memory-usage-store.js';
import { OpenApiConformance } from '../../support/openapi-conformance.js';

const SCRIPTED = path.resolve(fileURLToPath(new URL('../../fixtures/agents/scripted-text-agent.mjs', import.meta.url)));
const msg = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

let s: AuthzServer;
let api: OpenApiConformance;
let served: Record<string, any>;

beforeAll(async () => {
  s = await startAuthzServer(
    {
      agents: [
        { id: 'scripted', module: SCRIPTED },
        { id: 'echo', builtin: 'echo' },
        // per-user OAuth (the connections API and connect pages); nothing listens on port 9
        { id: 'upstream-tools', mcp: { url: 'http://127.0.0.1:9/mcp', allowlist: ['127.0.0.1'], auth: { kind: 'oauth' } } },
      ],
      auth: { vault: { keys: [{ id: 'k1', secret: Buffer.alloc(32, 7).toString('base64') }] } },
    },
    { usage: new MemoryUsageStore() },
  );
  served = (await (await fetch(`${s.http}/openapi.json`)).json()) as Record<string, any>;
  api = new OpenApiConformance(served);
}, 60_000);
afterAll(() => s?.stop());

async function call(method: string, p: string, key?: string, body?: unknown, headers: Record<string, string> = {}, redirect: RequestRedirect = 'follow') {
  const res = await fetch(`${s.http}${p}`, {
    method,
    redirect,
    headers: { ...headers, ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await api.check(method, p, res)) as any };
}

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(served.openapi).toBe('3.1.0');
  });

  it('names no A2A or MCP protocol endpoint, and every route outside them', () => {
    const paths = Object.keys(served.paths);
    expect(paths).not.toContain('/mcp');
    expect(paths).not.toContain('/a2a/{agentId}');
    for (const p of ['/api/v1/keys', '/api/v1/users', '/api/v1/clients', '/api/v1/agents', '/api/v1/tasks/{taskId}', '/healthz', '/readyz', '/.well-known/mcp-metadata', '/mcp/tools/list']) {
      expect(paths).toContain(p);
    }
  });

  it('documents every route the Fastify app registers in src/ (a new route without an entry fails here)', () => {
    const src = path.resolve(fileURLToPath(new URL('../../../src', import.meta.url)));
    const shape = (p: string) => p.replace(/\{[^}]+\}|:[A-Za-z_]+/g, '{}');
    const documented = new Set(Object.entries(served.paths as Record<string, object>).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${shape(p)}`)));
    const registered: string[] = [];
    for (const f of readdirSync(src, { recursive: true }) as string[]) {
      if (!f.endsWith('.ts')) continue;
      for (const m of readFileSync(path.join(src, f), 'utf8').matchAll(/\bapp\.(get|post|put|patch|delete)(?:<[^>]*>)?\(\s*'([^']+)'/g)) registered.push(`${m[1]!.toUpperCase()} ${shape(m[2]!)}`);
    }
    expect(registered.length).toBeGreaterThan(20);
    expect(registered.filter((r) => !documented.has(r))).toEqual([]);
  });

  it('/docs is the reference page, with no script and no outside resource', async () => {
    const res = await fetch(`${s.http}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!localhost)[a-z]/i);
    for (const p of Object.keys(served.paths)) expect(html).toContain(`<code>${p.replaceAll('&', '&#38;')}</code>`);
  });
});

describe('the conformance check itself', () => {
  it('refuses an undocumented status, an undocumented path and a body that does not match', async () => {
    const check = new OpenApiConformance();
    const res = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    await expect(check.check('GET', '/api/v1/tasks/x/status', res(200, { id: 'x', status: { state: 'done' } }))).rejects.toThrow(/does not match/);
    await expect(check.check('GET', '/api/v1/tasks/x/status', res(418, {}))).rejects.toThrow(/not documented/);
    await expect(check.check('GET', '/nowhere', res(200, {}))).rejects.toThrow(/no documented path/);
    await expect(check.check('GET', '/api/v1/tasks/x/status', res(200, { id: 'x', status: { state: 'completed' } }))).resolves.toBeDefined();
  });
});

describe('every documented operation answers as documented', () => {
  it('discovery, health, documentation', async () => {
    for (const p of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/a2a/echo/.well-known/agent-card.json', '/a2a/echo/.well-known/agent.json', '/api/v1/agents/echo/card']) {
      expect((await call('GET', p)).status).toBe(200);
    }
    expect((await call('GET', '/api/v1/agents/nope/card')).status).toBe(404);
    expect((await call('GET', '/api/v1/agents')).status).toBe(200);
    expect((await call('GET', '/api/v1/agents?view=cards')).status).toBe(200);
    expect((await call('GET', '/.well-known/jwks.json')).status).toBe(200);
    expect((await call('GET', '/healthz')).status).toBe(200);
    expect((await call('GET', '/readyz')).status).toBe(200);
    expect((await call('GET', '/openapi.json')).status).toBe(200);
    expect((await call('GET', '/docs')).status).toBe(200);
    expect((await call('GET', '/')).status).toBe(200);
    expect((await call('GET', '/', undefined, undefined, { accept: 'text/html' })).status).toBe(200);
    expect((await call('GET', '/mcp/config/')).status).toBe(200);
    const moved = await fetch(`${s.http}/console`, { redirect: 'manual' });
    expect(moved.status).toBe(308);
    await api.check('GET', '/console', moved);
    expect((await call('GET', '/console/assets/none.js')).status).toBe(404);
    expect((await call('GET', '/console/session')).status).toBe(200);
    expect((await call('POST', '/console/session', undefined, { accessToken: 'not.a.token' })).status).toBe(401);
    expect((await call('POST', '/console/session/end')).status).toBe(401);
  });

  it('the management API, with and without admin', async () => {
    const admin = s.adminKey;
    const created = await call('POST', '/api/v1/keys', admin, { subject: 'carol', scopes: ['a2a:discover'] });
    expect(created.status).toBe(201);
    expect((await call('GET', '/api/v1/keys', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/settings', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/settings', created.body.key)).status).toBe(403);
    expect((await call('GET', '/api/v1/keys')).status).toBe(401);
    // A non-admin's list: its own keys only.
    const own = await call('GET', '/api/v1/keys', created.body.key);
    expect(own.status).toBe(200);
    expect(own.body.keys.map((x: { subject: string }) => x.subject)).toEqual(['carol']);
    // A key cannot mint keys, not even its own subject's; another subject's key is not found.
    expect((await call('POST', '/api/v1/keys', created.body.key, { scopes: ['a2a:discover'] })).status).toBe(403);
    expect((await call('DELETE', `/api/v1/keys/${s.adminKey.split('_')[1]}`, created.body.key)).status).toBe(404);
    expect((await call('POST', '/api/v1/keys', admin, { subject: '' })).status).toBe(400);
    expect((await call('GET', '/api/v1/audit?limit=2', admin)).status).toBe(200);
    expect((await call('GET', '/metrics', admin)).status).toBe(200);
    expect((await call('GET', '/metrics')).status).toBe(401);
    expect((await call('GET', '/metrics', created.body.key)).status).toBe(403);
    expect((await call('GET', '/api/v1/audit?outcome=maybe', admin)).status).toBe(400);
    expect((await call('GET', '/api/v1/audit')).status).toBe(401);
    expect((await call('GET', '/api/v1/audit/verify', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/audit/verify')).status).toBe(401);
    expect((await call('GET', '/api/v1/audit', created.body.key)).status).toBe(403);
    expect((await call('DELETE', `/api/v1/keys/${created.body.id}`, admin)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/keys/0000000000000000', admin)).status).toBe(404);

    expect((await call('POST', '/api/v1/users', admin, { username: 'dave' })).status).toBe(201);
    expect((await call('POST', '/api/v1/users', admin, { nope: 1 })).status).toBe(400);
    expect((await call('GET', '/api/v1/users', admin)).status).toBe(200);
    expect((await call('PATCH', '/api/v1/users/dave', admin, { scopes: ['a2a:discover'] })).status).toBe(200);
    expect((await call('PATCH', '/api/v1/users/dave', admin, {})).status).toBe(400);
    expect((await call('PATCH', '/api/v1/users/nobody', admin, { scopes: [] })).status).toBe(404);
    expect((await call('GET', '/api/v1/users/dave/grants', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/users/nobody/grants', admin)).status).toBe(404);
    expect((await call('DELETE', '/api/v1/users/dave/grants/no-such-grant', admin)).status).toBe(404);
    expect((await call('DELETE', '/api/v1/users/dave', admin)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/users/dave', admin)).status).toBe(404);

    expect((await call('PUT', '/api/v1/quotas/q1', admin, { requests: { limit: 5, window: 60_000 } })).status).toBe(201);
    expect((await call('PUT', '/api/v1/quotas/q1', admin, { requests: { limit: 6, window: 60_000 } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/quotas/q1', admin, { nope: 1 })).status).toBe(400);
    expect((await call('GET', '/api/v1/quotas', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/quotas')).status).toBe(401);
    expect((await call('GET', '/api/v1/quotas/q1', admin)).status).toBe(200);
    expect((await call('GET', '/api/v1/quotas/none', admin)).status).toBe(404);
    expect((await call('DELETE', '/api/v1/quotas/q1', admin)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/quotas/q1', admin)).status).toBe(404);

    const client = await call('POST', '/api/v1/clients', admin, { name: 'cli', kind: 'public', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['a2a:discover'] });
    expect(client.status).toBe(201);
    expect((await call('POST', '/api/v1/clients', admin, { kind: 'other' })).status).toBe(400);
    expect((await call('GET', '/api/v1/clients', admin)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/clients/${client.body.client.clientId}`, admin)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/clients/nope', admin)).status).toBe(404);
    expect((await call('GET', '/mcp/oauth/clients', admin)).status).toBe(200);
    expect((await call('GET', '/mcp/oauth/clients')).status).toBe(401);
    const another = await call('POST', '/api/v1/clients', admin, { name: 'cli2', kind: 'public', redirectUris: ['http://127.0.0.1:9/cb'] });
    expect((await call('DELETE', `/mcp/oauth/clients/${another.body.client.clientId}`, admin)).status).toBe(204);
    expect((await call('DELETE', '/mcp/oauth/clients/nope', admin)).status).toBe(404);
  });

  it('the REST task API and the admin task read', async () => {
    const alice = await s.key('alice', ['a2a:discover', 'a2a:publish']);
    const writer = await s.key('alice', ['a2a:publish']);
    const t = await call('POST', '/api/v1/agents/scripted/tasks', alice, { message: msg('ask') });
    expect(t.status).toBe(200);
    expect((await call('POST', '/api/v1/agents/scripted/tasks', alice, {})).status).toBe(400);
    expect((await call('POST', '/api/v1/agents/nope/tasks', alice, { message: msg('x') })).status).toBe(404);
    expect((await call('POST', '/api/v1/agents/scripted/tasks', undefined, { message: msg('x') })).status).toBe(401);
    expect((await call('POST', '/a2a/agents/scripted/tasks', alice, { message: msg('x') })).status).toBe(200);
    expect(
      (
        await call(
          'POST',
          '/a2a/agents/scripted/tasks',
          writer.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
          { message: msg('x') },
        )
      ).status,
    ).toBe(401);
    expect((await call('GET', `/api/v1/tasks/${t.body.id}`, alice)).status).toBe(200);
    expect((await call('GET', `/api/v1/tasks/${t.body.id}`, writer)).status).toBe(403);
    expect((await call('GET', `/a2a/tasks/${t.body.id}`, alice)).status).toBe(200);
    expect((await call('GET', `/a2a/tasks/${t.body.id}`)).status).toBe(401);
    expect((await call('GET', `/api/v1/tasks/${t.body.id}/status`, alice)).status).toBe(200);
    expect((await call('GET', '/api/v1/tasks/unknown/status', alice)).status).toBe(404);
    expect((await call('POST', `/api/v1/tasks/${t.body.id}/messages`, alice, { message: msg('fine') })).status).toBe(200);
    expect((await call('POST', `/api/v1/tasks/${t.body.id}/messages`, alice, { message: msg('again') })).status).toBe(400);
    expect((await call('GET', '/a2a/agents', alice)).status).toBe(200);
    expect((await call('GET', '/a2a/agents', writer)).status).toBe(403);
    expect((await call('GET', `/api/v1/agents/scripted/tasks/${t.body.id}`, s.adminKey)).status).toBe(200);
    expect((await call('GET', '/api/v1/agents/scripted/tasks/nope', s.adminKey)).status).toBe(404);
    expect((await call('GET', `/api/v1/agents/scripted/tasks/${t.body.id}/events`, alice)).status).toBe(200);
    expect((await call('GET', `/api/v1/agents/scripted/tasks/${t.body.id}/events`, s.adminKey)).status).toBe(200);
    expect((await call('GET', '/api/v1/agents/scripted/tasks/nope/events', alice)).status).toBe(404);
    expect((await call('GET', `/api/v1/agents/scripted/tasks/${t.body.id}/events`)).status).toBe(401);
    const listed = await call('GET', '/api/v1/tasks?agent=scripted&pageSize=1', s.adminKey);
    expect(listed.status).toBe(200);
    expect(listed.body.tasks).toHaveLength(1);
    expect((await call('GET', '/api/v1/tasks', alice)).status).toBe(200);
    expect((await call('GET', '/api/v1/tasks?owner=bob', alice)).status).toBe(403);
    expect((await call('GET', '/api/v1/tasks?state=done', s.adminKey)).status).toBe(400);
    expect((await call('GET', '/api/v1/tasks')).status).toBe(401);
  });

  it('the usage API', async () => {
    const reader = await s.key('alice', ['usage:read']);
    expect((await call('GET', '/api/v1/usage?by=agent', s.adminKey)).status).toBe(200);
    expect((await call('GET', '/api/v1/usage?by=agent', reader)).status).toBe(200);
    expect((await call('GET', '/api/v1/usage?by=nope', s.adminKey)).status).toBe(400);
    expect((await call('GET', '/api/v1/usage')).status).toBe(401);
    expect((await call('GET', '/api/v1/usage?subject=bob', reader)).status).toBe(403);
  });

  it('the MCP compatibility routes', async () => {
    const tools = await s.key('alice', ['mcp:tools']);
    expect((await call('GET', '/mcp/tools/list')).status).toBe(200);
    expect((await call('POST', '/mcp/tools/list', undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
    expect((await call('POST', '/mcp/initialize', tools, {})).status).toBe(200);
    expect((await call('POST', '/mcp/initialize', undefined, {})).status).toBe(401);
    expect((await call('GET', '/mcp/resources/list', tools)).status).toBe(200);
    expect((await call('GET', '/mcp/resources/list')).status).toBe(401);
    const list = await call('GET', '/mcp/tools/list');
    const name = (list.body.tools as Array<{ name: string }>)[0]!.name;
    expect((await call('POST', '/mcp/tools/call', tools, { name, arguments: { message: 'hi' } })).status).toBe(200);
    expect((await call('POST', '/mcp/tools/call', undefined, { name, arguments: { message: 'hi' } })).status).toBe(401);
    expect((await call('GET', '/mcp/health')).status).toBe(200);
    expect((await call('GET', '/mcp/validate')).status).toBe(200);
    expect((await call('GET', '/.well-known/mcp-metadata')).status).toBe(200);
  });

  it('the connections API and the connect pages', async () => {
    const dora = await s.key('dora', ['a2a:publish']);
    const list = await call('GET', '/api/v1/connections', dora);
    expect(list.status).toBe(200);
    expect(list.body.connections).toEqual([expect.objectContaining({ remote: 'upstream-tools', status: 'not-connected' })]);
    expect((await call('GET', '/api/v1/connections')).status).toBe(401);
    expect((await call('DELETE', '/api/v1/connections/upstream-tools', dora)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/connections/nope', dora)).status).toBe(404);
    const connect = new URL(list.body.connections[0].connectUrl);
    // No console session in this browser: sent to sign in at the console first (issue 27).
    expect((await call('GET', `${connect.pathname}${connect.search}`, undefined, undefined, {}, 'manual')).status).toBe(303);
    expect((await call('GET', '/connect/start?ticket=v1.k1.AAAA.BBBB')).status).toBe(400);
    expect((await call('GET', '/connect/callback?code=x&state=forged')).status).toBe(400);
  });

  it('every documented operation was exercised above', () => {
    const exercised = new Set([...api.seen].map((k) => k.split(' ').slice(0, 2).join(' ')));
    expect(api.operations().filter((op) => !exercised.has(op))).toEqual([]);
  });
});
