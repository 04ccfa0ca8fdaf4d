import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';

describe('agentport serve with defaults', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  it('serves the echo agent card at the root well-known path with every binding', async () => {
    const res = await fetch(`${s.http}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.name).toBe('Echo');
    expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC', 'JSONRPC', 'HTTP+JSON', 'GRPC']);
    expect(card.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion)).toEqual(['1.0', '1.0', '1.0', '0.3', '0.3', '0.3']);
    expect(card.supportedInterfaces[0].url).toBe(`${s.http}/a2a/echo`);
  });

  it('completes a blocking echo SendMessage over JSON-RPC', async () => {
    const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('hello') });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.body.result.task.artifacts[0].parts).toEqual([{ text: 'hello' }]);
  });
});
