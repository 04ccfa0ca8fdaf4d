/**
 * A2A v0.1 over JSON-RPC on the same endpoints as v1.0 and v0.3: client-chosen task ids (namespaced
 * per caller), sessionId as the context, `type` parts, v0.1 task/status/artifact shapes and codes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../interop/sdk-support.js';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { ALICE, BOB, rpc01, stream01, uid, v01Message, V01_SERVER_CONFIG } from './v01-support.js';

let s: TestServer;
let url: string;
let hook: WebhookReceiver;

beforeAll(async () => {
  s = await startTestServer(V01_SERVER_CONFIG);
  url = `${s.http}/a2a/scripted`;
  hook = await startWebhookReceiver();
});
afterAll(async () => {
  await hook?.close();
  await s?.stop();
});

describe('tasks/send', () => {
  it('creates the task under the client-chosen id and answers a v0.1 Task', async () => {
    const id = uid('t');
    const r = await rpc01(url, 'tasks/send', { id, sessionId: 'sess-1', message: v01Message('hello v0.1') });
    expect(r.status).toBe(200);
    const t = r.body.result;
    expect(t).toMatchObject({ id, sessionId: 'sess-1', status: { state: 'completed' } });
    expect(Number.isNaN(Date.parse(t.status.timestamp))).toBe(false);
    expect(t.artifacts).toEqual([{ name: 'result', parts: [{ type: 'text', text: 'hello v0.1' }], index: 0 }]);
    expect(t.history[0]).toEqual({ role: 'user', parts: [{ type: 'text', text: 'hello v0.1' }] });
    expect(JSON.stringify(t)).not.toMatch(/"kind"|"messageId"|"contextId"|TASK_STATE/);
  });

  it('without sessionId, the server picks one and returns it', async () => {
    const r = await rpc01(url, 'tasks/send', { id: uid('t'), message: v01Message('x') });
    expect(typeof r.body.result.sessionId).toBe('string');
    expect(r.body.result.sessionId).not.toBe('');
  });

  it('a second tasks/send with the same id continues the task (input-required → completed)', async () => {
    const id = uid('t');
    const first = await rpc01(url, 'tasks/send', { id, sessionId: 's-cont', message: v01Message('ask me') });
    expect(first.body.result.status).toMatchObject({ state: 'input-required', message: { role: 'agent', parts: [{ type: 'text', text: 'which one?' }] } });
    const second = await rpc01(url, 'tasks/send', { id, sessionId: 's-cont', message: v01Message('the blue one') });
    expect(second.body.result).toMatchObject({ id, sessionId: 's-cont', status: { state: 'completed' } });
    const got = await rpc01(url, 'tasks/get', { id });
    expect(got.body.result.history.filter((m: any) => m.role === 'user').map((m: any) => m.parts[0].text)).toEqual(['ask me', 'the blue one']);
  });

  it('the same id from two callers makes two tasks; neither sees the other', async () => {
    const id = uid('shared');
    await rpc01(url, 'tasks/send', { id, message: v01Message('from alice') }, ALICE);
    const bobMissing = await rpc01(url, 'tasks/get', { id }, BOB);
    expect(bobMissing.body.error.code).toBe(-32001);
    await rpc01(url, 'tasks/send', { id, message: v01Message('from bob') }, BOB);
    const a = await rpc01(url, 'tasks/get', { id }, ALICE);
    const b = await rpc01(url, 'tasks/get', { id }, BOB);
    expect(a.body.result.artifacts[0].parts[0].text).toBe('from alice');
    expect(b.body.result.artifacts[0].parts[0].text).toBe('from bob');
  });

  it('a v1.0 client of the same caller finds the task under the namespaced server id', async () => {
    const id = uid('ns');
    await rpc01(url, 'tasks/send', { id, sessionId: 'ctx-ns', message: v01Message('y') });
    const list = await rpc(url, 'ListTasks', { contextId: 'ctx-ns' }, { authorization: `Bearer ${ALICE}` });
    const serverId = list.body.result.tasks[0].id as string;
    expect(serverId).toMatch(new RegExp(`^${id}\\.[0-9a-f]{12}$`));
    const v1 = await rpc(url, 'GetTask', { id: serverId }, { authorization: `Bearer ${ALICE}` });
    expect(v1.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a direct message reply comes back as a completed Task carrying the message', async () => {
    const id = uid('t');
    const r = await rpc01(url, 'tasks/send', { id, sessionId: 's-r', message: v01Message('reply please') });
    expect(r.body.result).toEqual({ id, sessionId: 's-r', status: { state: 'completed', message: { role: 'agent', parts: [{ type: 'text', text: 'replied: reply please' }] } } });
  });

  it('maps rejected to failed (v0.1 had no rejected) and carries data and file parts in v0.1 form', async () => {
    expect((await rpc01(url, 'tasks/send', { id: uid('t'), message: v01Message('reject') })).body.result.status.state).toBe('failed');
    const data = await rpc01(url, 'tasks/send', { id: uid('t'), message: v01Message('data') });
    expect(data.body.result.artifacts[0].parts).toEqual([{ type: 'data', data: { rows: 2 } }]);
    const file = await rpc01(url, 'tasks/send', { id: uid('t'), message: v01Message('file') });
    expect(file.body.result.artifacts[0].parts).toEqual([{ type: 'file', file: { bytes: 'aGVsbG8=', name: 'h.txt', mimeType: 'text/plain' } }]);
  });

  it('accepts file and data parts from the client', async () => {
    const r = await rpc01(url, 'tasks/send', {
      id: uid('t'),
      message: {
        role: 'user',
        parts: [
          { type: 'data', data: { a: 1 } },
          { type: 'file', file: { uri: 'https://example.com/x.png', mimeType: 'image/png' } },
        ],
      },
    });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.history[0].parts).toEqual([
      { type: 'data', data: { a: 1 } },
      { type: 'file', file: { uri: 'https://example.com/x.png', mimeType: 'image/png' } },
    ]);
  });

  it('refuses bad params with -32602 naming the field', async () => {
    const noId = await rpc01(url, 'tasks/send', { message: v01Message('x') });
    expect(noId.body.error).toMatchObject({ code: -32602, data: { reason: 'INVALID_PARAMS', fieldViolations: [{ field: 'id' }] } });
    const badPart = await rpc01(url, 'tasks/send', { id: 'x', message: { role: 'user', parts: [{ kind: 'text', text: 'v0.3 style' }] } });
    expect(badPart.body.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'message.parts[0].type' }] } });
    const agentRole = await rpc01(url, 'tasks/send', { id: 'x', message: { role: 'agent', parts: [{ type: 'text', text: 'hi' }] } });
    expect(agentRole.body.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'message.role' }] } });
  });

  it('a message to a finished task is -32004 UnsupportedOperation', async () => {
    const id = uid('t');
    await rpc01(url, 'tasks/send', { id, message: v01Message('done') });
    const again = await rpc01(url, 'tasks/send', { id, message: v01Message('more') });
    expect(again.body.error.code).toBe(-32004);
  });
});

describe('tasks/get, tasks/cancel', () => {
  it('gets by client id with historyLength; an unknown id is -32001', async () => {
    const id = uid('t');
    await rpc01(url, 'tasks/send', { id, message: v01Message('g') });
    const got = await rpc01(url, 'tasks/get', { id, historyLength: 0 });
    expect(got.body.result.id).toBe(id);
    expect(got.body.result.history).toBeUndefined();
    const missing = await rpc01(url, 'tasks/get', { id: 'never-sent' });
    expect(missing.body.error).toMatchObject({ code: -32001, message: expect.any(String), data: { reason: 'TASK_NOT_FOUND' } });
  });

  it('cancels a running task; canceling a completed one is -32002', async () => {
    const id = uid('t');
    const started = stream01(url, 'tasks/sendSubscribe', { id, message: v01Message('slow') });
    await vi.waitFor(async () => expect((await rpc01(url, 'tasks/get', { id })).body.result?.status.state).toBe('working'), { timeout: 5000, interval: 25 });
    const canceled = await rpc01(url, 'tasks/cancel', { id });
    expect(canceled.body.result).toMatchObject({ id, status: { state: 'canceled' } });
    const events = (await started).events.map((e) => e.data.result);
    expect(events.at(-1)).toMatchObject({ id, status: { state: 'canceled' }, final: true });
    const done = uid('t');
    await rpc01(url, 'tasks/send', { id: done, message: v01Message('x') });
    expect((await rpc01(url, 'tasks/cancel', { id: done })).body.error.code).toBe(-32002);
  });
});

describe('tasks/sendSubscribe, tasks/resubscribe', () => {
  it('streams v0.1 status and artifact events keyed by the client id, the last one final', async () => {
    const id = uid('st');
    const r = await stream01(url, 'tasks/sendSubscribe', { id, sessionId: 'sess-st', message: v01Message('slow') }, ALICE, 'sub-1');
    expect(r.contentType).toMatch(/^text\/event-stream/);
    const results = r.events.map((e) => {
      expect(e.data).toMatchObject({ jsonrpc: '2.0', id: 'sub-1' });
      return e.data.result;
    });
    expect(results.map((x: any) => (x.artifact ? `artifact#${x.artifact.index}` : `${x.status.state}${x.final ? '!' : ''}`))).toEqual(['submitted', 'working', 'artifact#0', 'completed!']);
    expect(results.every((x: any) => x.id === id)).toBe(true);
    expect(results[2].artifact).toEqual({ name: 'result', parts: [{ type: 'text', text: 'slow result' }], index: 0 });
  });

  it('resubscribe by client id follows the running task to its end', async () => {
    const id = uid('rs');
    await rpc01(url, 'tasks/send', { id, message: v01Message('ask first') });
    const sub = stream01(url, 'tasks/resubscribe', { id });
    await new Promise((r) => setTimeout(r, 100));
    await rpc01(url, 'tasks/send', { id, message: v01Message('answer') });
    const events = (await sub).events.map((e) => e.data.result);
    expect(events[0]).toMatchObject({ id, status: { state: 'input-required' } });
    expect(events.at(-1)).toMatchObject({ id, status: { state: 'completed' }, final: true });
  });

  it('resubscribe to an unknown id is a JSON -32001 error, not a stream', async () => {
    const r = await stream01(url, 'tasks/resubscribe', { id: 'nope' });
    expect(r.contentType).toMatch(/^application\/json/);
    expect(r.body.error.code).toBe(-32001);
  });
});

describe('tasks/pushNotification/set|get and v0.1 webhook bodies', () => {
  it('set and get one config per task, in v0.1 shape', async () => {
    const id = uid('p');
    await rpc01(url, 'tasks/send', { id, message: v01Message('ask') });
    const cfg = { url: hook.url, token: 'tok-01', authentication: { schemes: ['Bearer'], credentials: 'cred' } };
    const set = await rpc01(url, 'tasks/pushNotification/set', { id, pushNotificationConfig: cfg });
    expect(set.body.result).toEqual({ id, pushNotificationConfig: cfg });
    const got = await rpc01(url, 'tasks/pushNotification/get', { id });
    expect(got.body.result).toEqual({ id, pushNotificationConfig: cfg });
  });

  it('an inline pushNotification on tasks/send delivers v0.1 Tasks under the client id', async () => {
    const id = uid('pi');
    await rpc01(url, 'tasks/send', { id, sessionId: 'sess-push', message: v01Message('hi push'), pushNotification: { url: hook.url, token: 'tok-inline' } });
    await vi.waitFor(() => expect(hook.received.filter((r) => r.headers['x-a2a-notification-token'] === 'tok-inline').some((r) => r.body.status?.state === 'completed')).toBe(true), {
      timeout: 10_000,
      interval: 25,
    });
    const last = hook.received.filter((r) => r.headers['x-a2a-notification-token'] === 'tok-inline').at(-1)!;
    expect(last.body).toMatchObject({ id, sessionId: 'sess-push', status: { state: 'completed' }, artifacts: [{ index: 0, parts: [{ type: 'text', text: 'hi push' }] }] });
    expect(last.headers['content-type']).toBe('application/json');
  });

  it('push on an agent without push is -32003', async () => {
    const r = await rpc01(`${s.http}/a2a/plain`, 'tasks/send', { id: uid('t'), message: v01Message('x'), pushNotification: { url: hook.url } });
    expect(r.body.error).toMatchObject({ code: -32003, message: 'Push Notification is not supported' });
  });
});

describe('dispatch', () => {
  it('v0.3 clients keep v0.3 answers for ids that are v0.3 tasks', async () => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'v03' }] } } }),
    });
    const task = ((await r.json()) as any).result;
    const got = await rpc01(url, 'tasks/get', { id: task.id });
    expect(got.body.result).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId });
  });

  it('a v0.1 method with A2A-Version: 1.0 is a v1.0 MethodNotFound', async () => {
    const r = await rpc(url, 'tasks/send', { id: 'x', message: v01Message('x') });
    expect(r.body.error.code).toBe(-32601);
  });
});
