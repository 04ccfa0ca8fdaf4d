/**
 * Every A2A operation on every binding (JSON-RPC, HTTP+JSON, gRPC, v0.3 JSON-RPC, v0.3 HTTP+JSON)
 * × {no credential, wrong scope, right scope, another owner's task}: one authorization engine
 * gives every binding the same answer, each in its own error shape, and nothing of the task
 * leaks to a caller who may not read it.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, richStatus, type A2AGrpcTestClient } from '../../bindings/a2a-grpc/client.js';
import { userMessage } from '../../support/server.js';
import { challengeParams, startAuthzServer, type AuthzServer } from './support.js';

const PROBE = new URL('../../fixtures/agents/probe-agent.ts', import.meta.url).pathname;
/** written into alice's task; must never appear in a body another caller gets */
const SECRET = 'secret-alice-7f3a';

type Who = 'none' | 'wrong' | 'right' | 'other';
type Scope = 'a2a:discover' | 'a2a:publish';

/** One call's outcome, binding-neutral. */
interface Outcome {
  /** HTTP status, or the gRPC status code */
  status: number;
  /** ErrorInfo reason (v1.0 bindings), when the call failed */
  reason?: string;
  /** JSON-RPC error code, when the binding is JSON-RPC */
  rpcCode?: number;
  challenge: Record<string, string>;
  /** everything the caller could read */
  body: string;
  ok: boolean;
}

interface Ids {
  task: string;
  push: string;
}

interface Op {
  name: string;
  needs: Scope;
  /** names a task, so another owner must get not-found */
  taskBound: boolean;
  /** what the right scope gets when it is not a plain success */
  rightError?: string;
}

const OPS: Op[] = [
  { name: 'SendMessage', needs: 'a2a:publish', taskBound: false },
  { name: 'SendMessage (continue task)', needs: 'a2a:publish', taskBound: true },
  { name: 'SendStreamingMessage', needs: 'a2a:publish', taskBound: false },
  { name: 'GetTask', needs: 'a2a:discover', taskBound: true },
  { name: 'ListTasks', needs: 'a2a:discover', taskBound: false },
  { name: 'CancelTask', needs: 'a2a:publish', taskBound: true },
  { name: 'SubscribeToTask', needs: 'a2a:discover', taskBound: true },
  { name: 'CreateTaskPushNotificationConfig', needs: 'a2a:publish', taskBound: true },
  { name: 'GetTaskPushNotificationConfig', needs: 'a2a:publish', taskBound: true },
  { name: 'ListTaskPushNotificationConfigs', needs: 'a2a:publish', taskBound: true },
  { name: 'DeleteTaskPushNotificationConfig', needs: 'a2a:publish', taskBound: true },
  { name: 'GetExtendedAgentCard', needs: 'a2a:discover', taskBound: false },
];

/** The v0.3 methods (no ListTasks in v0.3). */
const V03_OPS = new Set(OPS.map((o) => o.name).filter((n) => n !== 'ListTasks'));

let s: AuthzServer;
let grpcClient: A2AGrpcTestClient;
const creds: Record<string, Record<string, string>> = {};
let base = '';

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [{ id: 'probe', module: PROBE, pushNotifications: true, streaming: true }],
    push: { allowHttp: true, allowlist: ['127.0.0.1'] },
  });
  base = `${s.http}/a2a/probe`;
  grpcClient = connect(Number(s.grpc.split(':').pop()));
  const both = ['a2a:discover', 'a2a:publish'];
  creds.none = {};
  creds.right = { 'x-api-key': await s.key('alice', both) };
  creds.other = { authorization: `Bearer ${await s.key('bob', both)}` };
  creds['wrong:a2a:discover'] = { 'x-api-key': await s.key('alice', ['a2a:publish', 'mcp:tools']) };
  creds['wrong:a2a:publish'] = { 'x-api-key': await s.key('alice', ['a2a:discover', 'mcp:tools']) };
}, 30_000);

afterAll(async () => {
  grpcClient?.close();
  await s?.stop();
});

const credsFor = (who: Who, op: Op) => (who === 'wrong' ? creds[`wrong:${op.needs}`]! : creds[who]!);

/** A fresh task of alice's, waiting for input (so it can be canceled and subscribed to), with one push config. */
async function aliceTask(): Promise<Ids> {
  const r = await rpcCall('SendMessage', { message: userMessage(`input ${SECRET}`) }, creds.right!);
  const task = (JSON.parse(r.body) as { result: { task: { id: string; status: { state: string } } } }).result.task;
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const p = await rpcCall('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'http://127.0.0.1:9/hook', token: SECRET }, creds.right!);
  return { task: task.id, push: (JSON.parse(p.body) as { result: { id: string } }).result.id };
}

/**
 * A task of alice's whose executor is still running (WORKING, held in this process's memory until
 * canceled), with one push config: owner scoping must hold for the live copy too, not only for
 * tasks read back from the store.
 */
async function aliceRunningTask(): Promise<Ids> {
  const r = await rpcCall('SendMessage', { message: userMessage(`hold ${SECRET}`), configuration: { returnImmediately: true } }, creds.right!);
  const task = (JSON.parse(r.body) as { result: { task: { id: string; status: { state: string } } } }).result.task;
  expect(task.status.state).toBe('TASK_STATE_WORKING');
  const p = await rpcCall('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'http://127.0.0.1:9/hook', token: SECRET }, creds.right!);
  return { task: task.id, push: (JSON.parse(p.body) as { result: { id: string } }).result.id };
}

// ------------------------------------------------------------------ the bindings, each as (op, ids, headers) → Outcome

async function httpOutcome(res: Response): Promise<Outcome> {
  // Streams: the first event is enough (a waiting task's stream stays open).
  let body = '';
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    body = new TextDecoder().decode(value);
    await reader.cancel();
  } else body = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const err = parsed?.error;
  const info = Array.isArray(err?.data) ? err.data : Array.isArray(err?.details) ? err.details : [];
  const reason = info.find((d: { reason?: string }) => d?.reason)?.reason;
  return {
    status: res.status,
    ...(reason ? { reason } : {}),
    ...(typeof err?.code === 'number' && parsed?.jsonrpc ? { rpcCode: err.code } : {}),
    challenge: challengeParams(res.headers.get('www-authenticate')),
    body,
    ok: res.status < 300 && !err,
  };
}

async function rpcCall(method: string, params: unknown, headers: Record<string, string>, version = '1.0'): Promise<Outcome> {
  const res = await fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': version, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return httpOutcome(res);
}

function jsonRpcV1(op: Op, ids: Ids, h: Record<string, string>): Promise<Outcome> {
  const msg = op.taskBound ? { ...userMessage('more'), taskId: ids.task } : userMessage('hello');
  const params = (
    {
      SendMessage: { message: msg },
      'SendMessage (continue task)': { message: msg },
      SendStreamingMessage: { message: msg },
      GetTask: { id: ids.task },
      ListTasks: {},
      CancelTask: { id: ids.task },
      SubscribeToTask: { id: ids.task },
      CreateTaskPushNotificationConfig: { taskId: ids.task, url: 'http://127.0.0.1:9/other' },
      GetTaskPushNotificationConfig: { taskId: ids.task, id: ids.push },
      ListTaskPushNotificationConfigs: { taskId: ids.task },
      DeleteTaskPushNotificationConfig: { taskId: ids.task, id: ids.push },
      GetExtendedAgentCard: {},
    } as Record<string, unknown>
  )[op.name];
  return rpcCall(op.name.replace(' (continue task)', ''), params, h);
}

function restV1(op: Op, ids: Ids, h: Record<string, string>): Promise<Outcome> {
  const msg = op.taskBound ? { ...userMessage('more'), taskId: ids.task } : userMessage('hello');
  const t = encodeURIComponent(ids.task);
  const routes: Record<string, [string, string, unknown?]> = {
    SendMessage: ['POST', '/message:send', { message: msg }],
    'SendMessage (continue task)': ['POST', '/message:send', { message: msg }],
    SendStreamingMessage: ['POST', '/message:stream', { message: msg }],
    GetTask: ['GET', `/tasks/${t}`],
    ListTasks: ['GET', '/tasks'],
    CancelTask: ['POST', `/tasks/${t}:cancel`, {}],
    SubscribeToTask: ['GET', `/tasks/${t}:subscribe`],
    CreateTaskPushNotificationConfig: ['POST', `/tasks/${t}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/other' }],
    GetTaskPushNotificationConfig: ['GET', `/tasks/${t}/pushNotificationConfigs/${ids.push}`],
    ListTaskPushNotificationConfigs: ['GET', `/tasks/${t}/pushNotificationConfigs`],
    DeleteTaskPushNotificationConfig: ['DELETE', `/tasks/${t}/pushNotificationConfigs/${ids.push}`],
    GetExtendedAgentCard: ['GET', '/extendedAgentCard'],
  };
  const [method, path, body] = routes[op.name]!;
  return fetch(`${base}${path}`, {
    method,
    headers: { 'a2a-version': '1.0', ...(body ? { 'content-type': 'application/json' } : {}), ...h },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(httpOutcome);
}

async function grpcV1(op: Op, ids: Ids, h: Record<string, string>): Promise<Outcome> {
  const msg = op.taskBound ? { ...userMessage('more'), taskId: ids.task } : userMessage('hello');
  const md = { ...h, 'a2a-version': '1.0' };
  const requests: Record<string, [string, object, boolean]> = {
    SendMessage: ['SendMessage', { tenant: 'probe', message: msg }, false],
    'SendMessage (continue task)': ['SendMessage', { tenant: 'probe', message: msg }, false],
    SendStreamingMessage: ['SendStreamingMessage', { tenant: 'probe', message: msg }, true],
    GetTask: ['GetTask', { tenant: 'probe', id: ids.task }, false],
    ListTasks: ['ListTasks', { tenant: 'probe' }, false],
    CancelTask: ['CancelTask', { tenant: 'probe', id: ids.task }, false],
    SubscribeToTask: ['SubscribeToTask', { tenant: 'probe', id: ids.task }, true],
    CreateTaskPushNotificationConfig: ['CreateTaskPushNotificationConfig', { tenant: 'probe', taskId: ids.task, url: 'http://127.0.0.1:9/other' }, false],
    GetTaskPushNotificationConfig: ['GetTaskPushNotificationConfig', { tenant: 'probe', taskId: ids.task, id: ids.push }, false],
    ListTaskPushNotificationConfigs: ['ListTaskPushNotificationConfigs', { tenant: 'probe', taskId: ids.task }, false],
    DeleteTaskPushNotificationConfig: ['DeleteTaskPushNotificationConfig', { tenant: 'probe', taskId: ids.task, id: ids.push }, false],
    GetExtendedAgentCard: ['GetExtendedAgentCard', { tenant: 'probe' }, false],
  };
  const [method, req, streaming] = requests[op.name]!;
  const failed = (err: grpc.ServiceError): Outcome => {
    let reason: string | undefined;
    try {
      reason = (richStatus(err).details.find((d) => (d as { reason?: string }).reason) as { reason?: string } | undefined)?.reason;
    } catch {
      reason = undefined;
    }
    return { status: err.code, ...(reason ? { reason } : {}), challenge: {}, body: `${err.details}`, ok: false };
  };
  if (!streaming) {
    return grpcClient.unary(method, req, md).then((r) => ({ status: grpc.status.OK, challenge: {}, body: JSON.stringify(r.response), ok: true }), failed);
  }
  const call = grpcClient.stream(method, req, md);
  return new Promise<Outcome>((resolve) => {
    call.on('data', (item: unknown) => {
      resolve({ status: grpc.status.OK, challenge: {}, body: JSON.stringify(item), ok: true });
      call.cancel();
    });
    call.on('error', (err: grpc.ServiceError) => resolve(failed(err)));
    call.on('end', () => resolve({ status: grpc.status.OK, challenge: {}, body: '', ok: true }));
  });
}

const v03Message = (text: string, taskId?: string) => ({ kind: 'message', messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'user', parts: [{ kind: 'text', text }], ...(taskId ? { taskId } : {}) });

function jsonRpcV03(op: Op, ids: Ids, h: Record<string, string>): Promise<Outcome> {
  const msg = op.taskBound ? v03Message('more', ids.task) : v03Message('hello');
  const calls: Record<string, [string, unknown]> = {
    SendMessage: ['message/send', { message: msg }],
    'SendMessage (continue task)': ['message/send', { message: msg }],
    SendStreamingMessage: ['message/stream', { message: msg }],
    GetTask: ['tasks/get', { id: ids.task }],
    CancelTask: ['tasks/cancel', { id: ids.task }],
    SubscribeToTask: ['tasks/resubscribe', { id: ids.task }],
    CreateTaskPushNotificationConfig: ['tasks/pushNotificationConfig/set', { taskId: ids.task, pushNotificationConfig: { url: 'http://127.0.0.1:9/other' } }],
    GetTaskPushNotificationConfig: ['tasks/pushNotificationConfig/get', { id: ids.task, pushNotificationConfigId: ids.push }],
    ListTaskPushNotificationConfigs: ['tasks/pushNotificationConfig/list', { id: ids.task }],
    DeleteTaskPushNotificationConfig: ['tasks/pushNotificationConfig/delete', { id: ids.task, pushNotificationConfigId: ids.push }],
    GetExtendedAgentCard: ['agent/getAuthenticatedExtendedCard', {}],
  };
  const [method, params] = calls[op.name]!;
  return rpcCall(method, params, h, '0.3');
}

function restV03(op: Op, ids: Ids, h: Record<string, string>): Promise<Outcome> {
  const msg = op.taskBound ? v03Message('more', ids.task) : v03Message('hello');
  const t = encodeURIComponent(ids.task);
  const routes: Record<string, [string, string, unknown?]> = {
    SendMessage: ['POST', '/v1/message:send', { message: msg }],
    'SendMessage (continue task)': ['POST', '/v1/message:send', { message: msg }],
    SendStreamingMessage: ['POST', '/v1/message:stream', { message: msg }],
    GetTask: ['GET', `/v1/tasks/${t}`],
    CancelTask: ['POST', `/v1/tasks/${t}:cancel`, {}],
    SubscribeToTask: ['GET', `/v1/tasks/${t}:subscribe`],
    CreateTaskPushNotificationConfig: ['POST', `/v1/tasks/${t}/pushNotificationConfigs`, { taskId: ids.task, pushNotificationConfig: { url: 'http://127.0.0.1:9/other' } }],
    GetTaskPushNotificationConfig: ['GET', `/v1/tasks/${t}/pushNotificationConfigs/${ids.push}`],
    ListTaskPushNotificationConfigs: ['GET', `/v1/tasks/${t}/pushNotificationConfigs`],
    DeleteTaskPushNotificationConfig: ['DELETE', `/v1/tasks/${t}/pushNotificationConfigs/${ids.push}`],
    GetExtendedAgentCard: ['GET', '/v1/card'],
  };
  const [method, path, body] = routes[op.name]!;
  return fetch(`${base}${path}`, {
    method,
    headers: { 'a2a-version': '0.3', ...(body ? { 'content-type': 'application/json' } : {}), ...h },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(httpOutcome);
}

interface Binding {
  name: string;
  call: (op: Op, ids: Ids, h: Record<string, string>) => Promise<Outcome>;
  ops: (op: Op) => boolean;
  http: boolean;
  /** v1.0 shapes carry ErrorInfo reasons; v0.3 bodies have codes only */
  reasons: boolean;
  /** the binding's not-found: HTTP status or gRPC code */
  notFound: number;
}

const BINDINGS: Binding[] = [
  { name: 'JSON-RPC', call: jsonRpcV1, ops: () => true, http: true, reasons: true, notFound: 200 },
  { name: 'HTTP+JSON', call: restV1, ops: () => true, http: true, reasons: true, notFound: 404 },
  { name: 'gRPC', call: grpcV1, ops: () => true, http: false, reasons: true, notFound: grpc.status.NOT_FOUND },
  { name: 'v0.3 JSON-RPC', call: jsonRpcV03, ops: (o) => V03_OPS.has(o.name), http: true, reasons: false, notFound: 200 },
  { name: 'v0.3 HTTP+JSON', call: restV03, ops: (o) => V03_OPS.has(o.name), http: true, reasons: false, notFound: 404 },
];

function expectRefused(o: Outcome, b: Binding, op: Op, kind: 'none' | 'wrong'): void {
  expect(o.ok).toBe(false);
  expect(o.body).not.toContain(SECRET);
  expect(o.body).not.toMatch(/"result"|"artifacts"|"history"/);
  if (b.http) {
    expect(o.status).toBe(kind === 'none' ? 401 : 403);
    expect(o.challenge.scope).toBe(op.needs);
    expect(o.challenge.resource_metadata).toBe(`${s.http}/.well-known/oauth-protected-resource/a2a/probe`);
    if (kind === 'wrong') expect(o.challenge.error).toBe('insufficient_scope');
    else expect(o.challenge.error).toBeUndefined();
    if (o.rpcCode !== undefined) expect(o.rpcCode).toBe(-32000);
  } else {
    expect(o.status).toBe(kind === 'none' ? grpc.status.UNAUTHENTICATED : grpc.status.PERMISSION_DENIED);
  }
  if (b.reasons) expect(o.reason).toBe(kind === 'none' ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED');
}

function expectNotFound(o: Outcome, b: Binding): void {
  expect(o.ok).toBe(false);
  expect(o.body).not.toContain(SECRET);
  expect(o.status).toBe(b.notFound);
  if (o.rpcCode !== undefined) expect(o.rpcCode).toBe(-32001);
  if (b.reasons) expect(o.reason).toBe('TASK_NOT_FOUND');
}

describe.each(BINDINGS)('$name', (b) => {
  const ops = OPS.filter(b.ops);
  it.each(ops)('$name: no credential is 401 with a challenge naming the scope', async (op) => {
    expectRefused(await b.call(op, await aliceTask(), credsFor('none', op)), b, op, 'none');
  });

  it.each(ops)('$name: a credential without the scope is 403 insufficient_scope', async (op) => {
    expectRefused(await b.call(op, await aliceTask(), credsFor('wrong', op)), b, op, 'wrong');
  });

  it.each(ops)('$name: the right scope succeeds', async (op) => {
    const o = await b.call(op, await aliceTask(), credsFor('right', op));
    expect(o.ok, o.body).toBe(true);
    if (op.name === 'GetTask' || op.name === 'SubscribeToTask') expect(o.body).toContain(SECRET);
  });

  it.each(ops.filter((o) => o.taskBound))("$name: another owner's task is not found, and nothing of it is readable", async (op) => {
    expectNotFound(await b.call(op, await aliceTask(), credsFor('other', op)), b);
  });

  it.each(ops.filter((o) => o.taskBound))("$name: another owner's running task (live in memory) is not found, and nothing of it is readable", async (op) => {
    const ids = await aliceRunningTask();
    expectNotFound(await b.call(op, ids, credsFor('other', op)), b);
    // and it is still running, untouched
    const still = await rpcCall('GetTask', { id: ids.task }, creds.right!);
    expect(still.body).toContain('TASK_STATE_WORKING');
  });
});

describe('ListTasks lists only the caller’s own tasks', () => {
  it('bob sees none of alice’s tasks', async () => {
    await aliceTask();
    const r = await rpcCall('ListTasks', {}, creds.other!);
    expect(r.ok).toBe(true);
    expect(r.body).not.toContain(SECRET);
    expect((JSON.parse(r.body) as { result: { tasks: unknown[] } }).result.tasks).toEqual([]);
  });
});
