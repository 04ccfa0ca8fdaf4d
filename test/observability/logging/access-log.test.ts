/**
 * The access log over a real server: one `access` line per request on HTTP and gRPC, with the
 * request id the client sent (or the one the server gave), the caller, face, operation, agent,
 * status, bytes and latency; probes are not logged, and with the access log off there is no line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, headerAuth, textMessage } from '../../../src/client/index.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { captureLog, type CapturedLog } from './capture.js';

const KEY = 'access-log-test-key-0001';

async function start(accessLog: boolean, log: CapturedLog): Promise<TestServer> {
  return startTestServer(
    { auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'ops-bot', scopes: ['a2a:discover', 'a2a:publish'] }] }, agents: [{ id: 'echo', builtin: 'echo' }], logging: { accessLog } },
    { services: { logDestination: log } },
  );
}

const accessLines = (log: CapturedLog) => log.records().filter((r) => r.module === 'access');

describe('access log', () => {
  const log = captureLog();
  let s: TestServer;
  beforeAll(async () => {
    s = await start(true, log);
  });
  afterAll(() => s.stop());

  it('writes one line per HTTP request with the request id, caller, face, operation, agent, status, bytes and latency', async () => {
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hello access log') }, { 'x-api-key': KEY, 'x-request-id': 'client-req-0001' });
    expect(sent.status).toBe(200);
    const missing = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 'no-such-task' }, { 'x-api-key': KEY });
    const refused = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 'no-such-task' });
    expect(refused.status).toBe(401);
    expect((await fetch(`${s.http}/healthz`)).status).toBe(200);
    await expect.poll(() => accessLines(log).length).toBe(3);
    const [send, get, anonymous] = accessLines(log);
    expect(send).toMatchObject({
      level: 30,
      msg: 'request',
      reqId: 'client-req-0001',
      subject: 'ops-bot',
      face: expect.stringMatching(/^a2a-jsonrpc/),
      operation: 'SendMessage',
      agent: 'echo',
      status: 200,
      bytesIn: expect.any(Number),
      bytesOut: expect.any(Number),
      latencyMs: expect.any(Number),
    });
    expect(send!.bytesIn).toBeGreaterThan(50);
    expect(send!.bytesOut).toBeGreaterThan(100);
    expect(send).not.toHaveProperty('trace_id');
    expect(get).toMatchObject({ reqId: missing.headers.get('x-request-id'), operation: 'GetTask', subject: 'ops-bot', status: 200, outcome: 'TASK_NOT_FOUND' });
    expect(anonymous).toMatchObject({ reqId: refused.headers.get('x-request-id'), status: 401 });
    expect(anonymous).not.toHaveProperty('subject', 'ops-bot');
  });

  it('writes one line per gRPC call, with the x-request-id of its metadata', async () => {
    const before = accessLines(log).length;
    const client = await A2AClient.connect(`${s.http}/a2a/echo`, { bindings: ['GRPC'], auth: headerAuth({ 'x-api-key': KEY, 'x-request-id': 'grpc-req-0001' }) });
    try {
      await client.sendMessage({ message: textMessage('over gRPC') });
    } finally {
      client.close();
    }
    await expect
      .poll(
        () =>
          accessLines(log)
            .slice(before)
            .filter((r) => r.face !== 'cards').length,
      )
      .toBe(1);
    const grpcLine = accessLines(log)
      .slice(before)
      .find((r) => String(r.face).startsWith('a2a-grpc'));
    expect(grpcLine).toMatchObject({ reqId: 'grpc-req-0001', subject: 'ops-bot', operation: 'SendMessage', agent: 'echo', status: 200 });
  });
});

describe('access log off', () => {
  it('writes no access line', async () => {
    const log = captureLog();
    const s = await start(false, log);
    try {
      expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('quiet') }, { 'x-api-key': KEY })).status).toBe(200);
    } finally {
      await s.stop();
    }
    expect(accessLines(log)).toEqual([]);
  });
});
