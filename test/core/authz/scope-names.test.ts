/**
 * Issue 25, SC1: unknown scopes are refused everywhere a scope is given, naming the known ones and
 * the closest: `agentport keys create`, `POST /api/v1/keys`, users (`POST`/`PATCH /api/v1/users`,
 * `agentport users set-scopes`) and clients (`POST /api/v1/clients`). Nothing is created. The
 * console's API-key form pre-filled `a2a:invoke`, which does not exist (console/src/pages/keys.tsx).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/program.js';
import { isKnownScope, unknownScopeMessage } from '../../../src/core/authz/scope-names.js';
import { startOAuthServer } from '../../auth/oauth/support.js';
import { fakeIO } from '../../cli/fake-io.js';
import type { TestServer } from '../../support/server.js';

const KNOWN = 'a2a:discover a2a:publish mcp:tools usage:read admin mcp:tools:<usecase>';

describe('unknownScopeMessage', () => {
  it('knows the built-in scopes, usecase scopes and what the caller adds; names the first unknown one with a suggestion', () => {
    expect(unknownScopeMessage(['a2a:discover', 'mcp:tools:sales', 'mcp:tools:*', 'admin'])).toBeUndefined();
    expect(isKnownScope('reports:read')).toBe(false);
    expect(isKnownScope('reports:read', ['reports:read'])).toBe(true);
    expect(unknownScopeMessage(['a2a:discover', 'a2a:publsh'])).toBe(`unknown scope "a2a:publsh" (did you mean a2a:publish?); the known scopes are ${KNOWN}`);
    // Nothing close: no suggestion, but the list.
    expect(unknownScopeMessage(['a2a:invoke'])).toBe(`unknown scope "a2a:invoke"; the known scopes are ${KNOWN}`);
    expect(unknownScopeMessage(['mcp:tools:Bad Name'])).toContain('unknown scope "mcp:tools:Bad Name"');
  });
});

describe('unknown scopes refused on every surface', () => {
  let s: TestServer;
  const admin = () => ({ 'x-api-key': s.firstAdminKey!, 'content-type': 'application/json' });
  const post = async (p: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${s.http}${p}`, { method, headers: admin(), body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    s = await startOAuthServer();
  }, 60_000);
  afterAll(async () => s?.stop());

  it('POST /api/v1/keys: 400 naming the scope and the known ones, no key made', async () => {
    const before = ((await (await fetch(`${s.http}/api/v1/keys`, { headers: admin() })).json()) as { keys: unknown[] }).keys.length;
    const r = await post('/api/v1/keys', { subject: 'ci-bot', scopes: ['a2a:invoke', 'mcp:tools'] });
    expect(r.status).toBe(400);
    expect(r.text).toContain('unknown scope \\"a2a:invoke\\"');
    expect(r.text).toContain('a2a:publish');
    expect(((await (await fetch(`${s.http}/api/v1/keys`, { headers: admin() })).json()) as { keys: unknown[] }).keys.length).toBe(before);
  });

  it('users and clients: 400 naming the scope with the suggestion', async () => {
    const created = await post('/api/v1/users', { username: 'sc1-user', password: 'a long enough password 1', scopes: ['a2a:dicover'] });
    expect(created.status).toBe(400);
    expect(created.text).toContain('did you mean a2a:discover?');
    const patched = await post('/api/v1/users/alice', { scopes: ['a2a:invoke'] }, 'PATCH');
    expect(patched.status).toBe(400);
    expect(patched.text).toContain('unknown scope');
    const client = await post('/api/v1/clients', { name: 'sc1 machine', kind: 'machine', scopes: ['a2a:invoke'] });
    expect(client.status).toBe(400);
    expect(client.text).toContain('unknown scope');
    // openid and offline_access are a client's too.
    expect((await post('/api/v1/clients', { name: 'sc1 app', kind: 'public', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['openid', 'offline_access', 'a2a:discover'] })).status).toBe(201);
  });

  it('agentport keys create and users set-scopes: exit 2 naming the scope, nothing stored', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentport-sc1-'));
    const storage = `sqlite:${path.join(dir, 'x.db')}`;
    const keys = fakeIO(dir);
    await runCli(['node', 'agentport', 'keys', 'create', '--storage', storage, '--subject', 'ci-bot', '--scope', 'a2a:invoke'], keys);
    expect(keys.exits).toEqual([2]);
    expect(keys.err).toContain('unknown scope "a2a:invoke"');
    expect(keys.out).not.toContain('ap_');
    const users = fakeIO(dir);
    await runCli(['node', 'agentport', 'users', 'set-scopes', 'alice', '--storage', storage, '--scope', 'a2a:publsh'], users);
    expect(users.err).toContain('did you mean a2a:publish?');
  });
});
