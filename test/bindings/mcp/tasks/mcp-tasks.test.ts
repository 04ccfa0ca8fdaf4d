/**
 * The MCP tasks extension (SEP-2663) over durable A2A tasks, on raw 2026-07-28 requests: a client
 * that declares `io.modelcontextprotocol/tasks` gets a task handle from tools/call and drives it
 * with tasks/get, tasks/update and tasks/cancel; the task is the A2A task; callers are isolated.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const ALICE = 'k-alice-0123456789abcdef';
const BOB = 'k-bob-0123456789abcdefgh';
const TASKS = 'io.modelcontextprotocol/tasks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

const withTasks = () => envelope({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } });

describe('MCP tasks extension', () => {
  let s: TestServer;
  let id = 0;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
      auth: {
        apiKeys: [
          { key: ALICE, subject: 'alice' },
          { key: BOB, subject: 'bob' },
        ],
      },
    });
  });
  afterAll(async () => s?.stop());

  const call = (tool: string, message: string, key = ALICE, meta = withTasks()) =>
    post(`${s.http}/mcp`, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool, arguments: { message }, _meta: meta } }, { ...modernHeaders('tools/call', tool), authorization: `Bearer ${key}` });
  const tasks = (method: string, params: Record<string, unknown>, key = ALICE, meta = withTasks()) =>
    post(`${s.http}/mcp`, { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }, { ...modernHeaders(method), authorization: `Bearer ${key}` });
  const settle = async (taskId: string, until: (status: string) => boolean = (st) => ['completed', 'failed', 'cancelled'].includes(st)) => {
    for (let i = 0; i < 100; i++) {
      const r = await tasks('tasks/get', { taskId });
      if (until(r.json.result.status)) return r.json.result;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`task ${taskId} did not settle`);
  };

  it('advertises the extension under capabilities.extensions in server/discover', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }, { ...modernHeaders('server/discover'), authorization: `Bearer ${ALICE}` });
    expect(r.json.result.capabilities.extensions[TASKS]).toEqual({});
    expect(r.json.result.capabilities.tasks).toBeUndefined();
  });

  it('reports an agent that crashed mid-task as failed with an inlined error and no result (a protocol-level error)', async () => {
    const created = await call('probe_probe', 'throw kaboom');
    const done = await settle(created.json.result.taskId);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: -32603 });
    expect(typeof done.error.message).toBe('string');
    expect(done.error.message).not.toContain('kaboom'); // the agent's own error text stays in the log
    expect(done).not.toHaveProperty('result');
  });

  it('rejects tasks/* whose Mcp-Name names another task (HeaderMismatch -32020, HTTP 400)', async () => {
    const created = await call('probe_probe', 'sleep 5000');
    const taskId = created.json.result.taskId as string;
    const wrong = await post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId, _meta: withTasks() } },
      { ...modernHeaders('tasks/get'), 'mcp-name': 'echo:another-task', authorization: `Bearer ${ALICE}` },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.code).toBe(-32020);
    const right = await post(
      `${s.http}/mcp`,
      { jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId, _meta: withTasks() } },
      { ...modernHeaders('tasks/get'), 'mcp-name': ` ${taskId} `, authorization: `Bearer ${ALICE}` },
    );
    expect(right.json.result.taskId).toBe(taskId);
    await tasks('tasks/cancel', { taskId });
  });

  it('answers tools/call with a flat CreateTaskResult, and tasks/get inlines the tool result once done', async () => {
    const created = await call('echo_echo', 'hello task');
    const r = created.json.result;
    expect(r.resultType).toBe('task');
    expect(r.taskId).toMatch(/^echo:[0-9a-f-]{36}$/);
    expect(['working', 'completed']).toContain(r.status);
    expect(r.createdAt).toMatch(ISO);
    expect(r.lastUpdatedAt).toMatch(ISO);
    expect(Number.isInteger(r.ttlMs) && Number.isInteger(r.pollIntervalMs)).toBe(true);
    for (const k of ['task', 'result', 'error', 'requestState', 'content']) expect(r).not.toHaveProperty(k);
    const done = await settle(r.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'hello task' }]);
    expect(done).not.toHaveProperty('requestState');
    const a2a = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: r.taskId.split(':')[1] }, { authorization: `Bearer ${ALICE}` });
    expect(a2a.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('reports an agent failure as completed with isError (failed is for protocol errors)', async () => {
    const created = await call('probe_probe', 'fail disk full');
    const done = await settle(created.json.result.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.isError).toBe(true);
    expect(done.result.content[0].text).toBe('disk full');
  });

  it('cancels a running task with an empty ack, settles to cancelled, and acks again when terminal', async () => {
    const created = await call('probe_probe', 'hold');
    const taskId = created.json.result.taskId;
    await settle(taskId, (st) => st === 'working');
    const ack = await tasks('tasks/cancel', { taskId });
    expect(ack.json.result.resultType).toBe('complete');
    for (const k of ['taskId', 'status', 'result', 'error']) expect(ack.json.result).not.toHaveProperty(k);
    expect((await settle(taskId)).status).toBe('cancelled');
    expect((await tasks('tasks/cancel', { taskId })).json.result.resultType).toBe('complete');
  });

  it('asks for input through tasks/get and continues the task with tasks/update', async () => {
    const created = await call('probe_probe', 'input');
    const waiting = await settle(created.json.result.taskId, (st) => st === 'input_required');
    expect(waiting.inputRequests.answer.method).toBe('elicitation/create');
    expect(waiting.inputRequests.answer.params.message).toBe('Tell me more.');
    const bad = await tasks('tasks/update', { taskId: waiting.taskId, inputResponses: { answer: { action: 'accept', content: {} } } });
    expect(bad.json.error.code).toBe(-32602);
    const upd = await tasks('tasks/update', { taskId: waiting.taskId, inputResponses: { answer: { action: 'accept', content: { answer: 'more words' } } } });
    expect(upd.json.result.resultType).toBe('complete');
    const done = await settle(waiting.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content[0].text).toBe('more words');
  });

  it('gates tasks/* on the declaration (-32021, HTTP 400) and keeps tools/call synchronous without it', async () => {
    for (const m of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const r = await tasks(m, { taskId: 'echo:x', inputResponses: {} }, ALICE, envelope());
      expect(r.status, m).toBe(400);
      expect(r.json.error.code, m).toBe(-32021);
      expect(r.json.error.data.requiredCapabilities.extensions[TASKS]).toEqual({});
    }
    const sync = await call('echo_echo', 'no task handle', ALICE, envelope());
    expect(sync.json.result.resultType).toBe('complete');
    expect(sync.json.result).not.toHaveProperty('taskId');
    expect(sync.json.result.content[0].text).toBe('no task handle');
  });

  it("answers unknown ids and another caller's task as unknown (-32602)", async () => {
    const created = await call('echo_echo', 'mine');
    const taskId = created.json.result.taskId;
    for (const [who, ref] of [
      [BOB, taskId],
      [ALICE, 'echo:00000000-0000-7000-8000-000000000000'],
      [ALICE, 'nope'],
      [ALICE, 'ghost:abc'],
    ] as const) {
      const r = await tasks('tasks/get', { taskId: ref }, who);
      expect(r.json.error?.code, `${who} ${ref}`).toBe(-32602);
    }
    expect((await tasks('tasks/cancel', { taskId }, BOB)).json.error.code).toBe(-32602);
  });
});
