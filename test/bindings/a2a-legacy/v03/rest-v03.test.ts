/**
 * v0.3 HTTP+JSON on the wire (request in, response out): `/v1/…` beneath an agent base with no
 * A2A-Version, bodies in the v0.3 proto's JSON form (or the JSON-RPC shape, accepted too),
 * bare v0.3 error objects with the A2A error's HTTP status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../../../support/server.js';
import { API_KEY, uid, V03_SERVER_CONFIG } from './v03-support.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(V03_SERVER_CONFIG);
});
afterAll(async () => {
  await s?.stop();
});

const AUTH = { authorization: `Bearer ${API_KEY}` };

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.http}/a2a/echo${path}`, {
    method,
    headers: { ...AUTH, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const protoMessage = (text: string) => ({ messageId: uid('m'), role: 'ROLE_USER', content: [{ text }] });

describe('v0.3 HTTP+JSON paths', () => {
  it('POST /v1/message:send takes a proto-JSON message and answers {task} in proto JSON', async () => {
    const r = await call('POST', '/v1/message:send', { message: protoMessage('hello proto'), configuration: { blocking: true } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const t = r.body.task;
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.artifacts[0].parts).toEqual([{ text: 'hello proto' }]);
    expect(t.history[0]).toMatchObject({ role: 'ROLE_USER', content: [{ text: 'hello proto' }] });
    expect(t.kind).toBeUndefined();
  });

  it('accepts the JSON-RPC message shape (kind, parts) as well, and file/data parts in proto form', async () => {
    const r = await call('POST', '/v1/message:send', { message: { kind: 'message', messageId: uid('m'), role: 'user', parts: [{ kind: 'text', text: 'hi json-rpc shape' }] } });
    expect(r.body.task.artifacts[0].parts).toEqual([{ text: 'hi json-rpc shape' }]);
    const files = await call('POST', '/v1/message:send', {
      message: { messageId: uid('m'), role: 'ROLE_USER', content: [{ file: { fileWithUri: 'https://example.com/a.txt', mimeType: 'text/plain' } }, { data: { data: { a: 1 } } }] },
    });
    expect(files.status).toBe(200);
    expect(files.body.task.history[0].content).toEqual([{ file: { fileWithUri: 'https://example.com/a.txt', mimeType: 'text/plain' } }, { data: { data: { a: 1 } } }]);
  });

  it('GET /v1/tasks/{id} and POST /v1/tasks/{id}:cancel, errors as bare v0.3 objects', async () => {
    const sent = await call('POST', '/v1/message:send', { message: protoMessage('x') });
    const id = sent.body.task.id;
    const got = await call('GET', `/v1/tasks/${id}?historyLength=1`);
    expect(got.body).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
    const missing = await call('GET', '/v1/tasks/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: -32001, data: { reason: 'TASK_NOT_FOUND' } });
    const cancel = await call('POST', `/v1/tasks/${id}:cancel`);
    expect(cancel.body.code).toBe(-32002);
  });

  it('POST /v1/message:stream sends proto StreamResponse events with final on the last status', async () => {
    const res = await fetch(`${s.http}/a2a/echo/v1/message:stream`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: protoMessage('streamed') }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await readSse(res)).map((e) => e.data);
    expect(Object.keys(events[0])).toEqual(['task']);
    const last = events.at(-1);
    expect(last.statusUpdate).toMatchObject({ final: true, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('push configs: create with the proto body, get, list, delete', async () => {
    const sent = await call('POST', '/v1/message:send', { message: protoMessage('push') });
    const id = sent.body.task.id;
    const created = await call('POST', `/v1/tasks/${id}/pushNotificationConfigs`, {
      name: `tasks/${id}/pushNotificationConfigs/c1`,
      pushNotificationConfig: { url: 'http://127.0.0.1:9/hook', token: 't', authentication: { schemes: ['Bearer'], credentials: 'c' } },
    });
    expect(created.body).toEqual({
      name: `tasks/${id}/pushNotificationConfigs/c1`,
      pushNotificationConfig: { id: 'c1', url: 'http://127.0.0.1:9/hook', token: 't', authentication: { schemes: ['Bearer'], credentials: 'c' } },
    });
    expect((await call('GET', `/v1/tasks/${id}/pushNotificationConfigs/c1`)).body.pushNotificationConfig.id).toBe('c1');
    expect((await call('GET', `/v1/tasks/${id}/pushNotificationConfigs`)).body.configs.map((c: { name: string }) => c.name)).toEqual([`tasks/${id}/pushNotificationConfigs/c1`]);
    expect((await call('DELETE', `/v1/tasks/${id}/pushNotificationConfigs/c1`)).body).toEqual({});
    expect((await call('GET', `/v1/tasks/${id}/pushNotificationConfigs/c1`)).status).toBe(404);
  });

  it('GET /v1/card is the extended card as a v0.3 proto card (oneof security schemes)', async () => {
    // Cards declare schemes only with authentication on (auth.mode none publishes none).
    const secured = await startTestServer({ ...V03_SERVER_CONFIG, auth: { mode: 'required', apiKeys: [{ key: API_KEY, subject: 'alice', scopes: ['a2a:discover'] }] } });
    try {
      const res = await fetch(`${secured.http}/a2a/echo/v1/card`, { headers: AUTH });
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ protocolVersion: '0.3.0', name: 'Echo', preferredTransport: 'JSONRPC' });
      expect(body.securitySchemes.apiKey).toEqual({ apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'An Agentport API key (agentport keys create, POST /api/v1/keys)' } });
    } finally {
      await secured.stop();
    }
  });

  it('answers a missing credential and a bad body in the v0.3 error shape', async () => {
    const anon = await fetch(`${s.http}/a2a/echo/v1/card`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toMatchObject({ code: -32000, data: { reason: 'UNAUTHENTICATED' } });
    const bad = await call('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', content: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'message.content' }] } });
  });

  it('leaves /v1/… to v1.0 REST (a tenant named v1) when A2A-Version: 1.0 is sent', async () => {
    const r = await call('GET', '/v1/tasks/nope', undefined, { 'A2A-Version': '1.0' });
    expect(r.body.error).toBeDefined();
    expect(r.body.code).toBeUndefined();
  });
});
