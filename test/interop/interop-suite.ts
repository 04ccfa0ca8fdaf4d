/**
 * Interop: the official A2A JS SDK client (@a2a-js/sdk 1.3) drives a real Agentport deployment over
 * each binding the card advertises (JSON-RPC, HTTP+JSON, gRPC). The client is created from our own
 * card and given a single transport factory, so every call below goes over that binding only.
 * The target must serve SERVER_CONFIG's agents (sdk-support.ts).
 */
import { AgentCard, ListTasksRequest, Role, StreamResponse, TaskPushNotificationConfig, verifyAgentCardSignature, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API_KEY,
  asTask,
  bearerAuth,
  closeClient,
  collect,
  describeEvent,
  isMessage,
  jwksKeyLookup,
  rejectionOf,
  sdkClient,
  sendRequest,
  startWebhookReceiver,
  stateOf,
  taskIdOfEvent,
  TERMINAL,
  TRANSPORTS,
  uniqueId,
} from './sdk-support.js';

/** The conformance agent keeps `test-resubscribe-message-id…` tasks WORKING for ~4 s. */
const LONG_TASK = 'test-resubscribe-message-id';
const WAIT = { timeout: 15_000, interval: 100 };

/** Where the suite runs: a base URL whose cards advertise every binding, and how to stop it. */
export interface InteropTarget {
  http: string;
  stop(): Promise<void>;
}

/**
 * The whole interop suite over each transport against `start()`'s server: one Agentport process,
 * or several replicas behind a round-robin proxy (test/distributed/interop-cluster.test.ts).
 */
export function describeInterop(label: string, start: () => Promise<InteropTarget>): void {
  // A binding's cases run side by side (it.concurrent; issue 26, suite time): two of them follow
  // the ~4 s long task to its end, and each case uses its own tasks, contexts (uniqueId) and
  // webhook receiver. The bindings, each with a server of its own, still run one after another.
  describe.each(TRANSPORTS)(`a2a-js SDK client over $binding (${label})`, (transport) => {
    let s: InteropTarget;
    let echo: Client;
    let conformance: Client;
    const extraClients: Client[] = [];

    const echoCardUrl = () => `${s.http}/a2a/echo/.well-known/agent-card.json`;
    const conformanceCardUrl = () => `${s.http}/a2a/conformance/.well-known/agent-card.json`;

    beforeAll(async () => {
      s = await start();
      echo = await sdkClient(echoCardUrl(), transport);
      conformance = await sdkClient(conformanceCardUrl(), transport);
    });

    afterAll(async () => {
      for (const c of [echo, conformance, ...extraClients]) closeClient(c);
      await s?.stop();
    });

    /** Starts the long conformance task without waiting for it. */
    async function startLongTask(): Promise<Task> {
      const r = await conformance.sendMessage(sendRequest({ messageId: uniqueId(LONG_TASK), configuration: { returnImmediately: true } }));
      return asTask(r);
    }

    it.concurrent('picks the card interface of this binding', () => {
      expect(echo.transport.protocolName).toBe(transport.binding);
      expect(conformance.transport.protocolName).toBe(transport.binding);
    });

    // ------------------------------------------------------------------ SendMessage

    it.concurrent('blocking SendMessage returns the COMPLETED echo task with the echoed artifact', async () => {
      const task = asTask(await echo.sendMessage(sendRequest({ text: 'hello interop' })));
      expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
      expect(task.id).not.toBe('');
      expect(task.contextId).not.toBe('');
      expect(Number.isNaN(Date.parse(task.status?.timestamp ?? ''))).toBe(false);
      expect(task.artifacts).toHaveLength(1);
      expect(task.artifacts[0]?.name).toBe('echo');
      expect(task.artifacts[0]?.parts.map((p) => p.content)).toEqual([{ $case: 'text', value: 'hello interop' }]);
      expect(task.history.map((m) => m.parts[0]?.content)).toContainEqual({ $case: 'text', value: 'hello interop' });
    });

    it.concurrent('returnImmediately returns the long task before it finishes; GetTask later shows COMPLETED', async () => {
      const task = await startLongTask();
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(task));
      await vi.waitFor(async () => {
        const now = await conformance.getTask({ tenant: '', id: task.id, historyLength: undefined });
        expect(stateOf(now)).toBe('TASK_STATE_COMPLETED');
      }, WAIT);
    });

    it.concurrent('a direct Message reply arrives as a Message, not a Task', async () => {
      const r = await conformance.sendMessage(sendRequest({ messageId: uniqueId('tck-message-response') }));
      expect(isMessage(r)).toBe(true);
      if (!isMessage(r)) return;
      expect(r.role).toBe(Role.ROLE_AGENT);
      expect(r.messageId).not.toBe('');
      expect(r.parts.map((p) => p.content)).toEqual([{ $case: 'text', value: 'Direct message response' }]);
    });

    // ------------------------------------------------------------------ streaming

    it.concurrent('SendStreamingMessage yields the Task first, then the events in order, ending with COMPLETED', async () => {
      const events = await collect(conformance.sendMessageStream(sendRequest({ messageId: uniqueId('tck-stream-001') })));
      expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
      const taskId = taskIdOfEvent(events[0]!);
      expect(taskId).toBeTruthy();
      expect(events.map(taskIdOfEvent)).toEqual(events.map(() => taskId));
      const artifact = events[2]?.payload?.$case === 'artifactUpdate' ? events[2].payload.value.artifact : undefined;
      expect(artifact?.parts.map((p) => p.content)).toEqual([{ $case: 'text', value: 'Stream hello from TCK' }]);
    });

    it.concurrent('SendStreamingMessage to echo streams the echoed artifact and ends COMPLETED', async () => {
      const events = await collect(echo.sendMessageStream(sendRequest({ text: 'streamed' })));
      expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
      const artifact = events[1]?.payload?.$case === 'artifactUpdate' ? events[1].payload.value.artifact : undefined;
      expect(artifact?.parts.map((p) => p.content)).toEqual([{ $case: 'text', value: 'streamed' }]);
    });

    // ------------------------------------------------------------------ GetTask / ListTasks

    it.concurrent('GetTask honours historyLength: unset → all, 1 → newest only, 0 → none', async () => {
      // tck-complete-task: history = [user message, agent "Hello from TCK"]
      const sent = asTask(await conformance.sendMessage(sendRequest({ messageId: uniqueId('tck-complete-task'), text: 'q' })));
      expect(stateOf(sent)).toBe('TASK_STATE_COMPLETED');

      const all = await conformance.getTask({ tenant: '', id: sent.id, historyLength: undefined });
      expect(all.id).toBe(sent.id);
      expect(all.history.map((m) => m.role)).toEqual([Role.ROLE_USER, Role.ROLE_AGENT]);

      const newest = await conformance.getTask({ tenant: '', id: sent.id, historyLength: 1 });
      expect(newest.history).toHaveLength(1);
      expect(newest.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Hello from TCK' });

      const none = await conformance.getTask({ tenant: '', id: sent.id, historyLength: 0 });
      expect(none.history).toEqual([]);
      expect(stateOf(none)).toBe('TASK_STATE_COMPLETED');
    });

    it.concurrent('GetTask of an unknown id fails with the SDK TaskNotFoundError', async () => {
      const err = await rejectionOf(echo.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }));
      expect(err).toBeInstanceOf(TaskNotFoundError);
      expect(err).toMatchObject({ reason: 'TASK_NOT_FOUND' });
    });

    it.concurrent('ListTasks pages with pageSize 1 and nextPageToken, and the last page has nextPageToken ""', async () => {
      const contextId = uniqueId('ctx-list');
      const created: string[] = [];
      for (let i = 0; i < 3; i++) created.push(asTask(await echo.sendMessage(sendRequest({ contextId, text: `t${i}` }))).id);

      const seen: string[] = [];
      const tokens: string[] = [];
      let pageToken = '';
      for (let page = 0; page < 10; page++) {
        const res = await echo.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 1, ...(pageToken ? { pageToken } : {}) }));
        expect(res.tasks).toHaveLength(1);
        expect(res.totalSize).toBe(3);
        expect(res.pageSize).toBe(1);
        seen.push(res.tasks[0]!.id);
        tokens.push(res.nextPageToken);
        pageToken = res.nextPageToken;
        if (!pageToken) break;
      }
      expect(tokens).toHaveLength(3);
      expect(tokens[0]).not.toBe('');
      expect(tokens[1]).not.toBe('');
      expect(tokens[2]).toBe('');
      expect([...seen].sort()).toEqual([...created].sort());
    });

    // ------------------------------------------------------------------ CancelTask

    it.concurrent('CancelTask cancels the running task, and a second cancel returns it CANCELED again', async () => {
      const task = await startLongTask();
      const canceled = await conformance.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.id).toBe(task.id);
      expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');

      const again = await conformance.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(stateOf(again)).toBe('TASK_STATE_CANCELED');

      const read = await conformance.getTask({ tenant: '', id: task.id, historyLength: undefined });
      expect(stateOf(read)).toBe('TASK_STATE_CANCELED');
    });

    it.concurrent('CancelTask of a COMPLETED task fails with the SDK TaskNotCancelableError', async () => {
      const done = asTask(await echo.sendMessage(sendRequest()));
      const err = await rejectionOf(echo.cancelTask({ tenant: '', id: done.id, metadata: undefined }));
      expect(err).toBeInstanceOf(TaskNotCancelableError);
      expect(err).toMatchObject({ reason: 'TASK_NOT_CANCELABLE' });
    });

    // ------------------------------------------------------------------ SubscribeToTask

    it.concurrent('SubscribeToTask on a running task yields the task snapshot first and ends at COMPLETED', async () => {
      const task = await startLongTask();
      const events = await collect(conformance.resubscribeTask({ tenant: '', id: task.id }));
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events[0]?.payload?.$case).toBe('task');
      expect(taskIdOfEvent(events[0]!)).toBe(task.id);
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(describeEvent(events[0]!).slice('task:'.length));
      expect(describeEvent(events[events.length - 1]!)).toBe('statusUpdate:TASK_STATE_COMPLETED');
      // nothing terminal before the end
      expect(events.slice(0, -1).some((e) => TERMINAL.some((t) => describeEvent(e).endsWith(t)))).toBe(false);
    });

    it.concurrent('SubscribeToTask on a terminal task fails with the SDK UnsupportedOperationError', async () => {
      const done = asTask(await echo.sendMessage(sendRequest()));
      const err = await rejectionOf(collect(echo.resubscribeTask({ tenant: '', id: done.id })));
      expect(err).toBeInstanceOf(UnsupportedOperationError);
    });

    // ------------------------------------------------------------------ push notifications

    it.concurrent('push config CRUD: create, get, list, delete, delete again', async () => {
      // INPUT_REQUIRED keeps the task open and quiet, so no delivery is attempted to the dummy URL.
      const task = asTask(await conformance.sendMessage(sendRequest({ messageId: uniqueId('tck-input-required') })));
      expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
      const url = 'http://127.0.0.1:9/never-called';

      const created = await conformance.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c1' } }),
      );
      expect(created).toMatchObject({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1' });
      expect(created.authentication?.scheme).toBe('Bearer');

      const second = await conformance.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: task.id, url: `${url}/2` }));
      expect(second.id).not.toBe('');
      expect(second.id).not.toBe('cfg-1');

      const got = await conformance.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
      expect(got).toMatchObject({ taskId: task.id, id: 'cfg-1', url, token: 'tok-1' });

      const listed = await conformance.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(listed.configs.map((c) => c.id).sort()).toEqual(['cfg-1', second.id].sort());

      await conformance.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
      await conformance.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });

      const after = await conformance.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(after.configs.map((c) => c.id)).toEqual([second.id]);
      expect(await rejectionOf(conformance.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }))).toBeInstanceOf(TaskNotFoundError);
    });

    it.concurrent('push delivery: an inline SendMessage config receives every StreamResponse in order, with its credentials', async () => {
      const receiver = await startWebhookReceiver();
      try {
        const token = uniqueId('notify-token');
        const task = asTask(
          await echo.sendMessage(
            sendRequest({
              text: 'pushed',
              configuration: {
                taskPushNotificationConfig: { url: receiver.url, token, authentication: { scheme: 'Bearer', credentials: 's3cret' } },
              },
            }),
          ),
        );
        expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');

        await vi.waitFor(() => {
          expect(receiver.received.some((r) => r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED')).toBe(true);
        }, WAIT);

        // every body is a StreamResponse the SDK's own codec reads
        const events = receiver.received.map((r) => StreamResponse.fromJSON(r.body));
        expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
        expect(receiver.received.map((r) => Object.keys(r.body))).toEqual([['task'], ['artifactUpdate'], ['statusUpdate']]);
        const [first, artifact, last] = receiver.received.map((r) => r.body);
        expect(first?.task.id).toBe(task.id);
        expect(artifact?.artifactUpdate.taskId).toBe(task.id);
        expect(artifact?.artifactUpdate.artifact.parts).toEqual([{ text: 'pushed' }]);
        expect(last?.statusUpdate).toMatchObject({ taskId: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
        for (const r of receiver.received) {
          expect(r.method).toBe('POST');
          expect(r.path).toBe('/hook');
          expect(r.headers.authorization).toBe('Bearer s3cret');
          expect(r.headers['x-a2a-notification-token']).toBe(token);
          expect(r.headers['content-type']).toBe('application/a2a+json');
        }
      } finally {
        await receiver.close();
      }
    });

    // ------------------------------------------------------------------ extended card

    it.concurrent('GetExtendedAgentCard with the API key returns the extended card with the extended-only skill', async () => {
      const publicCard = (await (await fetch(echoCardUrl())).json()) as { skills: Array<{ id: string }>; capabilities: { extendedAgentCard?: boolean } };
      expect(publicCard.capabilities.extendedAgentCard).toBe(true);
      expect(publicCard.skills.map((k) => k.id)).not.toContain('echo');

      const authed = await sdkClient(echoCardUrl(), transport, [bearerAuth(API_KEY)]);
      extraClients.push(authed);
      const extended = await authed.getAgentCard();
      expect(extended.name).toBe('Echo');
      expect(extended.skills.map((k) => k.id)).toEqual(['echo']);
    });

    it.concurrent('the extended card fetched over this binding verifies with the SDK verifier against our JWKS', async () => {
      const authed = await sdkClient(echoCardUrl(), transport, [bearerAuth(API_KEY)]);
      extraClients.push(authed);
      const extended = await authed.getAgentCard();
      const jwks = (await (await fetch(`${s.http}/.well-known/jwks.json`)).json()) as { keys: Array<Record<string, unknown>> };
      // The SDK's in-client path, getAgentCard(options, verifier), hands the verifier its decoded
      // (ts-proto) card, which its canonicalizer re-reads as ProtoJSON and so loses the
      // securitySchemes oneof: it cannot verify any card that declares security schemes. Verifying
      // the card's ProtoJSON form is what that path should do.
      const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
      try {
        await expect(verifyAgentCardSignature(jwksKeyLookup(jwks))(AgentCard.toJSON(extended) as AgentCard)).resolves.toBeUndefined();
      } finally {
        debug.mockRestore();
      }
    });

    it.concurrent('GetExtendedAgentCard without credentials fails as an authentication error', async () => {
      const anonymous = await sdkClient(echoCardUrl(), transport);
      extraClients.push(anonymous);
      const err = await rejectionOf(anonymous.getAgentCard());
      switch (transport.binding) {
        case 'GRPC':
          expect(err).toMatchObject({ transport: 'grpc', status: 16 }); // UNAUTHENTICATED
          break;
        case 'HTTP+JSON':
          expect(err).toMatchObject({ transport: 'rest', statusCode: 401 });
          // RFC 9110 §11.6.1: a 401 MUST carry a WWW-Authenticate challenge (A2A §3.3.2: SHOULD
          // include challenge information). The route-level 401 for a wrong key has one.
          expect((err as { headers?: Record<string, unknown> }).headers?.['www-authenticate']).toBeDefined();
          break;
        case 'JSONRPC':
          expect(err).toMatchObject({ transport: 'jsonrpc', data: [expect.objectContaining({ reason: 'UNAUTHENTICATED' })] });
          // A2A §3.3.2: authentication errors are a JSON-RPC *custom* error; -32600 is JSON-RPC's
          // "not a valid Request object" (§9.5), which the SDK surfaces as RequestMalformedError.
          expect(err).not.toBeInstanceOf(RequestMalformedError);
          break;
      }
    });
  });
}
