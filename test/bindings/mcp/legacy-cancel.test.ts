import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';
import { post } from './clients.js';

const PROBE = fileURLToPath(new URL('../../fixtures/agents/probe-agent.ts', import.meta.url));

describe('legacy notifications/cancelled on the stateless endpoint', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'probe', module: PROBE }] });
  });
  afterAll(async () => s?.stop());

  it('reaches the A2A task through a separate POST while the call stream stays open', async () => {
    const call = post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 'call-77', method: 'tools/call', params: { name: 'probe_probe', arguments: { message: 'hold' } } }, { 'mcp-protocol-version': '2025-11-25' });
    let taskId: string | undefined;
    for (let i = 0; i < 200 && !taskId; i++) {
      const l = await rpc(`${s.http}/a2a/probe`, 'ListTasks', { status: 'TASK_STATE_WORKING' });
      taskId = l.body.result.tasks[0]?.id;
      if (!taskId) await new Promise((r) => setTimeout(r, 25));
    }
    expect(taskId).toBeDefined();
    const n = await post(`${s.http}/mcp`, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call-77', reason: 'user stopped' } }, { 'mcp-protocol-version': '2025-11-25' });
    expect(n.status).toBe(202);
    const r = await call;
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result._meta['agentport/state']).toBe('TASK_STATE_CANCELED');
    const t = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: taskId });
    expect(t.body.result.status.state).toBe('TASK_STATE_CANCELED');
  });
});
