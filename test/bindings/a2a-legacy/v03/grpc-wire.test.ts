/**
 * The v0.3 gRPC service on the wire, with a plain grpc-js client built from proto/a2a-v03.proto:
 * what the SDK client cannot show (its own proto hides the raw messages): resource-name
 * validation, undecodable bytes, `update` and `TASK_STATE_CANCELLED` on the wire, error details.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_DETAILS_KEY, decodeStatusDetails } from '../../../../src/protocol/a2a/grpc-status-details.js';
import { v03ServiceDefinition } from '../../../../src/protocol/a2a-v03/grpc-proto.js';
import { startTestServer, type TestServer } from '../../../support/server.js';

let s: TestServer;
let client: grpc.Client;
const service = v03ServiceDefinition();

beforeAll(async () => {
  s = await startTestServer({
    agents: [{ id: 'conformance', builtin: 'conformance' }],
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'none' },
  });
  client = new grpc.Client(s.grpc, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await s?.stop();
});

function unary(method: string, request: object | Buffer): Promise<any> {
  const d = service[method]!;
  const serialize = Buffer.isBuffer(request) ? (b: Buffer) => b : d.requestSerialize;
  return new Promise((resolve, reject) => client.makeUnaryRequest(d.path, serialize as (x: unknown) => Buffer, d.responseDeserialize, request, new grpc.Metadata(), (err, res) => (err ? reject(err) : resolve(res))));
}

async function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

const message = (messageId: string) => ({ messageId, role: 'ROLE_USER', content: [{ text: 'hi' }] });

describe('v0.3 gRPC on the wire', () => {
  it('is served as /a2a.v1.A2AService/* on the v1.0 port', () => {
    expect(service.SendMessage!.path).toBe('/a2a.v1.A2AService/SendMessage');
    expect(service.TaskSubscription!.path).toBe('/a2a.v1.A2AService/TaskSubscription');
  });

  it('SendMessage answers the `task` payload; a status message travels as `update`', async () => {
    const r = await unary('SendMessage', { request: message('tck-input-required-w1') });
    expect(r.payload).toBe('task');
    expect(r.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(r.task.status.update.role).toBe('ROLE_AGENT');
    expect(r.task.status.update.content[0].text).not.toBe('');
    expect(typeof Number(r.task.status.timestamp.seconds)).toBe('number');
  });

  it('a direct reply is the `msg` payload', async () => {
    const r = await unary('SendMessage', { request: message('tck-message-response-w1') });
    expect(r.payload).toBe('msg');
    expect(r.msg.content[0].text).toBe('Direct message response');
  });

  it('CancelTask answers TASK_STATE_CANCELLED (two Ls, the v0.3 enum)', async () => {
    const r = await unary('SendMessage', { request: message('tck-input-required-w2') });
    const canceled = await unary('CancelTask', { name: `tasks/${r.task.id}` });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELLED');
  });

  it('a name that is not tasks/{id} is INVALID_ARGUMENT with a BadRequest on `name`', async () => {
    const err = await failure(unary('GetTask', { name: 'not-a-resource-name' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    const details = decodeStatusDetails(err.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer).details;
    expect(details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS' }));
    expect(details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [expect.objectContaining({ field: 'name' })] }));
  });

  it('SendMessage without a message is INVALID_ARGUMENT naming `message`', async () => {
    const err = await failure(unary('SendMessage', {}));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/message/);
  });

  it('bytes that are not the request message are INVALID_ARGUMENT, not INTERNAL', async () => {
    const err = await failure(unary('GetTask', Buffer.from([0x0a, 0xff, 0xff, 0xff])));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('an unknown task is NOT_FOUND with ErrorInfo TASK_NOT_FOUND', async () => {
    const err = await failure(unary('GetTask', { name: 'tasks/never' }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    const details = decodeStatusDetails(err.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer).details;
    expect(details[0]).toMatchObject({ reason: 'TASK_NOT_FOUND' });
  });

  it('a push config is addressed by resource name; config_id names it when the config has no id', async () => {
    const r = await unary('SendMessage', { request: message('tck-input-required-w3') });
    const created = await unary('CreateTaskPushNotificationConfig', {
      parent: `tasks/${r.task.id}`,
      configId: 'from-config-id',
      config: { pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(created.name).toBe(`tasks/${r.task.id}/pushNotificationConfigs/from-config-id`);
    const listed = await unary('ListTaskPushNotificationConfig', { parent: `tasks/${r.task.id}` });
    expect(listed.configs.map((c: { name: string }) => c.name)).toEqual([created.name]);
    await unary('DeleteTaskPushNotificationConfig', { name: created.name });
    const err = await failure(unary('GetTaskPushNotificationConfig', { name: created.name }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });
});
