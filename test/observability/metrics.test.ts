/**
 * /metrics of a real server, read with real Prometheus text parsers: known traffic moves the
 * request counter, the A2A and MCP duration histograms and the task counters by exactly what was
 * sent; who may scrape (admin credential, metrics token, separate listener); no label carries a
 * task id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, rpc, userMessage, type TestServer } from '../support/server.js';
import { modernClient } from '../bindings/mcp/clients.js';
import { connect } from '../bindings/a2a-grpc/client.js';
import * as codec from '../../src/protocol/a2a/grpc-codec.js';
import { allLabelValues, countOf, parseExposition, seriesOf, sampleSum, type Exposition } from '../support/prometheus.js';

const ADMIN = 'metrics-test-admin-key-0123456789';
const USER = 'metrics-test-user-key-01234567890';
const TOKEN = 'metrics-scrape-token-0123456789abcdef';

let s: TestServer;
const taskIds: string[] = [];

async function scrape(headers: Record<string, string> = { 'x-api-key': ADMIN }): Promise<Exposition> {
  const res = await fetch(`${s.http}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

/**
 * A scrape once `ready` holds of it (at most 5 s): a call is counted when its answer has gone out on
 * the server's side, which can be a moment after the client has read it.
 */
async function scrapeOnce(ready: (e: Exposition) => boolean): Promise<Exposition> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const e = await scrape();
    if (ready(e) || Date.now() > deadline) return e;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  s = await startTestServer({
    auth: {
      mode: 'required',
      apiKeys: [
        { key: ADMIN, subject: 'ops', scopes: ['admin'] },
        { key: USER, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] },
      ],
    },
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'limited', builtin: 'echo' },
    ],
    quotas: [{ id: 'one-a-minute', per: ['key'], match: { agent: 'limited' }, requests: { limit: 1, window: 60_000 } }],
    metrics: { token: TOKEN },
  });
});

afterAll(async () => {
  await s?.stop();
});

describe('/metrics after known traffic', () => {
  it('10 blocking SendMessage calls move the request counter, the A2A histogram and the finished tasks by exactly 10', async () => {
    const send = { face: 'a2a-jsonrpc/1.0', operation: 'SendMessage' };
    const before = await scrape();
    for (let i = 0; i < 10; i++) {
      const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`m${i}`), configuration: { returnImmediately: false } }, { 'x-api-key': USER });
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      taskIds.push(r.body.result.task.id);
    }
    const after = await scrapeOnce((e) => sampleSum(e, 'agentport_requests_total', send) - sampleSum(before, 'agentport_requests_total', send) >= 10);
    const moved = (f: (e: Exposition) => number) => f(after) - f(before);
    expect(moved((e) => sampleSum(e, 'agentport_requests_total', { ...send, status: '200' }))).toBe(10);
    expect(moved((e) => countOf(e, 'agentport_a2a_operation_duration_seconds', { ...send, agent: 'echo', outcome: 'ok' }))).toBe(10);
    expect(moved((e) => sampleSum(e, 'agentport_tasks_started_total', { agent: 'echo' }))).toBe(10);
    expect(moved((e) => sampleSum(e, 'agentport_tasks_finished_total', { agent: 'echo', state: 'COMPLETED' }))).toBe(10);
    expect(moved((e) => sampleSum(e, 'agentport_tasks_finished_total', { agent: 'echo', state: 'FAILED' }))).toBe(0);
    // Each task is one store transaction or more; the histogram saw them.
    expect(moved((e) => countOf(e, 'agentport_store_commit_duration_seconds'))).toBeGreaterThanOrEqual(10);
  });

  it('an MCP tools/call moves mcp_server_operation_duration_seconds with the OpenTelemetry labels', async () => {
    const before = await scrape();
    const mcp = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': USER } });
    try {
      await mcp.callTool({ name: 'echo_echo', arguments: { message: 'over mcp' } });
    } finally {
      await mcp.close();
    }
    const after = await scrapeOnce(
      (e) => countOf(e, 'mcp_server_operation_duration_seconds', { mcp_method_name: 'tools/call' }) > countOf(before, 'mcp_server_operation_duration_seconds', { mcp_method_name: 'tools/call' }),
    );
    const calls = seriesOf(after, 'mcp_server_operation_duration_seconds').filter((h) => h.labels.mcp_method_name === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.labels).toMatchObject({ gen_ai_tool_name: 'echo_echo', error_type: '' });
    expect(calls[0]!.labels.mcp_protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const match = { mcp_method_name: 'tools/call', gen_ai_tool_name: 'echo_echo' };
    expect(countOf(after, 'mcp_server_operation_duration_seconds', match) - countOf(before, 'mcp_server_operation_duration_seconds', match)).toBe(1);
  });

  it('an MCP tools/call the SDK refuses with a JSON-RPC error (unknown tool) carries the code as error_type', async () => {
    const match = { mcp_method_name: 'tools/call', error_type: '-32602' };
    const before = await scrape();
    const mcp = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': USER } });
    try {
      await expect(mcp.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow('Tool no_such_tool not found');
    } finally {
      await mcp.close();
    }
    const after = await scrapeOnce((e) => countOf(e, 'mcp_server_operation_duration_seconds', match) > countOf(before, 'mcp_server_operation_duration_seconds', match));
    expect(countOf(after, 'mcp_server_operation_duration_seconds', match) - countOf(before, 'mcp_server_operation_duration_seconds', match)).toBe(1);
  });

  it('a JSON-RPC error answered with HTTP 200 counts under its HTTP equivalent, and as a failed A2A outcome', async () => {
    const getTask = { face: 'a2a-jsonrpc/1.0', operation: 'GetTask' };
    const before = await scrape();
    const r = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: 'no-such-task' }, { 'x-api-key': USER });
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(-32001);
    const after = await scrapeOnce((e) => sampleSum(e, 'agentport_requests_total', getTask) > sampleSum(before, 'agentport_requests_total', getTask));
    expect(sampleSum(after, 'agentport_requests_total', { ...getTask, status: '404' }) - sampleSum(before, 'agentport_requests_total', { ...getTask, status: '404' })).toBe(1);
    expect(sampleSum(after, 'agentport_requests_total', { ...getTask, status: '200' }) - sampleSum(before, 'agentport_requests_total', { ...getTask, status: '200' })).toBe(0);
    const failed = { ...getTask, agent: 'echo', outcome: 'TASK_NOT_FOUND' };
    expect(countOf(after, 'agentport_a2a_operation_duration_seconds', failed) - countOf(before, 'agentport_a2a_operation_duration_seconds', failed)).toBe(1);
  });

  it('a gRPC SendMessage is counted on its face, with the A2A duration and a finished task', async () => {
    const grpc = { face: 'a2a-grpc/1.0', operation: 'SendMessage' };
    const before = await scrape();
    const client = connect(Number(s.grpc.split(':').pop()));
    try {
      await client.unary('SendMessage', { tenant: 'echo', message: codec.encodeMessage(userMessage('over grpc') as never) }, { 'x-api-key': USER });
    } finally {
      client.close();
    }
    const after = await scrapeOnce((e) => sampleSum(e, 'agentport_requests_total', grpc) > sampleSum(before, 'agentport_requests_total', grpc));
    expect(sampleSum(after, 'agentport_requests_total', { ...grpc, status: '200' }) - sampleSum(before, 'agentport_requests_total', { ...grpc, status: '200' })).toBe(1);
    expect(
      countOf(after, 'agentport_a2a_operation_duration_seconds', { ...grpc, agent: 'echo', outcome: 'ok' }) - countOf(before, 'agentport_a2a_operation_duration_seconds', { ...grpc, agent: 'echo', outcome: 'ok' }),
    ).toBe(1);
    const finished = { agent: 'echo', state: 'COMPLETED' };
    expect(sampleSum(after, 'agentport_tasks_finished_total', finished) - sampleSum(before, 'agentport_tasks_finished_total', finished)).toBe(1);
  });

  it('a call refused by a quota counts as a refusal of its kind, for its agent', async () => {
    const refusals = (e: Exposition) => sampleSum(e, 'agentport_quota_refusals_total', { kind: 'requests', agent: 'limited' });
    const before = await scrape();
    expect((await rpc(`${s.http}/a2a/limited`, 'SendMessage', { message: userMessage('1') }, { 'x-api-key': USER })).body.result).toBeDefined();
    const refused = await rpc(`${s.http}/a2a/limited`, 'SendMessage', { message: userMessage('2') }, { 'x-api-key': USER });
    expect(refused.body.error).toBeDefined();
    const after = await scrapeOnce((e) => sampleSum(e, 'agentport_requests_total', { status: '429' }) > sampleSum(before, 'agentport_requests_total', { status: '429' }));
    expect(refusals(after) - refusals(before)).toBe(1);
    expect(
      sampleSum(after, 'agentport_requests_total', { face: 'a2a-jsonrpc/1.0', operation: 'SendMessage', status: '429' }) -
        sampleSum(before, 'agentport_requests_total', { face: 'a2a-jsonrpc/1.0', operation: 'SendMessage', status: '429' }),
    ).toBe(1);
  });

  it('exports the process, event-loop and engine gauges', async () => {
    const e = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds', 'agentport_tasks_running', 'agentport_open_streams', 'agentport_push_outbox_depth', 'agentport_info']) {
      expect(e.families.has(name), name).toBe(true);
    }
    expect(sampleSum(e, 'agentport_info')).toBe(1);
  });

  it('no label value is a task id, nor a name a failing caller made up', async () => {
    const madeUp = `made-up-${crypto.randomUUID()}`;
    // An unknown tool over MCP, an unknown agent and an unknown path: each refused, none a label.
    const mcp = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': USER } });
    try {
      await mcp.callTool({ name: madeUp, arguments: {} }).catch(() => undefined);
    } finally {
      await mcp.close();
    }
    expect((await rpc(`${s.http}/a2a/${madeUp}`, 'SendMessage', { message: userMessage('x') }, { 'x-api-key': USER })).body.error).toBeDefined();
    expect((await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: madeUp }, { 'x-api-key': USER })).body.error).toBeDefined();
    const before = await scrape();
    expect((await fetch(`${s.http}/${madeUp}/${madeUp}`, { headers: { 'x-api-key': USER } })).status).toBe(404);
    const e = await scrapeOnce((x) => sampleSum(x, 'agentport_requests_total') > sampleSum(before, 'agentport_requests_total') + 1);
    const values = new Set(allLabelValues(e));
    expect([...values].some((v) => v.includes(madeUp))).toBe(false);
    // The refused tool call is still counted, under 'other'.
    expect(countOf(e, 'mcp_server_operation_duration_seconds', { mcp_method_name: 'tools/call', gen_ai_tool_name: 'other' })).toBeGreaterThanOrEqual(1);
    expect(taskIds).toHaveLength(10);
    for (const id of taskIds) expect(values.has(id), id).toBe(false);
    expect([...values].some((v) => taskIds.some((id) => v.includes(id)))).toBe(false);
  });
});

describe('who may scrape /metrics', () => {
  it('refuses a caller without a credential (401) and a non-admin caller (403)', async () => {
    const anonymous = await fetch(`${s.http}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBeTruthy();
    expect((await fetch(`${s.http}/metrics`, { headers: { 'x-api-key': USER } })).status).toBe(403);
    expect((await fetch(`${s.http}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
  });

  it('answers an admin credential and the metrics token', async () => {
    expect((await fetch(`${s.http}/metrics`, { headers: { 'x-api-key': ADMIN } })).status).toBe(200);
    expect((await fetch(`${s.http}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('with metrics.listen: served on its own listener without a credential, and not on the main one', async () => {
    const other = await startTestServer({ auth: { mode: 'required', apiKeys: [{ key: ADMIN, subject: 'ops', scopes: ['admin'] }] }, metrics: { listen: '127.0.0.1:0' } });
    try {
      expect(other.urls.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const res = await fetch(other.urls.metrics!);
      expect(res.status).toBe(200);
      expect((await parseExposition(await res.text())).families.has('agentport_requests_total')).toBe(true);
      expect((await fetch(`${other.http}/metrics`, { headers: { 'x-api-key': ADMIN } })).status).toBe(404);
      expect((await fetch(other.urls.metrics!.replace('/metrics', '/healthz'))).status).toBe(404);
    } finally {
      await other.stop();
    }
  });

  it('counts usage dropped at a full queue: 130 tasks into a queue of 100 with the flush held drop exactly 30', async () => {
    // Each blocking send that creates a task queues one timing amend (usage-recorder.ts); the
    // metrics listener of its own is not a call, so the scrapes queue nothing.
    const full = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], usage: { queueLimit: 100, flushIntervalMs: 3_600_000 }, metrics: { listen: '127.0.0.1:0' } });
    try {
      const dropped = async () => sampleSum(await parseExposition(await (await fetch(full.urls.metrics!)).text()), 'agentport_usage_records_dropped_total', {});
      expect(await dropped()).toBe(0);
      for (let i = 0; i < 130; i++) {
        const r = await rpc(`${full.http}/a2a/echo`, 'SendMessage', { message: userMessage(`q${i}`), configuration: { returnImmediately: false } });
        expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      }
      // An answer is recorded once it has gone out on the server's side: wait for the last one.
      const deadline = Date.now() + 5_000;
      let seen = await dropped();
      while (seen < 30 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        seen = await dropped();
      }
      expect(seen).toBe(30);
      // Read again: the counter does not count the same drops twice.
      expect(await dropped()).toBe(30);
    } finally {
      await full.stop();
    }
  });

  it('with metrics.enabled false there is no /metrics', async () => {
    const off = await startTestServer({ auth: { mode: 'required', apiKeys: [{ key: ADMIN, subject: 'ops', scopes: ['admin'] }] }, metrics: { enabled: false } });
    try {
      expect((await fetch(`${off.http}/metrics`, { headers: { 'x-api-key': ADMIN } })).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
