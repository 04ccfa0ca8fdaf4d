/**
 * Hostile input: every malformed request gets the error the spec (and src/protocol/a2a/errors.ts)
 * assigns it, in its binding's exact shape, as JSON, with nothing internal in it — and the server
 * stays up. Table-driven over JSON-RPC and HTTP+JSON, a few cases over gRPC, then a seeded fuzz loop.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aServiceDefinition } from '../../src/protocol/a2a/grpc-proto.js';
import { decodeStatusDetails, STATUS_DETAILS_KEY } from '../../src/protocol/a2a/grpc-status-details.js';
import { encodeMessage } from '../../src/protocol/a2a/grpc-codec.js';
import { startTestServer, userMessage, type TestServer } from '../support/server.js';

const BODY_LIMIT = 65_536;
const HEADER_LIMIT = 16_384;
/** A malformed request must be answered well within this; a blocking send is capped below it. */
const ANSWER_WITHIN_MS = 10_000;

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const DOMAIN = 'a2a-protocol.org';

// ---------------------------------------------------------------- what an error must look like

/** Internal text that must never reach a client. */
const LEAKS: Array<[string, RegExp]> = [
  ['stack frame', /(^|\n|\\n)\s*at \S/],
  ['stack frame', /\bat (async )?[\w$.<>[\]]+ \(/],
  ['node_modules', /node_modules/],
  ['"Error:"', /Error:/],
  ['file path', /(\/(work|src|dist|home|usr|tmp|opt|var|root)\/)|\.(ts|js|mjs|cjs):\d+/],
  ['windows path', /[A-Z]:\\\\/],
  ['internal error name', /\b(RangeError|TypeError|SyntaxError|ReferenceError|SqliteError|FST_ERR_\w+)\b/],
];

function leaksIn(text: string): string[] {
  return LEAKS.filter(([, re]) => re.test(text)).map(([name]) => name);
}

interface Reply {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

async function send(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Reply> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? ANSWER_WITHIN_MS) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body };
}

interface Expected {
  /** HTTP status; JSON-RPC errors default to 200 */
  http?: number;
  /** JSON-RPC error code */
  code?: number;
  /** REST google.rpc.Status status name */
  status?: string;
  /** ErrorInfo reason */
  reason: string;
  /** a BadRequest fieldViolation must name this field */
  field?: string;
  /** JSON-RPC response id */
  id?: string | number | null;
}

function expectNoLeak(r: Reply): void {
  expect(leaksIn(r.text), `internal text in: ${r.text.slice(0, 500)}`).toEqual([]);
}

function expectDetails(details: unknown, exp: Expected, raw: string): void {
  expect(Array.isArray(details), `details/data must be an array: ${raw.slice(0, 300)}`).toBe(true);
  const list = details as Array<Record<string, any>>;
  for (const d of list) expect(typeof d['@type'], 'every detail is a ProtoJSON Any').toBe('string');
  const info = list.filter((d) => d['@type'] === ERROR_INFO);
  expect(info, `one ErrorInfo in ${raw.slice(0, 300)}`).toHaveLength(1);
  expect(info[0]?.reason).toBe(exp.reason);
  expect(info[0]?.domain).toBe(DOMAIN);
  if (exp.field !== undefined) {
    const fields = list.filter((d) => d['@type'] === BAD_REQUEST).flatMap((d) => (d.fieldViolations ?? []) as Array<{ field: string; description: string }>);
    expect(
      fields.map((f) => f.field),
      `BadRequest.fieldViolations should name '${exp.field}': ${raw.slice(0, 400)}`,
    ).toContain(exp.field);
    for (const f of fields) expect(typeof f.description === 'string' && f.description.length > 0).toBe(true);
  }
}

function expectJsonRpcError(r: Reply, exp: Expected): void {
  expect(r.status, `HTTP status of ${r.text.slice(0, 300)}`).toBe(exp.http ?? 200);
  expect(r.contentType, 'Content-Type').toMatch(/^application\/json\b/);
  expect(r.body, `a JSON body, not: ${r.text.slice(0, 300)}`).toBeTypeOf('object');
  expect(Object.keys(r.body).sort(), `JSON-RPC error envelope: ${r.text.slice(0, 300)}`).toEqual(['error', 'id', 'jsonrpc']);
  expect(r.body.jsonrpc).toBe('2.0');
  if (exp.id !== undefined) expect(r.body.id).toEqual(exp.id);
  const e = r.body.error;
  expect(Object.keys(e).sort()).toEqual(['code', 'data', 'message']);
  expect(Number.isInteger(e.code)).toBe(true);
  expect(e.code, `error code of ${r.text.slice(0, 300)}`).toBe(exp.code);
  expect(typeof e.message === 'string' && e.message.length > 0).toBe(true);
  expectDetails(e.data, exp, r.text);
  expectNoLeak(r);
}

function expectRestError(r: Reply, exp: Expected): void {
  expect(r.status, `HTTP status of ${r.text.slice(0, 300)}`).toBe(exp.http);
  expect(r.contentType, 'Content-Type').toMatch(/^application\/(a2a\+)?json\b/);
  expect(r.body, `a JSON body, not: ${r.text.slice(0, 300)}`).toBeTypeOf('object');
  expect(Object.keys(r.body), `{error: google.rpc.Status}: ${r.text.slice(0, 300)}`).toEqual(['error']);
  const e = r.body.error;
  expect(Object.keys(e).sort()).toEqual(['code', 'details', 'message', 'status']);
  expect(e.code, 'error.code is the HTTP status').toBe(r.status);
  expect(e.status).toBe(exp.status);
  expect(typeof e.message === 'string' && e.message.length > 0).toBe(true);
  expectDetails(e.details, exp, r.text);
  expectNoLeak(r);
}

// ---------------------------------------------------------------- requests

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const validMessage = (text = 'hi') => ({ messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] });
const envelope = (method: string, params: unknown, id: unknown = 7) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

interface RpcCase {
  name: string;
  /** path below the server; default the echo agent's JSON-RPC endpoint */
  path?: string;
  headers?: Record<string, string>;
  body: string;
  expect: Expected;
}

const invalidParams = (field: string, id: Expected['id'] = 7): Expected => ({ code: -32602, reason: 'INVALID_PARAMS', field, id });
const withMessage = (patch: Record<string, unknown>, drop: string[] = []) => {
  const m: Record<string, unknown> = { ...validMessage(), ...patch };
  for (const k of drop) delete m[k];
  return { message: m };
};

const RPC_CASES: RpcCase[] = [
  // parse and envelope
  { name: 'invalid JSON', body: '{"jsonrpc":"2.0","id":1,"method":', expect: { code: -32700, reason: 'PARSE_ERROR', id: null } },
  { name: 'empty body', body: '', expect: { code: -32700, reason: 'PARSE_ERROR', id: null } },
  { name: 'not JSON at all', body: '<xml/>', expect: { code: -32700, reason: 'PARSE_ERROR', id: null } },
  { name: 'JSON array (empty batch)', body: '[]', expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'JSON array (batch)', body: `[${envelope('GetTask', { id: 'x' })}]`, expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'JSON scalar number', body: '42', expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'JSON scalar string', body: '"SendMessage"', expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'JSON null', body: 'null', expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'JSON true', body: 'true', expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'missing jsonrpc', body: JSON.stringify({ id: 7, method: 'GetTask', params: { id: 'x' } }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: 7 } },
  { name: 'jsonrpc "1.0"', body: JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'GetTask', params: { id: 'x' } }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: 7 } },
  { name: 'jsonrpc 2 (a number)', body: JSON.stringify({ jsonrpc: 2, id: 7, method: 'GetTask', params: { id: 'x' } }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: 7 } },
  { name: 'method not a string', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 42, params: {} }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: 7 } },
  { name: 'method missing', body: JSON.stringify({ jsonrpc: '2.0', id: 7, params: {} }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: 7 } },
  { name: 'id an object', body: envelope('GetTask', { id: 'x' }, { a: 1 }), expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'id an array', body: envelope('GetTask', { id: 'x' }, [1]), expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'id a boolean', body: envelope('GetTask', { id: 'x' }, true), expect: { code: -32600, reason: 'INVALID_REQUEST', id: null } },
  { name: 'unknown method', body: envelope('DoSomethingElse', {}), expect: { code: -32601, reason: 'METHOD_NOT_FOUND', id: 7 } },
  { name: 'v0.3 method name', body: envelope('message/send', { message: validMessage() }, 'abc'), expect: { code: -32601, reason: 'METHOD_NOT_FOUND', id: 'abc' } },
  { name: 'method "__proto__"', body: envelope('__proto__', {}), expect: { code: -32601, reason: 'METHOD_NOT_FOUND', id: 7 } },
  { name: 'params an array', body: envelope('GetTask', ['x']), expect: { code: -32602, reason: 'INVALID_PARAMS', id: 7 } },
  { name: 'params a string', body: envelope('SendMessage', 'hello'), expect: { code: -32602, reason: 'INVALID_PARAMS', id: 7 } },
  { name: 'params null', body: envelope('SendMessage', null), expect: { code: -32602, reason: 'INVALID_PARAMS', id: 7 } },
  // SendMessage field types
  { name: 'message missing', body: envelope('SendMessage', {}), expect: invalidParams('message') },
  { name: 'message not an object', body: envelope('SendMessage', { message: 'hi' }), expect: invalidParams('message') },
  { name: 'parts not an array', body: envelope('SendMessage', withMessage({ parts: { text: 'hi' } })), expect: invalidParams('message.parts') },
  { name: 'parts empty', body: envelope('SendMessage', withMessage({ parts: [] })), expect: invalidParams('message.parts') },
  { name: 'part with two content keys', body: envelope('SendMessage', withMessage({ parts: [{ text: 'a', url: 'https://example.com/a' }] })), expect: invalidParams('message.parts[0]') },
  { name: 'part with no content key', body: envelope('SendMessage', withMessage({ parts: [{ filename: 'a.txt' }] })), expect: invalidParams('message.parts[0]') },
  { name: 'part text not a string', body: envelope('SendMessage', withMessage({ parts: [{ text: 5 }] })), expect: invalidParams('message.parts[0].text') },
  { name: 'part raw not base64', body: envelope('SendMessage', withMessage({ parts: [{ raw: '***' }] })), expect: invalidParams('message.parts[0].raw') },
  { name: 'role ROLE_UNSPECIFIED', body: envelope('SendMessage', withMessage({ role: 'ROLE_UNSPECIFIED' })), expect: invalidParams('message.role') },
  { name: 'role "robot"', body: envelope('SendMessage', withMessage({ role: 'robot' })), expect: invalidParams('message.role') },
  { name: 'role ROLE_AGENT from a client', body: envelope('SendMessage', withMessage({ role: 'ROLE_AGENT' })), expect: invalidParams('message.role') },
  { name: 'messageId missing', body: envelope('SendMessage', withMessage({}, ['messageId'])), expect: invalidParams('message.messageId') },
  { name: 'messageId a number', body: envelope('SendMessage', withMessage({ messageId: 12 })), expect: invalidParams('message.messageId') },
  { name: 'configuration.historyLength -1', body: envelope('SendMessage', { message: validMessage(), configuration: { historyLength: -1 } }), expect: invalidParams('configuration.historyLength') },
  { name: 'configuration.returnImmediately "yes"', body: envelope('SendMessage', { message: validMessage(), configuration: { returnImmediately: 'yes' } }), expect: invalidParams('configuration.returnImmediately') },
  {
    name: 'push config url not a URL',
    body: envelope('SendMessage', { message: validMessage(), configuration: { taskPushNotificationConfig: { url: 'not a url' } } }),
    expect: invalidParams('configuration.taskPushNotificationConfig.url'),
  },
  // GetTask / ListTasks
  { name: 'GetTask id missing', body: envelope('GetTask', {}), expect: invalidParams('id') },
  { name: 'GetTask historyLength -1', body: envelope('GetTask', { id: 'x', historyLength: -1 }), expect: invalidParams('historyLength') },
  { name: 'GetTask historyLength "abc"', body: envelope('GetTask', { id: 'x', historyLength: 'abc' }), expect: invalidParams('historyLength') },
  { name: 'GetTask historyLength 1.5', body: envelope('GetTask', { id: 'x', historyLength: 1.5 }), expect: invalidParams('historyLength') },
  { name: 'ListTasks pageSize 0', body: envelope('ListTasks', { pageSize: 0 }), expect: invalidParams('pageSize') },
  { name: 'ListTasks pageSize 101', body: envelope('ListTasks', { pageSize: 101 }), expect: invalidParams('pageSize') },
  { name: 'ListTasks pageSize "x"', body: envelope('ListTasks', { pageSize: 'x' }), expect: invalidParams('pageSize') },
  { name: 'ListTasks status TASK_STATE_NOPE', body: envelope('ListTasks', { status: 'TASK_STATE_NOPE' }), expect: invalidParams('status') },
  { name: 'ListTasks status 99', body: envelope('ListTasks', { status: 99 }), expect: invalidParams('status') },
  { name: 'ListTasks pageToken "!!!"', body: envelope('ListTasks', { pageToken: '!!!' }), expect: invalidParams('pageToken') },
  { name: 'ListTasks statusTimestampAfter "yesterday"', body: envelope('ListTasks', { statusTimestampAfter: 'yesterday' }), expect: invalidParams('statusTimestampAfter') },
  { name: 'ListTasks historyLength -1', body: envelope('ListTasks', { historyLength: -1 }), expect: invalidParams('historyLength') },
  // unknown task
  { name: 'GetTask unknown id', body: envelope('GetTask', { id: 'no-such-task' }), expect: { code: -32001, reason: 'TASK_NOT_FOUND', id: 7 } },
  { name: 'CancelTask unknown id', body: envelope('CancelTask', { id: 'no-such-task' }), expect: { code: -32001, reason: 'TASK_NOT_FOUND', id: 7 } },
  { name: 'SubscribeToTask unknown id', body: envelope('SubscribeToTask', { id: 'no-such-task' }), expect: { code: -32001, reason: 'TASK_NOT_FOUND', id: 7 } },
  { name: 'SendMessage to an unknown taskId', body: envelope('SendMessage', withMessage({ taskId: 'no-such-task' })), expect: { code: -32001, reason: 'TASK_NOT_FOUND', id: 7 } },
  // tenants
  { name: 'shared endpoint, params.tenant "nope"', path: '/a2a', body: envelope('GetTask', { id: 'x', tenant: 'nope' }), expect: invalidParams('tenant') },
  { name: 'shared endpoint SendMessage, params.tenant "nope"', path: '/a2a', body: envelope('SendMessage', { message: validMessage(), tenant: 'nope' }), expect: invalidParams('tenant') },
  { name: 'agent endpoint, params.tenant of another agent', body: envelope('GetTask', { id: 'x', tenant: 'nope' }), expect: invalidParams('tenant') },
  { name: 'unknown agent base path', path: '/a2a/nope', body: envelope('GetTask', { id: 'x' }), expect: { code: -32601, reason: 'METHOD_NOT_FOUND' } },
  // service parameters and media types
  { name: 'missing A2A-Version', headers: { 'content-type': 'application/json' }, body: envelope('GetTask', { id: 'x' }), expect: { code: -32009, reason: 'VERSION_NOT_SUPPORTED', id: 7 } },
  { name: 'A2A-Version 2.0', headers: { ...JSON_HEADERS, 'a2a-version': '2.0' }, body: envelope('GetTask', { id: 'x' }), expect: { code: -32009, reason: 'VERSION_NOT_SUPPORTED', id: 7 } },
  { name: 'A2A-Version garbage', headers: { ...JSON_HEADERS, 'a2a-version': 'one point oh' }, body: envelope('GetTask', { id: 'x' }), expect: { code: -32009, reason: 'VERSION_NOT_SUPPORTED', id: 7 } },
  { name: 'Content-Type text/plain', headers: { ...JSON_HEADERS, 'content-type': 'text/plain' }, body: envelope('GetTask', { id: 'x' }), expect: { http: 415, code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED' } },
  {
    name: 'Content-Type application/x-www-form-urlencoded',
    headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'a=b',
    expect: { http: 415, code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  },
  // size
  {
    name: `body over limits.bodyBytes (${BODY_LIMIT})`,
    body: envelope('SendMessage', { message: validMessage('x'.repeat(BODY_LIMIT + 10)) }),
    expect: { http: 413, code: -32600, reason: 'PAYLOAD_TOO_LARGE', id: null },
  },
  // bad percent-encoding in the agent segment of the JSON-RPC path
  { name: 'bad percent-encoding in the path', path: '/a2a/%E0%A4%A', body: envelope('GetTask', { id: 'x' }), expect: { http: 400, code: -32600, reason: 'INVALID_REQUEST' } },
];

interface RestCase {
  name: string;
  method: string;
  /** path below /a2a/echo unless it starts with /a2a */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expect: Expected;
}

const restInvalid = (field: string): Expected => ({ http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS', field });
const sendBody = (params: unknown) => JSON.stringify(params);

const REST_CASES: RestCase[] = [
  { name: 'invalid JSON', method: 'POST', path: '/message:send', body: '{"message":', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'PARSE_ERROR' } },
  { name: 'JSON array', method: 'POST', path: '/message:send', body: '[]', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'JSON scalar', method: 'POST', path: '/message:send', body: '42', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'JSON null', method: 'POST', path: '/message:send', body: 'null', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'empty body', method: 'POST', path: '/message:send', body: '', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'message missing', method: 'POST', path: '/message:send', body: '{}', expect: restInvalid('message') },
  { name: 'parts not an array', method: 'POST', path: '/message:send', body: sendBody(withMessage({ parts: 'hi' })), expect: restInvalid('message.parts') },
  { name: 'parts empty', method: 'POST', path: '/message:send', body: sendBody(withMessage({ parts: [] })), expect: restInvalid('message.parts') },
  { name: 'part with two content keys', method: 'POST', path: '/message:send', body: sendBody(withMessage({ parts: [{ text: 'a', data: { b: 1 } }] })), expect: restInvalid('message.parts[0]') },
  { name: 'role ROLE_UNSPECIFIED', method: 'POST', path: '/message:send', body: sendBody(withMessage({ role: 'ROLE_UNSPECIFIED' })), expect: restInvalid('message.role') },
  { name: 'role "robot"', method: 'POST', path: '/message:send', body: sendBody(withMessage({ role: 'robot' })), expect: restInvalid('message.role') },
  { name: 'messageId missing', method: 'POST', path: '/message:send', body: sendBody(withMessage({}, ['messageId'])), expect: restInvalid('message.messageId') },
  { name: 'GetTask historyLength=-1', method: 'GET', path: '/tasks/x?historyLength=-1', expect: restInvalid('historyLength') },
  { name: 'GetTask historyLength=abc', method: 'GET', path: '/tasks/x?historyLength=abc', expect: restInvalid('historyLength') },
  { name: 'ListTasks pageSize=0', method: 'GET', path: '/tasks?pageSize=0', expect: restInvalid('pageSize') },
  { name: 'ListTasks pageSize=101', method: 'GET', path: '/tasks?pageSize=101', expect: restInvalid('pageSize') },
  { name: 'ListTasks pageSize=x', method: 'GET', path: '/tasks?pageSize=x', expect: restInvalid('pageSize') },
  { name: 'ListTasks status=TASK_STATE_NOPE', method: 'GET', path: '/tasks?status=TASK_STATE_NOPE', expect: restInvalid('status') },
  { name: 'ListTasks pageToken=!!!', method: 'GET', path: '/tasks?pageToken=!!!', expect: restInvalid('pageToken') },
  { name: 'ListTasks statusTimestampAfter=yesterday', method: 'GET', path: '/tasks?statusTimestampAfter=yesterday', expect: restInvalid('statusTimestampAfter') },
  { name: 'ListTasks includeArtifacts=maybe', method: 'GET', path: '/tasks?includeArtifacts=maybe', expect: restInvalid('includeArtifacts') },
  { name: 'GetTask unknown id', method: 'GET', path: '/tasks/no-such-task', expect: { http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' } },
  { name: 'CancelTask unknown id', method: 'POST', path: '/tasks/no-such-task:cancel', expect: { http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' } },
  { name: 'SubscribeToTask unknown id', method: 'POST', path: '/tasks/no-such-task:subscribe', expect: { http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' } },
  { name: 'push configs of an unknown task', method: 'GET', path: '/tasks/no-such-task/pushNotificationConfigs', expect: { http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' } },
  // tenants
  {
    name: 'shared form, unknown tenant /a2a/nope/message:send',
    method: 'POST',
    path: '/a2a/nope/message:send',
    body: sendBody({ message: validMessage() }),
    expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' },
  },
  { name: 'tenant segment of another agent below the agent', method: 'POST', path: '/nope/message:send', body: sendBody({ message: validMessage() }), expect: restInvalid('tenant') },
  // service parameters and media types
  { name: 'missing A2A-Version', method: 'GET', path: '/tasks/x', headers: {}, expect: { http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED' } },
  { name: 'A2A-Version 2.0', method: 'GET', path: '/tasks/x', headers: { 'a2a-version': '2.0' }, expect: { http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED' } },
  { name: 'A2A-Version=2.0 as a query parameter', method: 'GET', path: '/tasks/x?A2A-Version=2.0', headers: {}, expect: { http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED' } },
  {
    name: 'Content-Type text/plain',
    method: 'POST',
    path: '/message:send',
    headers: { 'a2a-version': '1.0', 'content-type': 'text/plain' },
    body: sendBody({ message: validMessage() }),
    expect: { http: 415, status: 'INVALID_ARGUMENT', reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  },
  // size
  {
    name: `body over limits.bodyBytes (${BODY_LIMIT})`,
    method: 'POST',
    path: '/message:send',
    body: sendBody({ message: validMessage('x'.repeat(BODY_LIMIT + 10)) }),
    expect: { http: 413, status: 'RESOURCE_EXHAUSTED', reason: 'PAYLOAD_TOO_LARGE' },
  },
  // verbs and paths
  { name: 'GET message:send', method: 'GET', path: '/message:send', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'PUT message:send', method: 'PUT', path: '/message:send', body: sendBody({ message: validMessage() }), expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'PATCH tasks/{id}', method: 'PATCH', path: '/tasks/x', body: '{}', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'DELETE tasks/{id}', method: 'DELETE', path: '/tasks/x', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'POST tasks (list)', method: 'POST', path: '/tasks', body: '{}', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'GET tasks/{id}:cancel', method: 'GET', path: '/tasks/x:cancel', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'GET on the JSON-RPC endpoint', method: 'GET', path: '/a2a/echo', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'unknown REST path', method: 'GET', path: '/foo/bar', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'unknown verb suffix', method: 'POST', path: '/tasks/x:explode', body: '{}', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  { name: 'too many segments', method: 'GET', path: '/tasks/x/pushNotificationConfigs/y/z', expect: { http: 404, status: 'UNIMPLEMENTED', reason: 'METHOD_NOT_FOUND' } },
  // bad percent-encoding: our http-app maps it to InvalidRequest (src/server/http-app.ts restRoute)
  { name: 'bad percent-encoding in a task id', method: 'GET', path: '/tasks/%E0%A4%A', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'bad percent-encoding (%ZZ) in a tenant segment', method: 'GET', path: '/%ZZ/tasks/x', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
  { name: 'bad percent-encoding in the agent segment', method: 'GET', path: '/a2a/%E0%A4%A/tasks/x', expect: { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' } },
];

// ---------------------------------------------------------------- the server

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    // blockingSendTimeoutMs below ANSWER_WITHIN_MS, so a send that never completes still answers in time
    limits: { bodyBytes: BODY_LIMIT, headerBytes: HEADER_LIMIT, blockingSendTimeoutMs: 4_000 },
  });
});
afterAll(async () => s?.stop());

async function expectServerHealthy(): Promise<void> {
  const r = await send(`${s.http}/a2a/echo`, { method: 'POST', headers: JSON_HEADERS, body: envelope('SendMessage', { message: userMessage('still here') }) });
  expect(r.status).toBe(200);
  expect(r.body?.result?.task?.status?.state, r.text.slice(0, 300)).toBe('TASK_STATE_COMPLETED');
  expect(r.body.result.task.artifacts[0].parts).toEqual([{ text: 'still here' }]);
}

describe('JSON-RPC: malformed requests get the spec error', () => {
  it.each(RPC_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await send(`${s.http}${c.path ?? '/a2a/echo'}`, { method: 'POST', headers: c.headers ?? JSON_HEADERS, body: c.body });
    expectJsonRpcError(r, c.expect);
  });
});

describe('HTTP+JSON: malformed requests get the spec error', () => {
  it.each(REST_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const url = c.path.startsWith('/a2a') ? `${s.http}${c.path}` : `${s.http}/a2a/echo${c.path}`;
    const headers = c.headers ?? (c.body !== undefined ? { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' } : { 'a2a-version': '1.0' });
    const r = await send(url, { method: c.method, headers, body: c.body });
    expectRestError(r, c.expect);
  });
});

describe('HTTP edge limits', () => {
  it(`headers over limits.headerBytes (${HEADER_LIMIT}) get 431 with no stack trace`, async () => {
    for (const [path, method, body] of [
      ['/a2a/echo', 'POST', envelope('GetTask', { id: 'x' })],
      ['/a2a/echo/tasks/x', 'GET', undefined],
    ] as const) {
      const r = await send(`${s.http}${path}`, { method, headers: { ...JSON_HEADERS, 'x-padding': 'p'.repeat(HEADER_LIMIT + 1024) }, body });
      expect(r.status).toBe(431);
      if (r.text) expect(r.contentType).toMatch(/json/);
      expectNoLeak(r);
    }
  });

  it('an over-long path segment gets a binding-shaped error, not the framework one', async () => {
    const r = await send(`${s.http}/a2a/${'a'.repeat(600)}/tasks/x`, { headers: { 'a2a-version': '1.0' } });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expectRestError(r, { http: r.status, status: r.status === 404 ? 'UNIMPLEMENTED' : 'INVALID_ARGUMENT', reason: r.status === 404 ? 'METHOD_NOT_FOUND' : 'INVALID_REQUEST' });
  });
});

describe('nesting 10 000 levels deep', () => {
  const deepParams = () => ({ message: { ...validMessage(), parts: [{ data: JSON.parse(deepArray(10_000)) as unknown }] } });
  const deepBody = (method: string) => `{"jsonrpc":"2.0","id":9,"method":"${method}","params":{"message":{"messageId":"m-deep-${Math.random()}","role":"ROLE_USER","parts":[{"data":${deepArray(10_000)}}]}}}`;

  it('JSON-RPC SendMessage: answered promptly, either echoed or refused as invalid params (not an internal error or a timeout)', async () => {
    expect(deepParams().message.parts).toHaveLength(1); // the payload itself is valid JSON
    const started = Date.now();
    const r = await send(`${s.http}/a2a/echo`, { method: 'POST', headers: JSON_HEADERS, body: deepBody('SendMessage') });
    const ms = Date.now() - started;
    expect(r.status).toBe(200);
    expectNoLeak(r);
    if (r.body?.error) expectJsonRpcError(r, { code: -32602, reason: 'INVALID_PARAMS', id: 9 });
    else expect(r.body?.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(ms, 'answer time (ms)').toBeLessThan(2_000);
  });

  it('HTTP+JSON message:send: answered promptly with a 2xx or a 400', async () => {
    const body = `{"message":{"messageId":"m-deep-rest","role":"ROLE_USER","parts":[{"data":${deepArray(10_000)}}]}}`;
    const r = await send(`${s.http}/a2a/echo/message:send`, { method: 'POST', headers: JSON_HEADERS, body });
    expectNoLeak(r);
    if (r.status !== 200) expectRestError(r, { http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' });
  });

  it('JSON-RPC SendStreamingMessage: answered (stream or error) instead of hanging', async () => {
    let r: Reply | undefined;
    let failure: unknown;
    try {
      r = await send(`${s.http}/a2a/echo`, { method: 'POST', headers: JSON_HEADERS, body: deepBody('SendStreamingMessage'), timeoutMs: 6_000 });
    } catch (err) {
      failure = err;
    }
    expect(failure === undefined ? 'answered' : `no answer within 6 s (${String(failure)})`).toBe('answered');
    expectNoLeak(r!);
  });

  it('the server still serves normal requests', expectServerHealthy);
});

// ---------------------------------------------------------------- gRPC

describe('gRPC: malformed requests get the spec status', () => {
  let client: grpc.Client;
  const service = a2aServiceDefinition();
  beforeAll(() => {
    client = new grpc.Client(s.grpc, grpc.credentials.createInsecure());
  });
  afterAll(() => client?.close());

  const metadata = (values: Record<string, string | undefined>) => {
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(values)) if (v !== undefined) md.set(k, v);
    return md;
  };

  function unary(method: string, request: object, md: Record<string, string | undefined> = { 'a2a-version': '1.0' }): Promise<{ err?: grpc.ServiceError; response?: any }> {
    const d = service[method]!;
    return new Promise((resolve) => {
      client.makeUnaryRequest(d.path, d.requestSerialize, d.responseDeserialize, request, metadata(md), { deadline: Date.now() + ANSWER_WITHIN_MS }, (err, response) => resolve(err ? { err } : { response }));
    });
  }

  /** Sends bytes that are not what the method's proto says. */
  function unaryRaw(method: string, bytes: Buffer): Promise<grpc.ServiceError | undefined> {
    const d = service[method]!;
    return new Promise((resolve) => {
      client.makeUnaryRequest(
        d.path,
        (b: Buffer) => b,
        d.responseDeserialize,
        bytes,
        metadata({ 'a2a-version': '1.0' }),
        { deadline: Date.now() + ANSWER_WITHIN_MS },
        (err) => resolve(err ?? undefined),
      );
    });
  }

  function expectStatus(err: grpc.ServiceError | undefined, code: grpc.status, exp?: Expected): void {
    expect(err, 'the call fails').toBeDefined();
    expect(grpc.status[err!.code], err!.details).toBe(grpc.status[code]);
    expect(leaksIn(err!.details ?? ''), `internal text in: ${err!.details}`).toEqual([]);
    if (!exp) return;
    const raw = err!.metadata.get(STATUS_DETAILS_KEY)[0];
    expect(Buffer.isBuffer(raw), 'grpc-status-details-bin is present').toBe(true);
    const status = decodeStatusDetails(raw as Buffer);
    expect(status.code).toBe(code);
    expectDetails(status.details, exp, JSON.stringify(status));
  }

  const wireMessage = () => encodeMessage(userMessage('grpc') as never);

  it('SendMessage without a message: INVALID_ARGUMENT naming message', async () => {
    const { err } = await unary('SendMessage', {});
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'message' });
  });

  it('SendMessage with no parts: INVALID_ARGUMENT naming message.parts', async () => {
    const { err } = await unary('SendMessage', { message: { ...wireMessage(), parts: [] } });
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'message.parts' });
  });

  it('SendMessage with ROLE_UNSPECIFIED: INVALID_ARGUMENT naming message.role', async () => {
    const { err } = await unary('SendMessage', { message: { ...wireMessage(), role: 'ROLE_UNSPECIFIED' } });
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'message.role' });
  });

  it('missing a2a-version: FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    const { err } = await unary('GetTask', { id: 'x' }, {});
    expectStatus(err, grpc.status.FAILED_PRECONDITION, { reason: 'VERSION_NOT_SUPPORTED' });
  });

  it('a2a-version 2.0: FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    const { err } = await unary('GetTask', { id: 'x' }, { 'a2a-version': '2.0' });
    expectStatus(err, grpc.status.FAILED_PRECONDITION, { reason: 'VERSION_NOT_SUPPORTED' });
  });

  it('GetTask of an unknown task: NOT_FOUND TASK_NOT_FOUND', async () => {
    const { err } = await unary('GetTask', { id: 'no-such-task' });
    expectStatus(err, grpc.status.NOT_FOUND, { reason: 'TASK_NOT_FOUND' });
  });

  it('unknown tenant: INVALID_ARGUMENT naming tenant', async () => {
    const { err } = await unary('GetTask', { id: 'x', tenant: 'nope' });
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'tenant' });
  });

  it.each([0, -1, 101, 1_000_000])('ListTasks pageSize %i: INVALID_ARGUMENT naming pageSize (as on JSON-RPC and HTTP+JSON)', async (pageSize) => {
    const { err, response } = await unary('ListTasks', { pageSize });
    expect(err, `accepted: ${JSON.stringify(response)}`).toBeDefined();
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'pageSize' });
  });

  it('ListTasks historyLength -1: INVALID_ARGUMENT naming historyLength', async () => {
    const { err } = await unary('ListTasks', { historyLength: -1 });
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'historyLength' });
  });

  it('ListTasks pageToken "!!!": INVALID_ARGUMENT naming pageToken', async () => {
    const { err } = await unary('ListTasks', { pageToken: '!!!' });
    expectStatus(err, grpc.status.INVALID_ARGUMENT, { reason: 'INVALID_PARAMS', field: 'pageToken' });
  });

  it('bytes that are not a protobuf message: a client error, not INTERNAL', async () => {
    const err = await unaryRaw('SendMessage', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x07, 0x01]));
    expect(err, 'the call fails').toBeDefined();
    expect(leaksIn(err!.details ?? ''), `internal text in: ${err!.details}`).toEqual([]);
    expect(grpc.status[err!.code], err!.details).toBe('INVALID_ARGUMENT');
  });

  it(`a message over limits.bodyBytes: RESOURCE_EXHAUSTED`, async () => {
    const { err } = await unary('SendMessage', { message: encodeMessage(userMessage('x'.repeat(BODY_LIMIT + 10)) as never) });
    expectStatus(err, grpc.status.RESOURCE_EXHAUSTED);
  });

  it('still answers a normal SendMessage afterwards', async () => {
    const { err, response } = await unary('SendMessage', { message: wireMessage() });
    expect(err?.details).toBeUndefined();
    expect(response?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('after the whole table', () => {
  it('the server still answers a normal SendMessage (JSON-RPC and HTTP+JSON)', async () => {
    await expectServerHealthy();
    const r = await send(`${s.http}/a2a/echo/message:send`, { method: 'POST', headers: JSON_HEADERS, body: sendBody({ message: userMessage('rest ok') }) });
    expect(r.status).toBe(200);
    expect(r.body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

// ---------------------------------------------------------------- fuzz

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with FUZZ_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function fuzzCase(rand: () => number, n: number): { description: string; body: string; id: Json | undefined } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const int = (max: number) => Math.floor(rand() * max);
  const word = () => Array.from({ length: 1 + int(12) }, () => pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split(''))).join('');
  const scalar = (): Json =>
    pick<() => Json>([
      () => null,
      () => true,
      () => false,
      () => 0,
      () => -1,
      () => int(1e6),
      () => -int(1e9) - 0.5,
      () => 1e308,
      () => Number.MAX_SAFE_INTEGER + 2,
      () => '',
      () => word(),
      () => pick(['ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED', 'TASK_STATE_COMPLETED', 'SendMessage', 'GetTask', 'ListTasks', 'CancelTask', '2.0', '__proto__', 'constructor']),
      () => `ü€𝄞\u0000\u202e${word()}`,
      () => 'x'.repeat(int(5000)),
    ])();
  const value = (depth = 0): Json => {
    if (depth > 3 || rand() < 0.6) return scalar();
    if (rand() < 0.5) return Array.from({ length: int(4) }, () => value(depth + 1));
    const o: { [k: string]: Json } = {};
    for (let i = int(4); i > 0; i--) o[pick([word(), 'text', 'data', 'url', 'raw', 'parts', 'role', 'messageId', 'metadata', '__proto__'])] = value(depth + 1);
    return o;
  };

  const base: { [k: string]: Json } = {
    jsonrpc: '2.0',
    id: n,
    method: 'SendMessage',
    params: {
      message: {
        messageId: `fuzz-${n}`,
        role: 'ROLE_USER',
        parts: [{ text: 'fuzz' }, { data: { a: [1, 2, { b: null }] }, mediaType: 'application/json' }],
        metadata: { k: 'v' },
      },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2, returnImmediately: false },
      metadata: { trace: 'x' },
    },
  };

  // every container path in the body, to mutate one
  const paths: Array<Array<string | number>> = [];
  const walk = (v: Json, p: Array<string | number>) => {
    paths.push(p);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
  };
  walk(base, []);
  const nonRoot = paths.filter((p) => p.length > 0);
  const setAt = (root: { [k: string]: Json }, p: Array<string | number>, v: Json | undefined) => {
    let cur: any = root;
    for (const k of p.slice(0, -1)) cur = cur[k];
    const last = p[p.length - 1]!;
    if (v === undefined) {
      if (Array.isArray(cur)) cur.splice(Number(last), 1);
      else delete cur[last];
    } else cur[last] = v;
  };
  const clone = (): { [k: string]: Json } => JSON.parse(JSON.stringify(base));
  const idOf = (o: { [k: string]: Json }) => o.id;

  const kind = int(100);
  if (kind < 45) {
    const o = clone();
    const p = pick(nonRoot);
    const v = value();
    setAt(o, p, v);
    return { description: `set ${p.join('.')} = ${JSON.stringify(v).slice(0, 80)}`, body: JSON.stringify(o), id: idOf(o) };
  }
  if (kind < 60) {
    const o = clone();
    const p = pick(nonRoot);
    setAt(o, p, undefined);
    return { description: `delete ${p.join('.')}`, body: JSON.stringify(o), id: idOf(o) };
  }
  if (kind < 68) {
    const o = clone();
    const containers = paths.filter((p) => {
      let cur: any = o;
      for (const k of p) cur = cur[k];
      return cur && typeof cur === 'object' && !Array.isArray(cur);
    });
    const p = pick(containers);
    const key = pick([word(), 'tenant', 'taskId', 'contextId', 'referenceTaskIds', 'extensions', 'historyLength', 'returnImmediately', 'pageSize', 'status', 'id']);
    const v = value();
    setAt(o, [...p, key], v);
    return { description: `add ${[...p, key].join('.')} = ${JSON.stringify(v).slice(0, 80)}`, body: JSON.stringify(o), id: idOf(o) };
  }
  if (kind < 83) {
    const text = JSON.stringify(clone());
    const at = int(text.length);
    return { description: `truncate at ${at}/${text.length}`, body: text.slice(0, at), id: undefined };
  }
  if (kind < 90) {
    const chars = JSON.stringify(clone()).split('');
    for (let i = 1 + int(3); i > 0; i--) chars[int(chars.length)] = pick(['"', '{', '}', '[', ']', ',', ':', '\\', 'x', '0', ' ', '\u0000']);
    return { description: 'flipped characters', body: chars.join(''), id: undefined };
  }
  // nest 10 000 levels deep at a random place
  const o = clone();
  const p = pick(nonRoot);
  const marker = '"__DEEP__"';
  setAt(o, p, '__DEEP__');
  const deep = rand() < 0.5 ? deepArray(10_000) : `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  return { description: `nest 10000 levels at ${p.join('.')}`, body: JSON.stringify(o).replace(marker, deep), id: idOf(o) };
}

function fuzzProblems(r: Reply, sentId: Json | undefined): string[] {
  const out: string[] = [];
  if (r.status >= 500) out.push(`HTTP ${r.status}`);
  if (!/^application\/json\b/.test(r.contentType)) out.push(`Content-Type ${r.contentType}`);
  const b = r.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return [...out, `not a JSON object: ${r.text.slice(0, 200)}`];
  if (b.jsonrpc !== '2.0') out.push('jsonrpc is not "2.0"');
  if (!('id' in b)) out.push('no id');
  const hasResult = 'result' in b;
  const hasError = 'error' in b;
  if (hasResult === hasError) out.push('needs exactly one of result and error');
  if (hasError) {
    const e = b.error;
    if (!Number.isInteger(e?.code)) out.push('error.code not an integer');
    if (typeof e?.message !== 'string') out.push('error.message not a string');
    if (!Array.isArray(e?.data) || !e.data.some((d: any) => d?.['@type'] === ERROR_INFO && typeof d.reason === 'string')) out.push('error.data has no ErrorInfo');
    if (e?.code === -32603) out.push(`internal error (-32603 ${e.data?.[0]?.reason}) for client input`);
    const envelopeFailure = e?.code === -32700 || e?.code === -32600;
    if (!envelopeFailure && sentId !== undefined && JSON.stringify(b.id) !== JSON.stringify(sentId)) out.push(`id ${JSON.stringify(b.id)} != sent ${JSON.stringify(sentId)}`);
  } else if (hasResult) {
    if (sentId !== undefined && JSON.stringify(b.id) !== JSON.stringify(sentId)) out.push(`id ${JSON.stringify(b.id)} != sent ${JSON.stringify(sentId)}`);
  }
  const leaks = leaksIn(r.text);
  if (leaks.length) out.push(`leaks ${leaks.join(', ')}`);
  return out;
}

describe('fuzz: 300 random mutations of a valid SendMessage', () => {
  it('every answer is a well-formed JSON-RPC error or success, below 500, and the server stays up', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20_260_101);
    const rand = prng(seed);
    const cases = Array.from({ length: 300 }, (_, n) => fuzzCase(rand, n));
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < cases.length) {
          const n = next++;
          const c = cases[n]!;
          try {
            const r = await send(`${s.http}/a2a/echo`, { method: 'POST', headers: JSON_HEADERS, body: c.body });
            const problems = fuzzProblems(r, c.id);
            if (problems.length) failures.push(`#${n} ${c.description}: ${problems.join('; ')}`);
          } catch (err) {
            failures.push(`#${n} ${c.description}: no answer within ${ANSWER_WITHIN_MS} ms (${err instanceof Error ? err.name : String(err)})`);
          }
        }
      }),
    );
    const health = await send(`${s.http}/healthz`);
    expect(health.status).toBe(200);
    await expectServerHealthy();
    expect(failures, `FUZZ_SEED=${seed}: ${failures.length} of ${cases.length} mutations were mishandled`).toEqual([]);
  }, 180_000);
});
