/**
 * A member's own API keys over the management API (issue 16), signed in as the console signs in
 * (a session of a local user without `admin`), on a real server: the member creates a key for
 * themselves within their own scopes and uses it, lists only their own keys, revokes their own
 * (then refused) but never another's (answered as an unknown key), cannot exceed their scopes nor
 * name another subject, and cannot mint keys with a key; every answer as /openapi.json documents
 * it; each action audited as the administrator's are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, startOAuthServer } from '../../auth/oauth/support.js';
import { challengeParams } from '../../core/authz/support.js';
import { userMessage } from '../../core/tasks/engine-harness.js';
import { consoleSignIn } from '../../console/console-code-flow.js';
import { OpenApiConformance } from '../../support/openapi-conformance.js';
import { rpc, type TestServer } from '../../support/server.js';

const MEMBER = { username: 'bob', password: 'own keys member password 1', scopes: ['a2a:discover', 'a2a:publish', 'mcp:tools'] };
const OTHER = { username: 'carol', password: 'own keys member password 2', scopes: ['a2a:discover'] };
/** bound to usecase demo by her scopes: her keys must be too */
const BOUND = { username: 'dana', password: 'own keys member password 3', scopes: ['a2a:discover', 'a2a:publish', 'mcp:tools:demo'] };

interface KeyView {
  id: string;
  subject: string;
  scopes: string[];
  usecase?: string;
  status: string;
  key?: string;
}

let s: TestServer;
let api: OpenApiConformance;
let bob: Record<string, string>;
let carolsKey: KeyView;

beforeAll(async () => {
  s = await startOAuthServer({}, [MEMBER, OTHER, BOUND]);
  api = new OpenApiConformance((await (await fetch(`${s.http}/openapi.json`)).json()) as Record<string, unknown>);
  const c = await consoleSignIn(s.http, async (url, redirect) => (await browse(s, url, { redirectPrefix: redirect, user: MEMBER })).callback);
  expect(c.session).toMatchObject({ username: MEMBER.username, admin: false });
  bob = { cookie: c.cookie, 'x-csrf-token': c.csrf };
  carolsKey = (await call('POST', '/api/v1/keys', { 'x-api-key': s.firstAdminKey! }, { subject: OTHER.username, scopes: ['a2a:discover'] })).body as KeyView;
}, 60_000);
afterAll(async () => s?.stop());

async function call(method: string, p: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${s.http}${p}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const headersSeen = res.headers;
  return { status: res.status, body: await api.check(method, p, res), headers: headersSeen };
}

async function audit(query: string): Promise<Array<{ action: string; actor: string; actorClient?: string; target?: string; details?: Record<string, unknown> }>> {
  await s.audit.flush();
  const res = await fetch(`${s.http}/api/v1/audit?${query}`, { headers: { 'x-api-key': s.firstAdminKey! } });
  return ((await res.json()) as { records: Array<{ action: string; actor: string }> }).records;
}

describe("a member's own API keys", () => {
  it('creates a key for themselves (subject defaults to them), uses it, and the task is theirs', async () => {
    const created = await call('POST', '/api/v1/keys', bob, { scopes: ['a2a:publish', 'a2a:discover'] });
    expect(created.status).toBe(201);
    const k = created.body as KeyView;
    expect(k).toMatchObject({ subject: MEMBER.username, scopes: ['a2a:publish', 'a2a:discover'], status: 'active' });
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('with my own key') }, { 'x-api-key': k.key! });
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const tasks = (await (await fetch(`${s.http}/api/v1/tasks`, { headers: bob })).json()) as { tasks: Array<{ id: string; owner: string }> };
    expect(tasks.tasks.find((t) => t.id === sent.body.result.task.id)?.owner).toBe(MEMBER.username);
    // Naming themselves is the same; mcp:tools covers one usecase's tools.
    const named = await call('POST', '/api/v1/keys', bob, { subject: MEMBER.username, scopes: ['mcp:tools:demo'] });
    expect(named.status).toBe(201);
    expect((await audit(`action=apikey.created&target=apikey:${k.id}`)).at(-1)).toMatchObject({ actor: MEMBER.username, actorClient: 'agentport-console', details: { subject: MEMBER.username } });
  });

  it('lists only their own keys; an administrator lists everyone’s', async () => {
    const mine = (await call('GET', '/api/v1/keys', bob)).body as { keys: KeyView[] };
    expect(mine.keys.length).toBeGreaterThanOrEqual(1);
    expect(new Set(mine.keys.map((k) => k.subject))).toEqual(new Set([MEMBER.username]));
    expect(mine.keys.map((k) => k.id)).not.toContain(carolsKey.id);
    const all = (await call('GET', '/api/v1/keys', { 'x-api-key': s.firstAdminKey! })).body as { keys: KeyView[] };
    expect(all.keys.map((k) => k.id)).toEqual(expect.arrayContaining([carolsKey.id, ...mine.keys.map((k) => k.id)]));
  });

  it('cannot give a key a scope they do not hold, admin included, nor name another subject (403, scope named)', async () => {
    const admin = await call('POST', '/api/v1/keys', bob, { scopes: ['a2a:discover', 'admin'] });
    expect(admin.status).toBe(403);
    expect(challengeParams(admin.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope', scope: 'admin' });
    expect(JSON.stringify(admin.body)).toContain('PERMISSION_DENIED');
    const usage = await call('POST', '/api/v1/keys', bob, { scopes: ['usage:read'] });
    expect(usage.status).toBe(403);
    expect(challengeParams(usage.headers.get('www-authenticate')).scope).toBe('usage:read');
    const other = await call('POST', '/api/v1/keys', bob, { subject: OTHER.username, scopes: ['a2a:discover'] });
    expect(other.status).toBe(403);
    expect(challengeParams(other.headers.get('www-authenticate')).scope).toBe('admin');
    const mine = (await call('GET', '/api/v1/keys', bob)).body as { keys: KeyView[] };
    expect(mine.keys.some((k) => k.scopes.includes('admin') || k.scopes.includes('usage:read'))).toBe(false);
    const denied = await audit(`action=authz.denied&actor=${MEMBER.username}`);
    expect(denied.map((r) => r.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'create-own-apikey', requiredScopes: ['admin'] }),
        expect.objectContaining({ operation: 'create-own-apikey', requiredScopes: ['usage:read'] }),
        expect.objectContaining({ operation: 'administer', requiredScopes: ['admin'] }),
      ]),
    );
  });

  it("revokes their own key (then refused), never another's: that one is answered as unknown, and keeps working", async () => {
    const k = (await call('POST', '/api/v1/keys', bob, { scopes: ['a2a:publish'] })).body as KeyView;
    const theirs = await call('DELETE', `/api/v1/keys/${carolsKey.id}`, bob);
    const unknown = await call('DELETE', '/api/v1/keys/0123456789abcdef', bob);
    expect(theirs.status).toBe(404);
    expect(JSON.stringify(theirs.body).replace(carolsKey.id, 'X')).toBe(JSON.stringify(unknown.body).replace('0123456789abcdef', 'X'));
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { 'x-api-key': carolsKey.key! } })).status).toBe(200);
    expect((await audit(`action=authz.denied&target=apikey:${carolsKey.id}`)).at(-1)).toMatchObject({ actor: MEMBER.username });

    expect((await call('DELETE', `/api/v1/keys/${k.id}`, bob)).status).toBe(204);
    const refused = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after revocation') }, { 'x-api-key': k.key! });
    expect(refused.status).toBe(401);
    const listed = (await call('GET', '/api/v1/keys', bob)).body as { keys: KeyView[] };
    expect(listed.keys.find((x) => x.id === k.id)?.status).toBe('revoked');
    expect((await audit(`action=apikey.revoked&target=apikey:${k.id}`)).at(-1)).toMatchObject({ actor: MEMBER.username, actorClient: 'agentport-console' });
  });

  it('a key lists and revokes its own subject’s keys but cannot create one (a leaked key must not outlive its revocation)', async () => {
    const k = (await call('POST', '/api/v1/keys', bob, { scopes: ['a2a:discover'] })).body as KeyView;
    const asKey = { 'x-api-key': k.key! };
    expect((await call('GET', '/api/v1/keys', asKey)).status).toBe(200);
    const minted = await call('POST', '/api/v1/keys', asKey, { scopes: ['a2a:discover'] });
    expect(minted.status).toBe(403);
    expect(JSON.stringify(minted.body)).toContain('cannot create API keys');
    expect((await call('DELETE', `/api/v1/keys/${k.id}`, asKey)).status).toBe(204);
  });

  it('a member bound to a usecase by their scopes makes keys bound to it (A2A scopes alone would see every usecase)', async () => {
    const c = await consoleSignIn(s.http, async (url, redirect) => (await browse(s, url, { redirectPrefix: redirect, user: BOUND })).callback);
    const dana = { cookie: c.cookie, 'x-csrf-token': c.csrf };
    const created = await call('POST', '/api/v1/keys', dana, { scopes: ['a2a:publish'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ subject: BOUND.username, scopes: ['a2a:publish'], usecase: 'demo' });
    const elsewhere = await call('POST', '/api/v1/keys', dana, { scopes: ['a2a:publish'], usecase: 'finance' });
    expect(elsewhere.status).toBe(403);
    expect(JSON.stringify(elsewhere.body)).toContain('bound to usecase demo');
  });

  it('bad input is a 400 naming the field', async () => {
    const bad = await call('POST', '/api/v1/keys', bob, { scopes: ['has space'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('scopes.0');
    expect((await call('POST', '/api/v1/keys', bob, { scopes: [], surprise: 1 })).status).toBe(400);
  });
});
