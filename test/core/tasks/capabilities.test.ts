/**
 * A2A v1.0 §5 capability and extension gating: streaming off → UnsupportedOperation (-32004); a required extension must be activated with the
 * A2A-Extensions header (-32008 otherwise) and is echoed back; push-config operations are gated by
 * the pushNotifications capability (-32003), scoped to existing tasks, and webhook URLs pass the SSRF guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { PROBE_MODULE, codeOf, describeEvent, resultOf, rpcStream, startProbeServer } from './helpers.js';

const EXT = 'urn:x:ext';

describe('required extensions', () => {
  let s: TestServer;
  let url: string;
  beforeAll(async () => {
    s = await startProbeServer({
      agents: [
        { id: 'probe', module: PROBE_MODULE, requiredExtensions: [EXT] },
        { id: 'plain', module: PROBE_MODULE },
      ],
    });
    url = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  it('declares the extension as required on the agent card', async () => {
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extensions).toContainEqual(expect.objectContaining({ uri: EXT, required: true }));
  });

  it('refuses a request without A2A-Extensions with ExtensionSupportRequired (-32008), on every method', async () => {
    const send = await rpc(url, 'SendMessage', { message: userMessage('hello') });
    expect(codeOf(send.body)).toBe(-32008);
    expect(send.body.error.data?.[0]?.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
    expect(codeOf((await rpc(url, 'ListTasks', {})).body)).toBe(-32008);
    expect(codeOf((await rpc(url, 'GetTask', { id: 'x' })).body)).toBe(-32008);
    const st = await rpcStream(url, 'SendStreamingMessage', { message: userMessage('hello') });
    expect(codeOf(await st.json())).toBe(-32008);
  });

  it('refuses a request that activates only other extensions', async () => {
    const r = await rpc(url, 'SendMessage', { message: userMessage('hello') }, { 'a2a-extensions': 'urn:x:other' });
    expect(codeOf(r.body)).toBe(-32008);
  });

  it('succeeds with A2A-Extensions: urn:x:ext and echoes the activated extension', async () => {
    const r = await rpc(url, 'SendMessage', { message: userMessage('hello') }, { 'a2a-extensions': EXT });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.headers.get('a2a-extensions')).toBe(EXT);
  });

  it('echoes only the extensions it supports when several are requested', async () => {
    const r = await rpc(url, 'SendMessage', { message: userMessage('hello') }, { 'a2a-extensions': `urn:x:unknown, ${EXT}` });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.headers.get('a2a-extensions')).toBe(EXT);
  });

  it('echoes the extension on a stream response too', async () => {
    const st = await rpcStream(url, 'SendStreamingMessage', { message: userMessage('hello') }, { 'a2a-extensions': EXT });
    expect(st.headers['a2a-extensions']).toBe(EXT);
    expect((await st.untilEnd()).map((e) => describeEvent(resultOf(e))).at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });

  it('enforces it over HTTP+JSON (400 EXTENSION_SUPPORT_REQUIRED, then 200 with the header echoed)', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ message: userMessage('hello') }),
      });
    const missing = await send({});
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.details[0].reason).toBe('EXTENSION_SUPPORT_REQUIRED');
    const ok = await send({ 'a2a-extensions': EXT });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('a2a-extensions')).toBe(EXT);
  });

  it('does not affect an agent without required extensions (and echoes nothing it does not support)', async () => {
    const r = await rpc(`${s.http}/a2a/plain`, 'SendMessage', { message: userMessage('hello') }, { 'a2a-extensions': EXT });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.headers.get('a2a-extensions')).toBeNull();
  });
});

describe('push notification configs', () => {
  let s: TestServer;
  let push: string;
  let noPush: string;
  let task: any;
  let noPushTask: any;
  beforeAll(async () => {
    s = await startProbeServer({
      agents: [
        { id: 'probe', module: PROBE_MODULE },
        { id: 'nopush', module: PROBE_MODULE, pushNotifications: false },
      ],
    });
    push = `${s.http}/a2a/probe`;
    noPush = `${s.http}/a2a/nopush`;
    task = (await rpc(push, 'SendMessage', { message: userMessage('done') })).body.result.task;
    noPushTask = (await rpc(noPush, 'SendMessage', { message: userMessage('done') })).body.result.task;
  });
  afterAll(async () => s?.stop());

  const PUBLIC_HOOK = 'https://8.8.8.8/hook';

  it('returns PushNotificationNotSupported (-32003) on all four operations when the capability is off', async () => {
    const card = await (await fetch(`${noPush}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.pushNotifications ?? false).toBe(false);
    const results = [
      await rpc(noPush, 'CreateTaskPushNotificationConfig', { taskId: noPushTask.id, url: PUBLIC_HOOK }),
      await rpc(noPush, 'GetTaskPushNotificationConfig', { taskId: noPushTask.id, id: 'c1' }),
      await rpc(noPush, 'ListTaskPushNotificationConfigs', { taskId: noPushTask.id }),
      await rpc(noPush, 'DeleteTaskPushNotificationConfig', { taskId: noPushTask.id, id: 'c1' }),
    ];
    for (const r of results) {
      expect(codeOf(r.body)).toBe(-32003);
      expect(r.body.error.data?.[0]?.reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  });

  it('returns -32003 for an inline taskPushNotificationConfig when the capability is off', async () => {
    const r = await rpc(noPush, 'SendMessage', { message: userMessage('done'), configuration: { taskPushNotificationConfig: { url: PUBLIC_HOOK } } });
    expect(codeOf(r.body)).toBe(-32003);
  });

  it('returns 400 PUSH_NOTIFICATION_NOT_SUPPORTED over HTTP+JSON when the capability is off', async () => {
    const res = await fetch(`${noPush}/tasks/${noPushTask.id}/pushNotificationConfigs`, { headers: { 'a2a-version': '1.0' } });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
  });

  it('creating a config on an unknown task is TaskNotFound (-32001)', async () => {
    const r = await rpc(push, 'CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: PUBLIC_HOOK });
    expect(codeOf(r.body)).toBe(-32001);
    expect(codeOf((await rpc(push, 'ListTaskPushNotificationConfigs', { taskId: 'no-such-task' })).body)).toBe(-32001);
    expect(codeOf((await rpc(push, 'GetTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'x' })).body)).toBe(-32001);
  });

  it.each([
    ['http://10.0.0.1/x', 'plain http to a private address'],
    ['https://10.0.0.1/x', 'a private address'],
    ['https://169.254.169.254/', 'the link-local metadata address'],
    ['https://127.0.0.1:8443/hook', 'loopback'],
    ['https://192.168.1.20/hook', 'a private address'],
    ['https://[::1]/hook', 'IPv6 loopback'],
    ['https://localhost/hook', 'localhost by name'],
    ['http://8.8.8.8/hook', 'plain http (https only by default)'],
  ])('refuses the webhook %s (%s) with InvalidParams (-32602)', async (hook) => {
    const r = await rpc(push, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: hook });
    expect(codeOf(r.body)).toBe(-32602);
    // and inline on SendMessage, before any task is created
    const contextId = `ctx-ssrf-${Math.random().toString(36).slice(2)}`;
    const inline = await rpc(push, 'SendMessage', { message: userMessage('done', { contextId }), configuration: { taskPushNotificationConfig: { url: hook } } });
    expect(codeOf(inline.body)).toBe(-32602);
    expect((await rpc(push, 'ListTasks', { contextId })).body.result.tasks).toEqual([]);
  });

  it('gives one refusal text whatever the webhook host is or resolves to; the reason stays in the log (issue 19)', async () => {
    const texts = new Set<string>();
    for (const hook of ['https://127.0.0.1:8443/hook', 'https://10.0.0.1/x', 'https://169.254.169.254/', 'https://[::1]/hook', 'https://localhost/hook']) {
      const r = await rpc(push, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: hook });
      texts.add(JSON.stringify(r.body.error));
    }
    expect(texts.size).toBe(1);
    const [only] = [...texts];
    expect(only).toMatch(/outbound network policy/);
    expect(only).not.toMatch(/loopback|private|link-local|resolve|localhost|not allowed/i);
  });

  it('creates, reads, lists and deletes a config (delete is idempotent; a deleted config is TaskNotFound)', async () => {
    const created = await rpc(push, 'CreateTaskPushNotificationConfig', {
      taskId: task.id,
      url: PUBLIC_HOOK,
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    const cfg = created.body.result;
    expect(cfg.id).toBeTruthy();
    expect(cfg.taskId).toBe(task.id);
    expect(cfg.url).toBe(PUBLIC_HOOK);
    expect(cfg.token).toBe('tok-1');

    const got = await rpc(push, 'GetTaskPushNotificationConfig', { taskId: task.id, id: cfg.id });
    expect(got.body.result).toEqual(cfg);
    const listed = await rpc(push, 'ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.body.result.configs).toEqual([cfg]);
    expect(listed.body.result.nextPageToken ?? '').toBe('');

    const del = await rpc(push, 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: cfg.id });
    expect(del.body.error).toBeUndefined();
    const again = await rpc(push, 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: cfg.id });
    expect(again.body.error).toBeUndefined();
    expect(codeOf((await rpc(push, 'GetTaskPushNotificationConfig', { taskId: task.id, id: cfg.id })).body)).toBe(-32001);
    expect((await rpc(push, 'ListTaskPushNotificationConfigs', { taskId: task.id })).body.result.configs).toEqual([]);
  });
});

describe('streaming capability off', () => {
  let s: TestServer;
  let url: string;
  beforeAll(async () => {
    s = await startProbeServer({ agents: [{ id: 'nostream', module: PROBE_MODULE, streaming: false }] });
    url = `${s.http}/a2a/nostream`;
  });
  afterAll(async () => s?.stop());

  it('refuses SendStreamingMessage and SubscribeToTask with UnsupportedOperation (-32004); unary calls work', async () => {
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.streaming ?? false).toBe(false);
    const st = await rpcStream(url, 'SendStreamingMessage', { message: userMessage('hello') });
    expect(codeOf(await st.json())).toBe(-32004);
    const t = await rpc(url, 'SendMessage', { message: userMessage('input') });
    expect(t.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const sub = await rpcStream(url, 'SubscribeToTask', { id: t.body.result.task.id });
    expect(codeOf(await sub.json())).toBe(-32004);
  });
});
