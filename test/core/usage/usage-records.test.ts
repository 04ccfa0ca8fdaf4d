/**
 * Usage records of real calls on every face, read back from the SQLite file the server wrote: one
 * record per call; a call that created a task is recorded once, as the task's record (with the
 * answer's timing added); faces, operations, callers and outcomes named as the analytics API
 * groups them.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, rpc, type TestServer } from '../../support/server.js';
import { connect } from '../../bindings/a2a-grpc/client.js';
import * as codec from '../../../src/protocol/a2a/grpc-codec.js';
import { modernClient } from '../../bindings/mcp/clients.js';

const KEY = 'usage-records-test-key-0123456789';
const HEADERS = { 'x-api-key': KEY };

interface Row {
  id: string;
  kind: string;
  face: string;
  operation: string;
  agent: string | null;
  skill: string | null;
  tool: string | null;
  task_id: string | null;
  subject: string | null;
  key_id: string | null;
  outcome: string;
  error: number;
  final: number;
  ttfb_ms: number | null;
  latency_ms: number | null;
  duration_ms: number | null;
  bytes_in: number | null;
  bytes_out: number | null;
  cost: number;
}

let s: TestServer;
let rows: Row[] = [];
const made: { jsonrpcTask?: string; restTask?: string; v03Task?: string; grpcTask?: string; unknownToolError?: string; sends: string[] } = { sends: [] };

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

beforeAll(async () => {
  s = await startTestServer(
    {
      auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] }] },
      agents: [{ id: 'echo', builtin: 'echo', skills: { echo: { cost: { perCall: 2.5 } } } }],
    },
    { keepData: true },
  );
  const echo = `${s.http}/a2a/echo`;
  // A2A v1.0 JSON-RPC: a task, and an error that never reaches a task
  const sent = await rpc(echo, 'SendMessage', { message: message('one') }, HEADERS);
  made.jsonrpcTask = sent.body.result.task.id;
  for (let i = 0; i < 5; i++) made.sends.push((await rpc(echo, 'SendMessage', { message: message(`n${i}`) }, HEADERS)).body.result.task.id);
  await rpc(echo, 'GetTask', { id: made.jsonrpcTask }, HEADERS);
  await rpc(echo, 'GetTask', { id: 'no-such-task' }, HEADERS);
  await fetch(echo, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: '{not json' });
  // HTTP+JSON
  const rest = await fetch(`${echo}/message:send`, { method: 'POST', headers: { ...HEADERS, 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify({ message: message('rest') }) });
  made.restTask = ((await rest.json()) as { task: { id: string } }).task.id;
  // v0.3 JSON-RPC (no A2A-Version, slash method)
  const v03 = await fetch(echo, {
    method: 'POST',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'v03' }] } } }),
  });
  made.v03Task = ((await v03.json()) as { result: { id: string } }).result.id;
  // gRPC
  const grpc = connect(Number(s.grpc.split(':').pop()));
  try {
    const { response } = await grpc.unary<codec.WireSendMessageResponse>('SendMessage', { tenant: 'echo', message: codec.encodeMessage(message('grpc') as never) }, { 'x-api-key': KEY });
    made.grpcTask = (codec.decodeSendMessageResponse(response) as { task: { id: string } }).task.id;
  } finally {
    grpc.close();
  }
  // MCP: discovery and a tool call (a task through the core)
  const mcp = await modernClient(`${s.http}/mcp`, { headers: HEADERS });
  try {
    await mcp.listTools();
    await mcp.callTool({ name: 'echo_echo', arguments: { message: 'over mcp' } });
    // An unknown tool: the SDK answers a JSON-RPC error with HTTP 200.
    made.unknownToolError = await mcp.callTool({ name: 'no_such_tool', arguments: {} }).then(
      (r) => `result ${JSON.stringify(r)}`,
      (e: unknown) => String(e),
    );
  } finally {
    await mcp.close();
  }
  // a discovery document and a management route
  await fetch(`${echo}/.well-known/agent-card.json`);
  await fetch(`${s.http}/api/v1/audit`, { headers: HEADERS });
  // Closing writes the queue; then the file is read as any tool would.
  await s.stop();
  const db = new Database(path.join(s.dataDir, 'agentport.db'), { readonly: true });
  try {
    rows = db.prepare('select * from usage_records_all order by started_at').all() as Row[];
  } finally {
    db.close();
  }
}, 60_000);

afterAll(async () => {
  if (s) await rm(s.dataDir, { recursive: true, force: true });
});

const only = (pred: (r: Row) => boolean): Row => {
  const found = rows.filter(pred);
  expect(found, JSON.stringify(rows.map((r) => [r.kind, r.face, r.operation, r.outcome]))).toHaveLength(1);
  return found[0]!;
};

describe('usage records of real calls', () => {
  it('a task-creating call is one record: the task, with caller, cost, duration and the answer timing', () => {
    const r = only((x) => x.id === made.jsonrpcTask);
    expect(r).toMatchObject({
      kind: 'task',
      face: 'a2a-jsonrpc/1.0',
      operation: 'SendMessage',
      agent: 'echo',
      skill: 'echo',
      task_id: made.jsonrpcTask,
      subject: 'alice',
      key_id: 'config:alice',
      outcome: 'TASK_STATE_COMPLETED',
      error: 0,
      final: 1,
      cost: 2.5,
    });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    expect(r.latency_ms).toBeGreaterThan(0);
    expect(r.ttfb_ms).toBeGreaterThan(0);
    expect(r.ttfb_ms!).toBeLessThanOrEqual(r.latency_ms!);
    expect(r.bytes_in).toBeGreaterThan(50);
    expect(r.bytes_out).toBeGreaterThan(100);
    // no second record of the same call
    expect(rows.filter((x) => x.task_id === made.jsonrpcTask && x.operation === 'SendMessage')).toHaveLength(1);
  });

  it('every task of the client has exactly one task record', () => {
    const tasks = [made.jsonrpcTask, ...made.sends, made.restTask, made.v03Task, made.grpcTask];
    for (const id of tasks) expect(rows.filter((r) => r.kind === 'task' && r.id === id)).toHaveLength(1);
    // the MCP tool call's task too: six JSON-RPC + REST + v0.3 + gRPC + MCP
    expect(rows.filter((r) => r.kind === 'task')).toHaveLength(tasks.length + 1);
  });

  it('names each binding and version', () => {
    expect(only((r) => r.id === made.restTask)).toMatchObject({ face: 'a2a-rest/1.0', operation: 'SendMessage', outcome: 'TASK_STATE_COMPLETED' });
    expect(only((r) => r.id === made.v03Task)).toMatchObject({ face: 'a2a-jsonrpc/0.3', operation: 'SendMessage', subject: 'alice' });
    expect(only((r) => r.id === made.grpcTask)).toMatchObject({ face: 'a2a-grpc/1.0', operation: 'SendMessage', subject: 'alice', key_id: 'config:alice' });
  });

  it('calls that are not tasks: reads, errors (the A2A reason), parse errors', () => {
    expect(only((r) => r.operation === 'GetTask' && r.task_id === made.jsonrpcTask)).toMatchObject({ kind: 'call', outcome: 'OK', error: 0, agent: 'echo' });
    expect(only((r) => r.operation === 'GetTask' && r.task_id === 'no-such-task')).toMatchObject({ kind: 'call', outcome: 'TASK_NOT_FOUND', error: 1 });
    expect(only((r) => r.outcome === 'PARSE_ERROR')).toMatchObject({ kind: 'call', face: 'a2a-jsonrpc/1.0', error: 1, subject: 'alice' });
  });

  it('MCP: the method as operation, the tool, the protocol version; the tool call is its task', () => {
    const call = only((r) => r.operation === 'tools/call' && r.kind === 'task');
    expect(call).toMatchObject({ kind: 'task', tool: 'echo_echo', skill: 'echo', agent: 'echo', outcome: 'TASK_STATE_COMPLETED', subject: 'alice' });
    expect(call.face).toMatch(/^mcp\/\d{4}-\d{2}-\d{2}$/);
    expect(rows.some((r) => r.operation === 'tools/list' && r.kind === 'call' && r.face.startsWith('mcp/'))).toBe(true);
  });

  it('MCP: a JSON-RPC error answered with HTTP 200 (an unknown tool) is recorded by its reason, not as OK', () => {
    expect(made.unknownToolError).toMatch(/-32602|Unknown tool|not found/i);
    expect(only((r) => r.operation === 'tools/call' && r.kind === 'call')).toMatchObject({ tool: 'no_such_tool', outcome: 'INVALID_PARAMS', error: 1, subject: 'alice' });
  });

  it('routes: the pattern as operation, never an id', () => {
    expect(only((r) => r.face === 'cards')).toMatchObject({ operation: 'GET /a2a/:agentId/.well-known/agent-card.json', outcome: 'OK' });
    expect(only((r) => r.operation === 'GET /api/v1/audit')).toMatchObject({ face: 'management', subject: 'alice', outcome: 'HTTP_403', error: 1 });
  });
});
