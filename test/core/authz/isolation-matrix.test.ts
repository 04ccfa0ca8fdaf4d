/**
 * The isolation matrix (issue 19): every operation that names a task, a context, a push config or
 * an agent, on each face (A2A JSON-RPC, HTTP+JSON and gRPC, v0.3 JSON-RPC, MCP, the management API), × every kind of
 * caller, with the expected answer written down for each cell; tasks both idle (INPUT_REQUIRED,
 * read back from the store) and running (an executor live in memory).
 *
 * Callers: the owner (alice), another subject (bob), an administrator (scope `admin`), alice with
 * only a2a:publish, alice with only a2a:discover, and no credential. Decided here: an admin reads
 * another subject's task through the management API only; on the protocol faces an admin is one
 * more subject, for whom another's task does not exist (docs/auth.md).
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type A2AGrpcTestClient } from '../../bindings/a2a-grpc/client.js';
import { post } from '../../bindings/mcp/clients.js';
import { userMessage } from '../../support/server.js';
import { startAuthzServer, type AuthzServer } from './support.js';

const PROBE = new URL('../../fixtures/agents/probe-agent.ts', import.meta.url).pathname;

type Caller = 'owner' | 'other' | 'admin' | 'publish-only' | 'discover-only' | 'anonymous';
const CALLERS: Caller[] = ['owner', 'other', 'admin', 'publish-only', 'discover-only', 'anonymous'];
type State = 'idle' | 'running';

/** What a caller can tell from an answer. */
type Outcome = 'ok' | 'empty' | 'not-found' | 'unknown-agent' | 'unauthenticated' | 'forbidden';

interface Ids {
  task: string;
  context: string;
  push: string;
}

let s: AuthzServer;
let grpcClient: A2AGrpcTestClient;
const headers: Record<Caller, Record<string, string>> = {} as never;

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'probe', module: PROBE, pushNotifications: true, streaming: true },
      { id: 'vault', module: PROBE, streaming: true, visibility: 'extended' },
    ],
    push: { allowHttp: true, allowlist: ['127.0.0.1'] },
    mcp: { genericTools: true },
  });
  const all = ['a2a:discover', 'a2a:publish', 'mcp:tools'];
  headers.owner = { 'x-api-key': await s.key('alice', all) };
  headers.other = { 'x-api-key': await s.key('bob', all) };
  headers.admin = { 'x-api-key': s.adminKey };
  headers['publish-only'] = { 'x-api-key': await s.key('alice', ['a2a:publish']) };
  headers['discover-only'] = { 'x-api-key': await s.key('alice', ['a2a:discover']) };
  headers.anonymous = {};
  grpcClient = connect(Number(s.grpc.split(':').pop()));
}, 30_000);

afterAll(async () => {
  grpcClient?.close();
  await s?.stop();
});

async function jsonRpc(agent: string, method: string, params: unknown, h: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.http}/a2a/${agent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...h },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: await firstJson(res) };
}

/** The body, or the first SSE event's data (a running task's stream stays open). */
async function firstJson(res: Response): Promise<any> {
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const data = text.split('\n').find((l) => l.startsWith('data: '));
    return data ? JSON.parse(data.slice(6)) : undefined;
  }
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A fresh task of alice's in the given state, with one push config. */
async function aliceTask(state: State): Promise<Ids> {
  const r = await jsonRpc('probe', 'SendMessage', { message: userMessage(state === 'idle' ? 'input' : 'hold'), configuration: { returnImmediately: true } }, headers.owner);
  const task = r.body.result.task;
  if (state === 'idle') {
    // returnImmediately answers at creation; wait for the agent to pause it.
    for (let i = 0; i < 50; i++) {
      const g = await jsonRpc('probe', 'GetTask', { id: task.id }, headers.owner);
      if (g.body.result.status.state === 'TASK_STATE_INPUT_REQUIRED') break;
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  const p = await jsonRpc('probe', 'CreateTaskPushNotificationConfig', { taskId: task.id, url: 'http://127.0.0.1:9/hook' }, headers.owner);
  return { task: task.id, context: task.contextId, push: p.body.result.id };
}

/**
 * The task each cell of a face acts on. A cell whose caller is to be refused (or shown an empty
 * list) shares one task per state with the face's other such cells: a refused call leaves the task
 * as it was, and the cell's answer is checked as before. A cell whose call is to succeed gets a
 * fresh task, since it may change it (cancel it, continue it, delete its push config). A fresh
 * task per cell was most of the file's CPU: a send, the polls until it pauses and a push config,
 * 505 times (issue 26).
 */
function cellTasks(): (state: State, want: Outcome) => Promise<Ids> {
  const shared = new Map<State, Promise<Ids>>();
  return (state, want) => {
    if (want === 'ok') return aliceTask(state);
    let ids = shared.get(state);
    if (!ids) shared.set(state, (ids = aliceTask(state)));
    return ids;
  };
}

function rpcOutcome(r: { status: number; body: any }): Outcome {
  if (r.status === 401) return 'unauthenticated';
  if (r.status === 403) return 'forbidden';
  const err = r.body?.error;
  if (err?.code === -32001) return 'not-found';
  if (r.status === 404 || err?.code === -32601) return 'unknown-agent';
  if (err) return `error ${err.code} ${err.message}` as Outcome;
  const tasks = r.body?.result?.tasks;
  return Array.isArray(tasks) && tasks.length === 0 ? 'empty' : 'ok';
}

function restOutcome(status: number, body: any): Outcome {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  const reason = body?.error?.details?.[0]?.reason;
  if (status === 404 && reason === 'TASK_NOT_FOUND') return 'not-found';
  if (status === 404) return 'unknown-agent';
  if (status >= 300 || body?.error) return `error ${status} ${JSON.stringify(body).slice(0, 200)}` as Outcome;
  return Array.isArray(body?.tasks) && body.tasks.length === 0 ? 'empty' : 'ok';
}

interface Op {
  name: string;
  /** the scope the operation needs on the A2A face */
  needs: 'a2a:discover' | 'a2a:publish';
  /** names alice's task (or context): others get not-found (or an empty list) */
  bound: 'task' | 'context' | 'hidden-agent';
  rpc: (ids: Ids) => [agent: string, method: string, params: unknown];
  rest: (ids: Ids) => [agent: string, method: string, path: string, body?: unknown];
  /** the gRPC request (the agent named by `tenant`); streaming methods marked */
  grpc: (ids: Ids) => [method: string, request: object, streaming?: boolean];
  /** the v0.3 JSON-RPC call (absent: no such v0.3 method, e.g. ListTasks) */
  v03?: (ids: Ids) => [agent: string, method: string, params: unknown];
}

const v03Message = (text: string, taskId?: string) => ({ kind: 'message', messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'user', parts: [{ kind: 'text', text }], ...(taskId ? { taskId } : {}) });

const OPS: Op[] = [
  {
    name: 'GetTask',
    needs: 'a2a:discover',
    bound: 'task',
    rpc: (i) => ['probe', 'GetTask', { id: i.task }],
    rest: (i) => ['probe', 'GET', `/tasks/${i.task}`],
    grpc: (i) => ['GetTask', { tenant: 'probe', id: i.task }],
    v03: (i) => ['probe', 'tasks/get', { id: i.task }],
  },
  {
    name: 'SubscribeToTask',
    needs: 'a2a:discover',
    bound: 'task',
    rpc: (i) => ['probe', 'SubscribeToTask', { id: i.task }],
    rest: (i) => ['probe', 'GET', `/tasks/${i.task}:subscribe`],
    grpc: (i) => ['SubscribeToTask', { tenant: 'probe', id: i.task }, true],
    v03: (i) => ['probe', 'tasks/resubscribe', { id: i.task }],
  },
  {
    name: 'CancelTask',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'CancelTask', { id: i.task }],
    rest: (i) => ['probe', 'POST', `/tasks/${i.task}:cancel`, {}],
    grpc: (i) => ['CancelTask', { tenant: 'probe', id: i.task }],
    v03: (i) => ['probe', 'tasks/cancel', { id: i.task }],
  },
  {
    name: 'SendMessage continuing the task',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'SendMessage', { message: { ...userMessage('more'), taskId: i.task }, configuration: { returnImmediately: true } }],
    rest: (i) => ['probe', 'POST', '/message:send', { message: { ...userMessage('more'), taskId: i.task }, configuration: { returnImmediately: true } }],
    grpc: (i) => ['SendMessage', { tenant: 'probe', message: { ...userMessage('more'), taskId: i.task }, configuration: { returnImmediately: true } }],
    v03: (i) => ['probe', 'message/send', { message: v03Message('more', i.task), configuration: { blocking: false } }],
  },
  {
    name: 'CreateTaskPushNotificationConfig',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'CreateTaskPushNotificationConfig', { taskId: i.task, url: 'http://127.0.0.1:9/x' }],
    rest: (i) => ['probe', 'POST', `/tasks/${i.task}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/x' }],
    grpc: (i) => ['CreateTaskPushNotificationConfig', { tenant: 'probe', taskId: i.task, url: 'http://127.0.0.1:9/x' }],
    v03: (i) => ['probe', 'tasks/pushNotificationConfig/set', { taskId: i.task, pushNotificationConfig: { url: 'http://127.0.0.1:9/x' } }],
  },
  {
    name: 'GetTaskPushNotificationConfig',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'GetTaskPushNotificationConfig', { taskId: i.task, id: i.push }],
    rest: (i) => ['probe', 'GET', `/tasks/${i.task}/pushNotificationConfigs/${i.push}`],
    grpc: (i) => ['GetTaskPushNotificationConfig', { tenant: 'probe', taskId: i.task, id: i.push }],
    v03: (i) => ['probe', 'tasks/pushNotificationConfig/get', { id: i.task, pushNotificationConfigId: i.push }],
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'ListTaskPushNotificationConfigs', { taskId: i.task }],
    rest: (i) => ['probe', 'GET', `/tasks/${i.task}/pushNotificationConfigs`],
    grpc: (i) => ['ListTaskPushNotificationConfigs', { tenant: 'probe', taskId: i.task }],
    v03: (i) => ['probe', 'tasks/pushNotificationConfig/list', { id: i.task }],
  },
  {
    name: 'DeleteTaskPushNotificationConfig',
    needs: 'a2a:publish',
    bound: 'task',
    rpc: (i) => ['probe', 'DeleteTaskPushNotificationConfig', { taskId: i.task, id: i.push }],
    rest: (i) => ['probe', 'DELETE', `/tasks/${i.task}/pushNotificationConfigs/${i.push}`],
    grpc: (i) => ['DeleteTaskPushNotificationConfig', { tenant: 'probe', taskId: i.task, id: i.push }],
    v03: (i) => ['probe', 'tasks/pushNotificationConfig/delete', { id: i.task, pushNotificationConfigId: i.push }],
  },
  {
    name: 'ListTasks in the task’s context',
    needs: 'a2a:discover',
    bound: 'context',
    rpc: (i) => ['probe', 'ListTasks', { contextId: i.context }],
    rest: (i) => ['probe', 'GET', `/tasks?contextId=${i.context}`],
    grpc: (i) => ['ListTasks', { tenant: 'probe', contextId: i.context }],
  },
  {
    name: 'SendMessage to a hidden agent',
    needs: 'a2a:publish',
    bound: 'hidden-agent',
    rpc: () => ['vault', 'SendMessage', { message: userMessage('hello') }],
    rest: () => ['vault', 'POST', '/message:send', { message: userMessage('hello') }],
    grpc: () => ['SendMessage', { tenant: 'vault', message: userMessage('hello') }],
    v03: () => ['vault', 'message/send', { message: v03Message('hello') }],
  },
];

/** The expected answer of each cell, from the rules (not from observing the server). */
function expected(op: Op, caller: Caller): Outcome {
  if (op.bound === 'hidden-agent') {
    // Hidden agents are seen with a2a:discover; to anyone else they do not exist (D3).
    if (caller === 'anonymous' || caller === 'publish-only') return 'unknown-agent';
    if (caller === 'discover-only') return 'forbidden';
    return 'ok';
  }
  if (caller === 'anonymous') return 'unauthenticated';
  if (caller === 'publish-only') return op.needs === 'a2a:publish' ? 'ok' : 'forbidden';
  if (caller === 'discover-only') return op.needs === 'a2a:discover' ? 'ok' : 'forbidden';
  if (caller === 'owner') return 'ok';
  // another subject, and an admin: owner scoping applies to them alike on the protocol faces
  return op.bound === 'context' ? 'empty' : 'not-found';
}

const CELLS = (['idle', 'running'] as State[]).flatMap((state) => OPS.flatMap((op) => CALLERS.map((caller) => ({ state, op, caller, opName: op.name, want: expected(op, caller) }))));

describe('A2A JSON-RPC', () => {
  const task = cellTasks();
  it.each(CELLS)('$state task, $opName, $caller → $want', async ({ state, op, caller, want }) => {
    const ids = await task(state, want);
    const [agent, method, params] = op.rpc(ids);
    expect(rpcOutcome(await jsonRpc(agent, method, params, headers[caller]))).toBe(want);
  });
});

describe('A2A HTTP+JSON', () => {
  const task = cellTasks();
  it.each(CELLS)('$state task, $opName, $caller → $want', async ({ state, op, caller, want }) => {
    const ids = await task(state, want);
    const [agent, method, path, body] = op.rest(ids);
    const res = await fetch(`${s.http}/a2a/${agent}${path}`, {
      method,
      headers: { 'a2a-version': '1.0', ...(body ? { 'content-type': 'application/json' } : {}), ...headers[caller] },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(restOutcome(res.status, await firstJson(res))).toBe(want);
  });
});

describe('A2A v0.3 JSON-RPC', () => {
  const task = cellTasks();
  it.each(CELLS.filter((c) => c.op.v03))('$state task, $opName, $caller → $want', async ({ state, op, caller, want }) => {
    const ids = await task(state, want);
    const [agent, method, params] = op.v03!(ids);
    expect(rpcOutcome(await jsonRpc(agent, method, params, { ...headers[caller], 'a2a-version': '0.3' }))).toBe(want);
  });
});

/** `list`: a ListTasks answer, whose empty `tasks` the proto3 codec may leave out. */
function grpcOutcome(code: number, details: string, response?: any, list = false): Outcome {
  if (code === grpc.status.UNAUTHENTICATED) return 'unauthenticated';
  if (code === grpc.status.PERMISSION_DENIED) return 'forbidden';
  if (code === grpc.status.NOT_FOUND) return 'not-found';
  if (code === grpc.status.INVALID_ARGUMENT && /Unknown tenant/.test(details)) return 'unknown-agent';
  if (code !== grpc.status.OK) return `error ${code} ${details}` as Outcome;
  return list && !response?.tasks?.length ? 'empty' : 'ok';
}

describe('A2A gRPC', () => {
  const task = cellTasks();
  it.each(CELLS)('$state task, $opName, $caller → $want', async ({ state, op, caller, want }) => {
    const ids = await task(state, want);
    const [method, request, streaming] = op.grpc(ids);
    const md = { 'a2a-version': '1.0', ...headers[caller] };
    let got: Outcome;
    if (!streaming) {
      got = await grpcClient.unary(method, request, md).then(
        (r) => grpcOutcome(grpc.status.OK, '', r.response, method === 'ListTasks'),
        (e: grpc.ServiceError) => grpcOutcome(e.code, e.details),
      );
    } else {
      const call = grpcClient.stream(method, request, md);
      got = await new Promise<Outcome>((resolve) => {
        call.on('data', () => {
          resolve('ok');
          call.cancel();
        });
        call.on('error', (e: grpc.ServiceError) => resolve(grpcOutcome(e.code, e.details)));
        call.on('end', () => resolve('ok'));
      });
    }
    expect(got).toBe(want);
  });
});

// ---------------------------------------------------------------- MCP (generic tools on /mcp)

const MCP_OPS = [
  { name: 'get_task', args: (i: Ids) => ({ agentId: 'probe', taskId: i.task }) },
  { name: 'cancel_task', args: (i: Ids) => ({ agentId: 'probe', taskId: i.task }) },
];

/** MCP: the endpoint needs an MCP scope (publish-only and discover-only hold none); the rest as on A2A. */
function expectedMcp(caller: Caller): Outcome {
  if (caller === 'anonymous') return 'unauthenticated';
  if (caller === 'publish-only' || caller === 'discover-only') return 'forbidden';
  return caller === 'owner' ? 'ok' : 'not-found';
}

describe('MCP', () => {
  const task = cellTasks();
  const cells = (['idle', 'running'] as State[]).flatMap((state) => MCP_OPS.flatMap((op) => CALLERS.map((caller) => ({ state, op, opName: op.name, caller, want: expectedMcp(caller) }))));
  it.each(cells)('$state task, $opName, $caller → $want', async ({ state, op, caller, want }) => {
    const ids = await task(state, want);
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.name, arguments: op.args(ids) } }, { 'mcp-protocol-version': '2025-06-18', ...headers[caller] });
    let got: Outcome;
    if (r.status === 401) got = 'unauthenticated';
    else if (r.status === 403) got = 'forbidden';
    else if (r.json?.result?.isError) got = /was not found/.test(JSON.stringify(r.json.result.content)) ? 'not-found' : (`error ${JSON.stringify(r.json.result)}` as Outcome);
    else got = r.json?.result ? 'ok' : (`error ${r.text.slice(0, 200)}` as Outcome);
    expect(got).toBe(want);
  });
});

// ---------------------------------------------------------------- management API

describe('management API: GET /api/v1/agents/{id}/tasks/{taskId}', () => {
  const task = cellTasks();
  const want = (caller: Caller): Outcome => (caller === 'admin' ? 'ok' : caller === 'anonymous' ? 'unauthenticated' : 'forbidden');
  const cells = (['idle', 'running'] as State[]).flatMap((state) => CALLERS.map((caller) => ({ state, caller, want: want(caller) })));
  it.each(cells)('$state task, $caller → $want', async ({ state, caller, want: w }) => {
    const ids = await task(state, w);
    const res = await fetch(`${s.http}/api/v1/agents/probe/tasks/${ids.task}`, { headers: headers[caller] });
    const body = await firstJson(res);
    expect(restOutcome(res.status, body)).toBe(w);
    if (w === 'ok') {
      expect(body.owner).toBe('alice');
      expect(body.task.id).toBe(ids.task);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('an unknown task, or one of another agent, is not found for the admin too', async () => {
    const ids = await aliceTask('idle');
    for (const path of ['/api/v1/agents/probe/tasks/no-such-task', `/api/v1/agents/vault/tasks/${ids.task}`]) {
      const res = await fetch(`${s.http}${path}`, { headers: headers.admin });
      expect(restOutcome(res.status, await firstJson(res)), path).toBe('not-found');
    }
  });
});
