/**
 * The official @a2a-js/sdk 1.3 v0.3 gRPC client (`LegacyGrpcTransport`: its own ts-proto build of
 * the v0.3.0 a2a.v1 proto) against a real Agentport server: every call crosses the v0.3 service on
 * the shared gRPC port and our v0.3 translation both ways. v0.3 has no tenant, so the primary agent
 * (conformance here) answers.
 */
import { TaskPushNotificationConfig, type StreamResponse } from '@a2a-js/sdk';
import { LegacyGrpcTransport } from '@a2a-js/sdk/compat/v0_3/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asTask, collect, describeEvent, firstArtifactText, isMessage, rejectionOf, sendRequest, startWebhookReceiver, stateOf, uniqueId } from '../../../interop/sdk-support.js';
import { startTestServer, type TestServer } from '../../../support/server.js';

const API_KEY = 'test-key-grpc-v03-0123456789abcdef';
const CONFIG = {
  agents: [
    { id: 'conformance', builtin: 'conformance' },
    { id: 'echo', builtin: 'echo' },
  ],
  primaryAgent: 'conformance',
  push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
  auth: { mode: 'none', apiKeys: [{ key: API_KEY, subject: 'alice' }] },
};
const AUTH = { serviceParameters: { authorization: `Bearer ${API_KEY}` } };

let s: TestServer;
let t: LegacyGrpcTransport;

beforeAll(async () => {
  s = await startTestServer(CONFIG);
  t = new LegacyGrpcTransport({ endpoint: s.grpc });
});
afterAll(async () => {
  (t as unknown as { grpcClient: { close(): void } } | undefined)?.grpcClient.close();
  await s?.stop();
});

/**
 * Side by side (issue 26, suite time): three cases follow the conformance agent's 4 s task to its end
 * (getTask, resubscribe, the webhook), 12 s of waiting one after another. Each case starts its own
 * tasks (uniqueId) and, for the webhook, its own receiver; the transport only sends requests.
 */
describe.concurrent('@a2a-js/sdk LegacyGrpcTransport (v0.3 gRPC) against Agentport', () => {
  it('the primary agent card declares the v0.3 gRPC interface, other agents do not', async () => {
    const card = (await (await fetch(`${s.http}/a2a/conformance/.well-known/agent-card.json`)).json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toContainEqual({ url: s.grpc, protocolBinding: 'GRPC', protocolVersion: '0.3' });
    const echo = (await (await fetch(`${s.http}/a2a/echo/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Array<{ protocolBinding: string; protocolVersion: string }> };
    expect(echo.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC').map((i) => i.protocolVersion)).toEqual(['1.0']);
  });

  it('sendMessage (blocking) returns the completed task with its artifact', async () => {
    const task = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') }), AUTH));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(task.id).not.toBe('');
    expect(Number.isNaN(Date.parse(task.status?.timestamp ?? ''))).toBe(false);
    expect(task.history.length).toBeGreaterThan(0);
  });

  it('sendMessage returns a Message (the `msg` payload) when the agent replies directly', async () => {
    const r = await t.sendMessage(sendRequest({ messageId: uniqueId('tck-message-response') }));
    expect(isMessage(r)).toBe(true);
    if (isMessage(r)) expect(r.parts.map((p) => p.content)).toEqual([{ $case: 'text', value: 'Direct message response' }]);
  });

  it('non-blocking sendMessage returns before the long task ends; getTask later sees it COMPLETED', async () => {
    const started = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('test-resubscribe-message-id'), configuration: { returnImmediately: true } })));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(started));
    await vi.waitFor(async () => expect(stateOf(await t.getTask({ tenant: '', id: started.id, historyLength: undefined }))).toBe('TASK_STATE_COMPLETED'), {
      timeout: 15_000,
      interval: 100,
    });
  });

  it('sendMessageStream yields task, working, artifact, completed (with v0.3 `final` derived)', async () => {
    const events = await collect(t.sendMessageStream(sendRequest({ messageId: uniqueId('tck-stream-001') })));
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
  });

  it('getTask honours historyLength and answers an unknown id with TaskNotFoundError', async () => {
    const task = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    const one = await t.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(one.id).toBe(task.id);
    expect(one.history).toHaveLength(1);
    expect(await rejectionOf(t.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }))).toBeInstanceOf(TaskNotFoundError);
  });

  it('cancelTask cancels a running task (CANCELLED on the wire) and refuses a completed one', async () => {
    const started = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('test-resubscribe-message-id'), configuration: { returnImmediately: true } })));
    expect(stateOf(await t.cancelTask({ tenant: '', id: started.id, metadata: undefined }))).toBe('TASK_STATE_CANCELED');
    const done = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    expect(await rejectionOf(t.cancelTask({ tenant: '', id: done.id, metadata: undefined }))).toBeInstanceOf(TaskNotCancelableError);
  });

  it('resubscribeTask (TaskSubscription) follows a running task to COMPLETED', async () => {
    const started = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('test-resubscribe-message-id'), configuration: { returnImmediately: true } })));
    const events: StreamResponse[] = await collect(t.resubscribeTask({ tenant: '', id: started.id }));
    expect(describeEvent(events[0]!)).toMatch(/^task:/);
    expect(describeEvent(events.at(-1)!)).toBe('statusUpdate:TASK_STATE_COMPLETED');
  });

  it('push config create, get, list, delete; get after delete is TaskNotFoundError', async () => {
    const task = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    const url = 'http://127.0.0.1:9/hook';
    const created = await t.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c1' } }));
    expect(created).toMatchObject({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c1' } });
    expect(await t.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' })).toMatchObject({ taskId: task.id, id: 'cfg-1', url });
    const listed = await t.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => c.id)).toEqual(['cfg-1']);
    await t.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
    expect(await rejectionOf(t.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }))).toBeInstanceOf(TaskNotFoundError);
  });

  it('a push config registered over v0.3 gRPC receives v0.3 Task bodies (kind, kebab-case state)', async () => {
    const hook = await startWebhookReceiver();
    try {
      const started = asTask(await t.sendMessage(sendRequest({ messageId: uniqueId('test-resubscribe-message-id'), configuration: { returnImmediately: true } })));
      await t.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: started.id, id: 'hook', url: hook.url, token: 'tok-g' }));
      await vi.waitFor(() => expect(hook.received.some((r) => r.body.status?.state === 'completed')).toBe(true), { timeout: 15_000, interval: 50 });
      const last = hook.received.at(-1)!;
      expect(last.headers['x-a2a-notification-token']).toBe('tok-g');
      expect(last.body).toMatchObject({ kind: 'task', id: started.id, status: { state: 'completed' } });
    } finally {
      await hook.close();
    }
  });

  it('getExtendedAgentCard (GetAgentCard) returns the v0.3 card of the primary agent', async () => {
    const card = await t.getExtendedAgentCard({ tenant: '' }, AUTH);
    expect(card.name).not.toBe('');
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(`${s.http}/a2a/conformance`);
    expect(firstArtifactText).toBeTypeOf('function');
  });
});
