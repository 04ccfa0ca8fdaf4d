/**
 * The v0.3 row of the interop matrix (docs/compliance.md): the official @a2a-js/sdk 1.3 client in
 * its v0.3 compat mode. The client reads our v0.3 card (`/.well-known/agent.json`) through the
 * SDK's resolver with `legacyCompat`, which stamps the interfaces 0.3, and a transport factory with
 * `legacyCompat` then builds the SDK's v0.3 transport for the one binding it is given. So every
 * call below is chosen by the SDK from our card and crosses our v0.3 translation. The v1.0 row is
 * interop-suite.ts; this file runs the same core operations for each binding in v0.3.
 */
import { Role, TaskPushNotificationConfig, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { asTask, bearerAuth, closeClient, collect, describeEvent, isMessage, rejectionOf, sendRequest, startWebhookReceiver, stateOf, uniqueId } from './sdk-support.js';

const API_KEY = 'test-key-v03-compat-0123456789abcdef';
const LONG_TASK = 'test-resubscribe-message-id';
const WAIT = { timeout: 15_000, interval: 100 };

const CELLS: Array<{ binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'; factory: () => TransportFactory }> = [
  { binding: 'JSONRPC', factory: () => new JsonRpcTransportFactory({ legacyCompat: { enabled: true } }) },
  { binding: 'HTTP+JSON', factory: () => new RestTransportFactory({ legacyCompat: { enabled: true } }) },
  { binding: 'GRPC', factory: () => new GrpcTransportFactory({ legacyCompat: { enabled: true } }) },
];

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    // conformance is primary: the v0.3 gRPC service (no tenant) serves the primary agent
    agents: [
      { id: 'conformance', builtin: 'conformance', skills: { tck: { visibility: 'extended' } } },
      { id: 'echo', builtin: 'echo' },
    ],
    primaryAgent: 'conformance',
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'none', apiKeys: [{ key: API_KEY, subject: 'alice' }] },
  });
});
afterAll(async () => {
  await s?.stop();
});

/**
 * Side by side (issue 26, suite time): three cases per binding follow a 4 s task to its end
 * (LONG_TASK), 36 s of waiting one after another. Each case starts its own task (uniqueId) and,
 * for push, its own webhook receiver; the client only sends requests.
 */
describe.concurrent.each(CELLS)('a2a-js SDK client in v0.3 compat mode over $binding', (cell) => {
  let client: Client;

  beforeAll(async () => {
    const factory = new ClientFactory({
      transports: [cell.factory()],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
      clientConfig: { interceptors: [bearerAuth(API_KEY)] },
    });
    client = await factory.createFromUrl(`${s.http}/a2a/conformance/.well-known/agent.json`, '');
  });
  afterAll(() => closeClient(client));

  const longTask = async (): Promise<Task> => asTask(await client.sendMessage(sendRequest({ messageId: uniqueId(LONG_TASK), configuration: { returnImmediately: true } })));

  it('picks the v0.3 interface of this binding from our card', () => {
    expect(client.transport.protocolName).toBe(cell.binding);
    expect(client.transport.protocolVersion).toBe('0.3');
  });

  it('blocking sendMessage returns the completed task', async () => {
    const task = asTask(await client.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(task.history.length).toBeGreaterThan(0);
  });

  it('a direct reply arrives as a Message', async () => {
    const r = await client.sendMessage(sendRequest({ messageId: uniqueId('tck-message-response') }));
    expect(isMessage(r)).toBe(true);
    if (isMessage(r)) expect(r.role).toBe(Role.ROLE_AGENT);
  });

  it('sendMessageStream yields task, working, artifact, completed', async () => {
    const events = await collect(client.sendMessageStream(sendRequest({ messageId: uniqueId('tck-stream-001') })));
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
  });

  it('getTask follows a non-blocking task to COMPLETED; an unknown id is TaskNotFoundError', async () => {
    const started = await longTask();
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(started));
    await vi.waitFor(async () => expect(stateOf(await client.getTask({ tenant: '', id: started.id, historyLength: undefined }))).toBe('TASK_STATE_COMPLETED'), WAIT);
    expect(await rejectionOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }))).toBeInstanceOf(TaskNotFoundError);
  });

  it('cancelTask cancels a running task and refuses a completed one with TaskNotCancelableError', async () => {
    const started = await longTask();
    expect(stateOf(await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }))).toBe('TASK_STATE_CANCELED');
    const done = asTask(await client.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    expect(await rejectionOf(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }))).toBeInstanceOf(TaskNotCancelableError);
  });

  it('resubscribeTask follows a running task to COMPLETED', async () => {
    const started = await longTask();
    const events = await collect(client.resubscribeTask({ tenant: '', id: started.id }));
    expect(describeEvent(events[0]!)).toMatch(/^task:/);
    expect(describeEvent(events.at(-1)!)).toBe('statusUpdate:TASK_STATE_COMPLETED');
  });

  it('push config create, get, list, delete, and a v0.3 Task body at the webhook', async () => {
    const hook = await startWebhookReceiver();
    try {
      const started = await longTask();
      const cfg = TaskPushNotificationConfig.fromJSON({ taskId: started.id, id: 'cfg-1', url: hook.url, token: 'tok-1' });
      expect(await client.createTaskPushNotificationConfig(cfg)).toMatchObject({ taskId: started.id, id: 'cfg-1', url: hook.url, token: 'tok-1' });
      expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'cfg-1' })).toMatchObject({ id: 'cfg-1', url: hook.url });
      expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual(['cfg-1']);
      await vi.waitFor(() => expect(hook.received.some((r) => r.body.status?.state === 'completed')).toBe(true), WAIT);
      expect(hook.received.at(-1)!.body).toMatchObject({ kind: 'task', id: started.id });
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'cfg-1' });
      expect(await rejectionOf(client.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'cfg-1' }))).toBeInstanceOf(TaskNotFoundError);
    } finally {
      await hook.close();
    }
  });

  it('getAgentCard fetches the extended card (its extended-only skill) over this binding, parsed from its v0.3 shape', async () => {
    const publicCard = (await (await fetch(`${s.http}/a2a/conformance/.well-known/agent.json`)).json()) as { skills: Array<{ id: string }> };
    expect(publicCard.skills.map((k) => k.id)).not.toContain('tck');
    const card = await client.getAgentCard();
    expect(card.skills.map((k) => k.id)).toEqual(['tck']);
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(`${s.http}/a2a/conformance`);
  });
});
