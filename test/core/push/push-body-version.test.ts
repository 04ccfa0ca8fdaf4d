/**
 * Push bodies follow the wire version the config was registered through: v1.0 registrations get
 * v1.0 StreamResponse bodies, v0.3 registrations (JSON-RPC slash methods, inline or separate) get
 * the bare v0.3 Task with `kind` and kebab-case states, each the task as it stood after its event.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../interop/sdk-support.js';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';
import { v03Message } from '../../bindings/a2a-legacy/v03/v03-support.js';

/** A v0.3 JSON-RPC call as v0.3 clients send it: slash method, no A2A-Version, no credentials. */
async function rpc03(url: string, method: string, params: unknown): Promise<{ body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { body: await res.json() };
}

let s: TestServer;
let hook: WebhookReceiver;
const WAIT = { timeout: 10_000, interval: 25 };

beforeAll(async () => {
  s = await startTestServer({
    agents: [{ id: 'echo', builtin: 'echo' }],
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'none' },
  });
  hook = await startWebhookReceiver();
});
afterAll(async () => {
  await hook?.close();
  await s?.stop();
});

const bodiesFor = (token: string) => hook.received.filter((r) => r.headers['x-a2a-notification-token'] === token);

describe('push body version', () => {
  it('a v1.0 inline config receives v1.0 StreamResponse bodies with A2A-Version 1.0', async () => {
    const url = `${s.http}/a2a/echo`;
    const r = await rpc(url, 'SendMessage', {
      message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'hi v1' }] },
      configuration: { taskPushNotificationConfig: { url: hook.url, token: 'tok-v1' } },
    });
    const taskId = r.body.result.task.id as string;
    await vi.waitFor(() => expect(bodiesFor('tok-v1').some((b) => b.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED')).toBe(true), WAIT);
    const got = bodiesFor('tok-v1');
    expect(got[0]!.body).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect(got[0]!.headers['content-type']).toBe('application/a2a+json');
    expect(got[0]!.headers['a2a-version']).toBe('1.0');
    expect(got.every((b) => !('kind' in b.body))).toBe(true);
  });

  it('a v0.3 inline config (message/send) receives one v0.3 Task per event, ending completed with the artifact', async () => {
    const url = `${s.http}/a2a/echo`;
    const r = await rpc03(url, 'message/send', {
      message: v03Message('hi v03'),
      configuration: { blocking: true, pushNotificationConfig: { url: hook.url, token: 'tok-v03' } },
    });
    const taskId = r.body.result.id as string;
    await vi.waitFor(() => expect(bodiesFor('tok-v03').some((b) => b.body.status?.state === 'completed')).toBe(true), WAIT);
    const got = bodiesFor('tok-v03');
    // echo: task (submitted), artifact update, completed status → three deliveries, each a snapshot
    expect(got.map((b) => b.body.status.state)).toEqual(['submitted', 'submitted', 'completed']);
    expect(got.map((b) => (b.body.artifacts ?? []).length)).toEqual([0, 1, 1]);
    const last = got.at(-1)!;
    expect(last.body).toMatchObject({ kind: 'task', id: taskId, artifacts: [{ parts: [{ kind: 'text', text: 'hi v03' }] }] });
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers['a2a-version']).toBeUndefined();
  });

  it('a config set with tasks/pushNotificationConfig/set is tagged v0.3, and reads back without the tag on v1.0', async () => {
    const url = `${s.http}/a2a/echo`;
    const sent = await rpc03(url, 'message/send', { message: v03Message('x') });
    const taskId = sent.body.result.id as string;
    const set = await rpc03(url, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: 'c1', url: hook.url, token: 'tok-set' } });
    expect(set.body.result).toEqual({ taskId, pushNotificationConfig: { id: 'c1', url: hook.url, token: 'tok-set' } });
    const v1 = await rpc(url, 'GetTaskPushNotificationConfig', { taskId, id: 'c1' });
    expect(v1.body.result).toEqual({ taskId, id: 'c1', url: hook.url, token: 'tok-set' });
    const list = await rpc(url, 'ListTaskPushNotificationConfigs', { taskId });
    expect(list.body.result.configs).toEqual([{ taskId, id: 'c1', url: hook.url, token: 'tok-set' }]);
  });
});
