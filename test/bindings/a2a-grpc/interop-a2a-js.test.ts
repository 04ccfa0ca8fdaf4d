/**
 * Interop: the reference a2a-js SDK (1.3, its own ts-proto build of lf.a2a.v1 and its own
 * google.rpc.Status decoder) talks to our server. This pins the wire format and the error details
 * against an implementation we did not write.
 */
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcServer, type GrpcServer } from '../../../src/bindings/a2a-grpc/server.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { FakeHandler } from './fake-handler.js';
import { userMessage } from './fixtures.js';

type Transport = Awaited<ReturnType<GrpcTransportFactory['create']>>;
type TheirSendMessageRequest = Parameters<Transport['sendMessage']>[0];

const V1 = { serviceParameters: { 'a2a-version': '1.0' } };

let server: GrpcServer;
let handler: FakeHandler;
let transport: Transport;

beforeAll(async () => {
  handler = new FakeHandler();
  server = createGrpcServer({ handler, defaultAgentId: 'default-agent' });
  const port = await server.listen('127.0.0.1', 0);
  // the card only matters for v0.3 fallback, which is off
  transport = await new GrpcTransportFactory().create(`127.0.0.1:${port}`, {} as Parameters<GrpcTransportFactory['create']>[1]);
});

afterAll(async () => {
  await server.close();
});

const theirRequest: TheirSendMessageRequest = {
  tenant: '',
  message: {
    messageId: 'msg-1',
    contextId: 'ctx-1',
    taskId: '',
    role: 1, // ROLE_USER
    parts: [
      { content: { $case: 'text', value: 'hello' }, metadata: { lang: 'en' }, filename: '', mediaType: '' },
      { content: { $case: 'raw', value: Buffer.from([0, 1, 2]) }, metadata: undefined, filename: 'a.bin', mediaType: 'application/octet-stream' },
      { content: { $case: 'data', value: { k: [1, null, { x: true }] } }, metadata: undefined, filename: '', mediaType: '' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
};

describe('interop with the a2a-js 1.3 gRPC transport', () => {
  it('SendMessage: their encoding decodes to exactly our model, and our response decodes on their side', async () => {
    handler.calls = [];
    const result = await transport.sendMessage(theirRequest, V1);
    expect(handler.calls[0]?.req).toStrictEqual({
      message: {
        messageId: 'msg-1',
        contextId: 'ctx-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hello', metadata: { lang: 'en' } }, { raw: Buffer.from([0, 1, 2]).toString('base64'), filename: 'a.bin', mediaType: 'application/octet-stream' }, { data: { k: [1, null, { x: true }] } }],
      },
    });
    expect(result).toMatchObject({ messageId: 'msg-2', role: 2, parts: [{ content: { $case: 'text', value: 'working on it' } }] });
  });

  it('SendStreamingMessage: every StreamResponse payload arrives as its oneof case', async () => {
    const cases: string[] = [];
    for await (const response of transport.sendMessageStream(theirRequest, V1)) cases.push(String(response.payload?.$case));
    expect(cases).toEqual(['task', 'statusUpdate', 'artifactUpdate']);
  });

  it('GetTask: historyLength presence and the Task with its timestamp', async () => {
    handler.calls = [];
    const task = await transport.getTask({ tenant: '', id: 'task-1', historyLength: 0 }, V1);
    expect(handler.calls[0]?.req).toStrictEqual({ id: 'task-1', historyLength: 0 });
    expect(task.id).toBe('task-1');
    expect(task.status?.timestamp).toBe('2026-03-04T05:06:07.089Z');
    expect(task.history?.[0]?.messageId).toBe(userMessage.messageId);
  });

  it('their error decoder reads our ErrorInfo: a missing version becomes their VersionNotSupported error', async () => {
    const err: unknown = await transport.getTask({ tenant: '', id: 'task-1', historyLength: undefined }).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED', status: 9 });
  });

  it('their error decoder reads our ErrorInfo metadata: TaskNotFound', async () => {
    handler.getTaskImpl = () => Promise.reject(new A2AError('TaskNotFound', 'Task not found', { metadata: { taskId: 'nope' } }));
    const err: unknown = await transport.getTask({ tenant: '', id: 'nope', historyLength: undefined }, V1).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'TASK_NOT_FOUND', status: 5, metadata: { taskId: 'nope' } });
  });
});
