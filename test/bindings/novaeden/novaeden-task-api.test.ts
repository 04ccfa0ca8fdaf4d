/**
 * The REST task API of the replaced service (src/bindings/novaeden/novaeden-task-api.ts): each route
 * answers with the core's tasks under the same authorization (a2a:publish writes, a2a:discover
 * reads, owner-scoped tasks, hidden agents unknown), every answer checked against /openapi.json;
 * and the precedence of `/a2a/agents` and `/a2a/tasks/{id}` over agents named `agents`/`tasks`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';
import { OpenApiConformance } from '../../support/openapi-conformance.js';
import { isNovaedenTaskWrite } from '../../../src/bindings/novaeden/novaeden-task-api.js';

const SCRIPTED = path.resolve(fileURLToPath(new URL('../../fixtures/agents/scripted-text-agent.mjs', import.meta.url)));
const msg = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

let s: AuthzServer;
const api = new OpenApiConformance();
const keys: Record<string, string> = {};

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'scripted', module: SCRIPTED },
      { id: 'vault', builtin: 'echo', visibility: 'extended' },
      { id: 'tasks', builtin: 'echo' },
      { id: 'agents', builtin: 'echo' },
    ],
  });
  keys.alice = await s.key('alice', ['a2a:discover', 'a2a:publish']);
  keys.bob = await s.key('bob', ['a2a:discover', 'a2a:publish']);
  keys.aliceRead = await s.key('alice', ['a2a:discover']);
  keys.aliceWrite = await s.key('alice', ['a2a:publish']);
}, 60_000);
afterAll(() => s?.stop());

/** A request whose answer is checked against the document; returns status, headers and body. */
async function call(method: string, p: string, key?: string, body?: unknown) {
  const res = await fetch(`${s.http}${p}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const headers = res.headers;
  const status = res.status;
  return { status, headers, body: (await api.check(method, p, res)) as any };
}

describe('POST /api/v1/agents/{agent_id}/tasks', () => {
  it('runs the message and returns the completed task in the v0.1 shape', async () => {
    const r = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('hello there'), sessionId: 'session-1' });
    expect(r.status).toBe(200);
    expect(r.body.status.state).toBe('completed');
    expect(r.body.sessionId).toBe('session-1');
    expect(r.body.artifacts[0].parts[0]).toEqual({ type: 'text', text: 'hello there' });
  });

  it('is the same under POST /a2a/agents/{id}/tasks', async () => {
    const r = await call('POST', '/a2a/agents/scripted/tasks', keys.alice, { message: msg('again') });
    expect(r.status).toBe(200);
    expect(r.body.status.state).toBe('completed');
  });

  it('refuses without a credential (401, challenge naming a2a:publish) and without a2a:publish (403)', async () => {
    const anon = await call('POST', '/api/v1/agents/scripted/tasks', undefined, { message: msg('x') });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/a2a:publish/);
    const readOnly = await call('POST', '/a2a/agents/scripted/tasks', keys.aliceRead, { message: msg('x') });
    expect(readOnly.status).toBe(403);
  });

  it('answers a hidden agent exactly like an unknown one to a caller who may not see it', async () => {
    const hidden = await call('POST', '/api/v1/agents/vault/tasks', keys.aliceWrite, { message: msg('x') });
    const unknown = await call('POST', '/api/v1/agents/nope/tasks', keys.aliceWrite, { message: msg('x') });
    expect(hidden.status).toBe(404);
    expect(JSON.stringify(hidden.body).replace('vault', 'nope')).toBe(JSON.stringify(unknown.body));
  });

  it('refuses a missing or malformed message with 400 and the error shape', async () => {
    expect((await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, {})).status).toBe(400);
    expect((await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: { role: 'user', parts: [] } })).status).toBe(400);
    expect((await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, '{not json')).status).toBe(400);
  });
});

describe('reading tasks', () => {
  it('GET /api/v1/tasks/{id}, /a2a/tasks/{id} and /status answer the owner', async () => {
    const created = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('read me') });
    const id = created.body.id as string;
    const a = await call('GET', `/api/v1/tasks/${id}`, keys.aliceRead);
    expect(a.status).toBe(200);
    expect(a.body.id).toBe(id);
    expect(a.body.history?.[0]?.parts?.[0]?.text).toBe('read me');
    const b = await call('GET', `/a2a/tasks/${id}`, keys.alice);
    expect(b.body).toEqual(a.body);
    const st = await call('GET', `/api/v1/tasks/${id}/status`, keys.alice);
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({ id, status: { state: 'completed' } });
  });

  it('tasks are owner-scoped: another subject gets 404, as for no task', async () => {
    const created = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('mine') });
    const other = await call('GET', `/api/v1/tasks/${created.body.id}`, keys.bob);
    const none = await call('GET', '/api/v1/tasks/00000000-0000-7000-8000-000000000000', keys.bob);
    expect(other.status).toBe(404);
    expect(none.status).toBe(404);
    expect((await call('GET', `/api/v1/tasks/${created.body.id}/status`, keys.bob)).status).toBe(404);
  });

  it('refuses without a credential (401) and without a2a:discover (403)', async () => {
    const created = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('x') });
    const anon = await call('GET', `/api/v1/tasks/${created.body.id}`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/a2a:discover/);
    expect((await call('GET', `/a2a/tasks/${created.body.id}`, keys.aliceWrite)).status).toBe(403);
    expect((await call('GET', `/api/v1/tasks/${created.body.id}/status`, keys.aliceWrite)).status).toBe(403);
    expect((await call('GET', `/api/v1/tasks/${created.body.id}?historyLength=x`, keys.alice)).status).toBe(400);
  });
});

describe('POST /api/v1/tasks/{task_id}/messages', () => {
  it('continues a task that asked for input, and refuses a terminal one', async () => {
    const asked = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('ask me') });
    expect(asked.body.status.state).toBe('input-required');
    const answered = await call('POST', `/api/v1/tasks/${asked.body.id}/messages`, keys.alice, { message: msg('this one') });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: asked.body.id, sessionId: asked.body.sessionId, status: { state: 'completed' } });
    const again = await call('POST', `/api/v1/tasks/${asked.body.id}/messages`, keys.alice, { message: msg('more') });
    expect(again.status).toBe(400);
  });

  it("refuses another subject's task (404), no credential (401), and a caller without a2a:discover (403)", async () => {
    const asked = await call('POST', '/api/v1/agents/scripted/tasks', keys.alice, { message: msg('ask') });
    expect((await call('POST', `/api/v1/tasks/${asked.body.id}/messages`, keys.bob, { message: msg('x') })).status).toBe(404);
    const anon = await call('POST', `/api/v1/tasks/${asked.body.id}/messages`, undefined, { message: msg('x') });
    expect(anon.status).toBe(401);
    expect((await call('POST', `/api/v1/tasks/${asked.body.id}/messages`, keys.aliceWrite, { message: msg('x') })).status).toBe(403);
  });
});

describe('GET /a2a/agents and ?view=cards', () => {
  it('lists the cards of the agents the caller may see, with a2a:discover', async () => {
    const r = await call('GET', '/a2a/agents', keys.aliceRead);
    expect(r.status).toBe(200);
    expect(r.body.map((c: { name: string }) => c.name)).toContain('Scripted');
    expect(r.body).toHaveLength(4); // a2a:discover sees the hidden agent too
    expect((await call('GET', '/a2a/agents')).status).toBe(401);
    expect((await call('GET', '/a2a/agents', keys.aliceWrite)).status).toBe(403);
  });

  it('GET /api/v1/agents keeps the summary and gives cards on ?view=cards', async () => {
    const summary = await call('GET', '/api/v1/agents');
    expect(summary.body.agents.map((a: { id: string }) => a.id)).toEqual(['scripted', 'tasks', 'agents']);
    const cards = await call('GET', '/api/v1/agents?view=cards');
    expect(cards.body.map((c: { name: string }) => c.name)).toHaveLength(3);
    expect(cards.body[0].name).toBe('Scripted');
  });
});

describe('precedence over agents named `agents` and `tasks`', () => {
  it('their A2A endpoints still answer: JSON-RPC at /a2a/agents, ListTasks at /a2a/tasks/tasks', async () => {
    const rpc = await fetch(`${s.http}/a2a/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys.alice!, 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
    });
    expect(rpc.status).toBe(200);
    expect(((await rpc.json()) as { result?: unknown }).result).toBeDefined();
    const list = await fetch(`${s.http}/a2a/tasks/tasks`, { headers: { 'x-api-key': keys.alice!, 'a2a-version': '1.0' } });
    expect(list.status).toBe(200);
    expect(await list.json()).toHaveProperty('tasks');
  });
});

describe('isNovaedenTaskWrite (what an admin-only gate of /api/v1 bodies lets through)', () => {
  it('names exactly the two writes of this API', () => {
    expect(isNovaedenTaskWrite('POST', '/api/v1/agents/echo/tasks')).toBe(true);
    expect(isNovaedenTaskWrite('POST', '/api/v1/tasks/t-1/messages?x=1')).toBe(true);
    for (const [m, u] of [
      ['POST', '/api/v1/keys'],
      ['POST', '/api/v1/users'],
      ['POST', '/api/v1/clients'],
      ['PATCH', '/api/v1/users/x'],
      ['GET', '/api/v1/tasks/t/messages'],
      ['POST', '/api/v1/agents/a/tasks/t'],
    ] as const) {
      expect(isNovaedenTaskWrite(m, u), `${m} ${u}`).toBe(false);
    }
  });
});
