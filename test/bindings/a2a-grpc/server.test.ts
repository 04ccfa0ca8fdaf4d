import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamItem } from '../../../src/core/a2a-handler.js';
import { ANONYMOUS, type Principal } from '../../../src/core/authz/principal.js';
import { A2A_METHODS } from '../../../src/bindings/a2a-grpc/methods.js';
import { a2aServiceDefinition } from '../../../src/protocol/a2a/grpc-proto.js';
import { createGrpcServer, type GrpcServer, type GrpcServerOptions } from '../../../src/bindings/a2a-grpc/server.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import * as codec from '../../../src/protocol/a2a/grpc-codec.js';
import type { StreamResponse } from '../../../src/protocol/a2a/types.js';
import { collect, connect, errorOf, richStatus, type A2AGrpcTestClient } from './client.js';
import { FakeHandler, streamItems } from './fake-handler.js';
import { agentMessage, task, userMessage } from './fixtures.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

let running: { server: GrpcServer; client: A2AGrpcTestClient }[] = [];

async function start(extra: Partial<GrpcServerOptions> = {}) {
  const handler = new FakeHandler();
  const log = { error: vi.fn() };
  const server = createGrpcServer({ handler, defaultAgentId: 'default-agent', log, ...extra });
  const port = await server.listen('127.0.0.1', 0);
  const client = connect(port);
  running.push({ server, client });
  return { handler, client, log, server };
}

afterEach(async () => {
  for (const { server, client } of running) {
    client.close();
    await server.close();
  }
  running = [];
});

describe('gRPC binding: service surface', () => {
  it('implements every lf.a2a.v1.A2AService method and nothing else', () => {
    expect(Object.keys(A2A_METHODS).sort()).toEqual(Object.keys(a2aServiceDefinition()).sort());
  });

  it('listen on port 0 resolves with the bound port', async () => {
    const server = createGrpcServer({ handler: new FakeHandler(), defaultAgentId: 'default-agent' });
    const port = await server.listen('127.0.0.1', 0);
    expect(port).toBeGreaterThan(0);
    await server.close();
  });
});

describe('gRPC binding: unary calls', () => {
  it('GetTask decodes the request exactly (historyLength 0 kept) and returns the encoded Task', async () => {
    const { handler, client } = await start();
    const { response } = await client.unary<codec.WireTask>('GetTask', { id: 'task-1', historyLength: 0 });
    expect(codec.decodeTask(response)).toStrictEqual(task);
    const [call] = handler.calls;
    expect(call?.req).toStrictEqual({ id: 'task-1', historyLength: 0 });
    expect(call?.ctx.agentId).toBe('default-agent');
    expect(call?.ctx.principal).toBe(ANONYMOUS);
    expect(call?.ctx.signal).toBeInstanceOf(AbortSignal);
  });

  it('GetTask without historyLength hands the core no historyLength at all', async () => {
    const { handler, client } = await start();
    await client.unary('GetTask', { id: 'task-1' });
    expect(handler.calls[0]?.req).toStrictEqual({ id: 'task-1' });
  });

  it('SendMessage returns the SendMessageResponse oneof', async () => {
    const { handler, client } = await start();
    const { response } = await client.unary<codec.WireSendMessageResponse>('SendMessage', { message: codec.encodeMessage(userMessage) });
    expect(codec.decodeSendMessageResponse(response)).toStrictEqual({ message: agentMessage });
    expect(handler.calls[0]?.req).toStrictEqual({ message: userMessage });
  });

  it('DeleteTaskPushNotificationConfig returns google.protobuf.Empty', async () => {
    const { handler, client } = await start();
    const { response } = await client.unary('DeleteTaskPushNotificationConfig', { taskId: 'task-1', id: 'cfg-1' });
    expect(response).toStrictEqual({});
    expect(handler.calls[0]?.req).toStrictEqual({ taskId: 'task-1', id: 'cfg-1' });
  });

  it('a request missing a REQUIRED field is INVALID_ARGUMENT with BadRequest, and the core is not called', async () => {
    const { handler, client } = await start();
    const err = await errorOf(client.unary('SendMessage', { tenant: '' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    const status = richStatus(err);
    expect(status.details).toContainEqual({ '@type': ERROR_INFO, reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' });
    expect(status.details).toContainEqual({ '@type': BAD_REQUEST, fieldViolations: [{ field: 'message', description: 'is required' }] });
    expect(handler.calls).toHaveLength(0);
  });
});

describe('gRPC binding: streaming calls', () => {
  it('SendStreamingMessage writes each StreamItem.response in order, then ends', async () => {
    const { client } = await start();
    const { items, error } = await collect(client.stream<codec.WireStreamResponse>('SendStreamingMessage', { message: codec.encodeMessage(userMessage) }));
    expect(error).toBeUndefined();
    expect(items.map(codec.decodeStreamResponse)).toStrictEqual(streamItems);
  });

  it('an error after the first item ends the call with that error status', async () => {
    const { handler, client } = await start();
    handler.stream = async function* () {
      yield { response: streamItems[0] as StreamResponse };
      throw new A2AError('TaskNotFound', "Task 'task-1' not found", { metadata: { taskId: 'task-1' } });
    };
    const { items, error } = await collect(client.stream('SubscribeToTask', { id: 'task-1' }));
    expect(items).toHaveLength(1);
    expect(error?.code).toBe(grpc.status.NOT_FOUND);
    expect(error?.details).toBe("Task 'task-1' not found");
    expect(richStatus(error as grpc.ServiceError).details[0]).toStrictEqual({
      '@type': ERROR_INFO,
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 'task-1' },
    });
  });

  it('a client cancel reaches the iterator return() and aborts ctx.signal', async () => {
    const { handler, client } = await start();
    let signal: AbortSignal | undefined;
    let returned = false;
    let wake: (r: IteratorResult<StreamItem>) => void = () => undefined;
    handler.stream = (ctx) => {
      signal = ctx.signal;
      let sent = false;
      const iterator: AsyncIterator<StreamItem> & AsyncIterable<StreamItem> = {
        next: () => {
          if (!sent) {
            sent = true;
            return Promise.resolve({ done: false, value: { response: streamItems[0] as StreamResponse } });
          }
          return new Promise((resolve) => (wake = resolve)); // parked, like a live subscription
        },
        return: () => {
          returned = true;
          wake({ done: true, value: undefined });
          return Promise.resolve({ done: true, value: undefined });
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    };
    const call = client.stream('SubscribeToTask', { id: 'task-1' });
    call.on('error', () => undefined); // CANCELLED, expected
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    call.cancel();
    await vi.waitFor(() => expect(returned).toBe(true));
    expect(signal?.aborted).toBe(true);
  });

  it('a client cancel lets an async generator parked on ctx.signal run its finally block', async () => {
    const { handler, client } = await start();
    let cleanedUp = false;
    handler.stream = async function* (ctx) {
      try {
        yield { response: streamItems[0] as StreamResponse };
        await new Promise((resolve) => ctx.signal?.addEventListener('abort', resolve));
        yield { response: streamItems[1] as StreamResponse };
      } finally {
        cleanedUp = true;
      }
    };
    const call = client.stream('SubscribeToTask', { id: 'task-1' });
    call.on('error', () => undefined);
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    call.cancel();
    await vi.waitFor(() => expect(cleanedUp).toBe(true));
  });
});

describe('gRPC binding: A2A-Version', () => {
  it('a call without a2a-version is a 0.3 call: FAILED_PRECONDITION with ErrorInfo VERSION_NOT_SUPPORTED', async () => {
    const { handler, client } = await start();
    const err = await errorOf(client.unary('GetTask', { id: 'task-1' }, { 'a2a-version': '' }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toBe('No a2a-version was sent, which means 0.3; this endpoint supports 1.0');
    expect(richStatus(err)).toStrictEqual({
      code: grpc.status.FAILED_PRECONDITION,
      message: 'No a2a-version was sent, which means 0.3; this endpoint supports 1.0',
      details: [
        {
          '@type': ERROR_INFO,
          reason: 'VERSION_NOT_SUPPORTED',
          domain: 'a2a-protocol.org',
          metadata: { requestedVersion: '0.3', supportedVersions: '1.0' },
        },
      ],
    });
    expect(handler.calls).toHaveLength(0);
  });

  it.each(['2.0', '1.1', '0.3', 'latest'])('rejects a2a-version %s', async (version) => {
    const { client } = await start();
    const err = await errorOf(client.unary('GetTask', { id: 'task-1' }, { 'a2a-version': version }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(richStatus(err).details[0]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED', metadata: { requestedVersion: version } });
  });

  it.each(['1.0', '1.0.1', '1.0.42'])('accepts a2a-version %j, ignoring the patch', async (version) => {
    const { client } = await start();
    await expect(client.unary('GetTask', { id: 'task-1' }, { 'a2a-version': version })).resolves.toBeDefined();
  });

  it('rejects a streaming call before any item is written', async () => {
    const { handler, client } = await start();
    const { items, error } = await collect(client.stream('SendStreamingMessage', { message: codec.encodeMessage(userMessage) }, { 'a2a-version': '0.3' }));
    expect(items).toHaveLength(0);
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(richStatus(error as grpc.ServiceError).details[0]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED' });
    expect(handler.calls).toHaveLength(0);
  });
});

describe('gRPC binding: A2A-Extensions', () => {
  it('refuses a call that does not activate a required extension', async () => {
    const { handler, client } = await start();
    const err = await errorOf(client.unary('GetTask', { tenant: 'ext-agent', id: 'task-1' }, { 'a2a-extensions': 'urn:ext:a' }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(richStatus(err).details[0]).toStrictEqual({
      '@type': ERROR_INFO,
      reason: 'EXTENSION_SUPPORT_REQUIRED',
      domain: 'a2a-protocol.org',
      metadata: { requiredExtensions: 'urn:ext:req' },
    });
    expect(handler.calls).toHaveLength(0);
  });

  it('echoes the activated extensions (requested ∩ supported) and passes all requested ones to the core', async () => {
    const { handler, client } = await start();
    const { metadata } = await client.unary('GetTask', { tenant: 'ext-agent', id: 'task-1' }, { 'a2a-extensions': 'urn:ext:req, urn:unknown,urn:ext:a' });
    expect(metadata.get('a2a-extensions')).toEqual(['urn:ext:req,urn:ext:a']);
    expect(handler.calls[0]?.ctx.requestedExtensions).toEqual(['urn:ext:req', 'urn:unknown', 'urn:ext:a']);
  });

  it('echoes activated extensions on a stream too', async () => {
    const { client } = await start();
    const { headers, error } = await collect(client.stream('SubscribeToTask', { tenant: 'ext-agent', id: 'task-1' }, { 'a2a-extensions': 'urn:ext:req' }));
    expect(error).toBeUndefined();
    expect(headers?.get('a2a-extensions')).toEqual(['urn:ext:req']);
  });

  it('sends no a2a-extensions header when nothing was activated', async () => {
    const { client } = await start();
    const { metadata } = await client.unary('GetTask', { id: 'task-1' }, { 'a2a-extensions': 'urn:ext:a' });
    expect(metadata.get('a2a-extensions')).toEqual([]);
  });
});

describe('gRPC binding: tenant routing', () => {
  it('routes by the request tenant, and an empty tenant to the default agent', async () => {
    const { handler, client } = await start();
    await client.unary('GetTask', { tenant: 'other-agent', id: 'task-1' });
    await client.unary('GetTask', { tenant: '', id: 'task-1' });
    expect(handler.calls.map((c) => c.ctx.agentId)).toEqual(['other-agent', 'default-agent']);
    expect(handler.calls[0]?.req).toStrictEqual({ tenant: 'other-agent', id: 'task-1' });
  });

  it('an unknown tenant is INVALID_ARGUMENT naming the tenant field', async () => {
    const { handler, client } = await start();
    const err = await errorOf(client.unary('GetTask', { tenant: 'nobody', id: 'task-1' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe("Unknown tenant 'nobody'");
    expect(richStatus(err).details).toContainEqual({
      '@type': BAD_REQUEST,
      fieldViolations: [{ field: 'tenant', description: 'no agent is served under this tenant' }],
    });
    expect(handler.calls).toHaveLength(0);
  });
});

describe('gRPC binding: authentication and internal errors', () => {
  it('passes the authenticated principal to the core', async () => {
    const alice: Principal = { subject: 'alice', authenticated: true, scopes: ['a2a'] };
    const authenticate = vi.fn(async (md: grpc.Metadata) => {
      if (md.get('authorization')[0] !== 'Bearer good') throw new A2AError('Unauthenticated');
      return alice;
    });
    const { handler, client } = await start({ authenticate });
    await client.unary('GetTask', { id: 'task-1' }, { authorization: 'Bearer good' });
    expect(handler.calls[0]?.ctx.principal).toBe(alice);
    const err = await errorOf(client.unary('GetTask', { id: 'task-1' }, { authorization: 'Bearer bad' }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(richStatus(err).details[0]).toMatchObject({ reason: 'UNAUTHENTICATED' });
  });

  it('an unexpected exception is INTERNAL with a generic message; its text only reaches the log', async () => {
    const { handler, client, log } = await start();
    const secret = new Error('connection to postgres://admin:hunter2@db failed');
    handler.getTaskImpl = () => Promise.reject(secret);
    const err = await errorOf(client.unary('GetTask', { id: 'task-1' }));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe('Internal error');
    const raw = err.metadata.get('grpc-status-details-bin')[0] as Buffer;
    expect(raw.toString('latin1')).not.toContain('hunter2');
    expect(richStatus(err).details).toStrictEqual([{ '@type': ERROR_INFO, reason: 'INTERNAL_ERROR', domain: 'a2a-protocol.org' }]);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ err: secret, method: 'GetTask' }), expect.any(String));
  });
});

describe('gRPC binding: shutdown', () => {
  it('close() cancels streams still open after the grace period', async () => {
    const { handler, client, server } = await start({ shutdownGraceMs: 50 });
    let cleanedUp = false;
    handler.stream = async function* (ctx) {
      try {
        yield { response: streamItems[0] as StreamResponse };
        await new Promise((resolve) => ctx.signal?.addEventListener('abort', resolve));
      } finally {
        cleanedUp = true;
      }
    };
    const call = client.stream('SubscribeToTask', { id: 'task-1' });
    const done = collect(call);
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    await server.close();
    expect((await done).error).toBeDefined();
    await vi.waitFor(() => expect(cleanedUp).toBe(true));
  });
});
