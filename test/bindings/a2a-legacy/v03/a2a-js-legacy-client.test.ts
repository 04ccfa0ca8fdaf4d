/**
 * The official @a2a-js/sdk 1.3 v0.3 JSON-RPC client (`LegacyJsonRpcTransport`, its compat mode)
 * against Agentport: it sends slash methods without A2A-Version and parses v0.3 results, so every
 * call here crosses our v0.3 translation both ways.
 */
import { TaskPushNotificationConfig, type StreamResponse } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTask, describeEvent, isMessage, sendRequest, stateOf, uniqueId } from '../../../interop/sdk-support.js';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { API_KEY, V03_SERVER_CONFIG } from './v03-support.js';

let s: TestServer;
let echo: LegacyJsonRpcTransport;
let conf: LegacyJsonRpcTransport;

/** The transport has no auth hook of its own: the API key goes in through its fetch. */
const authedFetch: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: `Bearer ${API_KEY}` } });

beforeAll(async () => {
  s = await startTestServer(V03_SERVER_CONFIG);
  echo = new LegacyJsonRpcTransport({ endpoint: `${s.http}/a2a/echo`, fetchImpl: authedFetch });
  conf = new LegacyJsonRpcTransport({ endpoint: `${s.http}/a2a/conformance`, fetchImpl: authedFetch });
});
afterAll(async () => {
  await s?.stop();
});

async function collect(it: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of it) out.push(ev);
  return out;
}

const rejectionOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('@a2a-js/sdk LegacyJsonRpcTransport (v0.3) against Agentport', () => {
  it('speaks v0.3', () => {
    expect(echo.protocolVersion).toBe('0.3');
  });

  it('sendMessage returns the completed echo task with the text echoed as an artifact', async () => {
    const task = asTask(await echo.sendMessage(sendRequest({ text: 'hi from v0.3' })));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'hi from v0.3' });
  });

  it('sendMessage returns a Message when the agent replies directly', async () => {
    const r = await conf.sendMessage(sendRequest({ messageId: uniqueId('tck-message-response') }));
    expect(isMessage(r)).toBe(true);
  });

  it('sendMessageStream yields task, working, artifact, completed', async () => {
    const events = await collect(conf.sendMessageStream(sendRequest({ messageId: uniqueId('tck-stream-001') })));
    expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
  });

  it('getTask and cancelTask, with TaskNotFound and TaskNotCancelable as typed errors', async () => {
    const task = asTask(await echo.sendMessage(sendRequest()));
    const got = await echo.getTask({ tenant: '', id: task.id, historyLength: 10 });
    expect(got.id).toBe(task.id);
    expect(await rejectionOf(echo.getTask({ tenant: '', id: 'missing', historyLength: 0 }))).toBeInstanceOf(TaskNotFoundError);
    expect(await rejectionOf(echo.cancelTask({ tenant: '', id: task.id, metadata: undefined }))).toBeInstanceOf(TaskNotCancelableError);
  });

  it('resubscribeTask follows a running task to its cancellation', async () => {
    const started = asTask(await conf.sendMessage(sendRequest({ messageId: uniqueId('test-resubscribe-message-id'), configuration: { returnImmediately: true } })));
    const events: StreamResponse[] = [];
    const done = (async () => {
      for await (const ev of conf.resubscribeTask({ tenant: '', id: started.id })) events.push(ev);
    })();
    while (!events.length) await new Promise((r) => setTimeout(r, 20));
    const canceled = await conf.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');
    await done;
    expect(describeEvent(events[0]!)).toMatch(/^task:/);
    expect(describeEvent(events.at(-1)!)).toBe('statusUpdate:TASK_STATE_CANCELED');
  });

  it('push config create, get, list, delete', async () => {
    const task = asTask(await conf.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task') })));
    const url = 'http://127.0.0.1:9/hook';
    const created = await conf.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c1' } }));
    expect(created).toMatchObject({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c1' } });
    expect(await conf.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' })).toMatchObject({ id: 'cfg-1', url });
    const listed = await conf.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => c.id)).toEqual(['cfg-1']);
    await conf.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
    expect(await rejectionOf(conf.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }))).toBeInstanceOf(TaskNotFoundError);
  });

  it('getExtendedAgentCard parses our v0.3 card, extended skill included', async () => {
    const card = await echo.getExtendedAgentCard({ tenant: '' });
    expect(card.name).toBe('Echo');
    expect(card.skills.map((sk) => sk.id)).toContain('echo');
    expect(card.supportedInterfaces[0]?.url).toMatch(/\/a2a\/echo$/);
  });
});
