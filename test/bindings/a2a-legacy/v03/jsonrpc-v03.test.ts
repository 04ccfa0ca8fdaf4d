/**
 * A2A v0.3 over JSON-RPC, end to end over real HTTP: a client that sends no A2A-Version and uses
 * slash methods gets v0.3 shapes back (kind discriminators, kebab-case states, `final`, v0.3 error
 * codes), translated at the edge to and from the core's v1.0 model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { rpc03, stream03, uid, v03Message, V03_SERVER_CONFIG, waitForState } from './v03-support.js';

let s: TestServer;
let echo: string;
let conf: string;

beforeAll(async () => {
  s = await startTestServer(V03_SERVER_CONFIG);
  echo = `${s.http}/a2a/echo`;
  conf = `${s.http}/a2a/conformance`;
});
afterAll(async () => {
  await s?.stop();
});

describe('message/send', () => {
  it('answers a header-less request with a bare v0.3 Task: kind, kebab-case state, v0.3 parts', async () => {
    const parts = [
      { kind: 'text', text: 'hello' },
      { kind: 'file', file: { bytes: 'aGk=', name: 'hi.txt', mimeType: 'text/plain' } },
      { kind: 'file', file: { uri: 'https://example.com/a.json', mimeType: 'application/json' } },
      { kind: 'data', data: { a: 1, nested: { b: [true] } } },
    ];
    const r = await rpc03(echo, 'message/send', { message: v03Message('x', { parts }) }, {}, 'req-1');
    expect(r.status).toBe(200);
    expect(r.body.id).toBe('req-1');
    const task = r.body.result;
    expect(task?.kind, JSON.stringify(r.body)).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0].parts).toEqual(parts);
    expect(task.history?.[0]).toMatchObject({ kind: 'message', role: 'user' });
  });

  it('returns agent-made file (bytes and uri) and data artifacts as v0.3 parts', async () => {
    const expected: Array<[string, unknown]> = [
      ['tck-artifact-file-url', { kind: 'file', file: { uri: 'https://example.com/output.txt', name: 'output.txt', mimeType: 'text/plain' } }],
      ['tck-artifact-file', { kind: 'file', file: { bytes: 'dGNr', name: 'output.txt', mimeType: 'text/plain' } }],
      ['tck-artifact-data', { kind: 'data', data: { key: 'value', count: 42 } }],
      ['tck-artifact-text', { kind: 'text', text: 'Generated text content' }],
    ];
    for (const [prefix, part] of expected) {
      const r = await rpc03(conf, 'message/send', { message: v03Message('a', { messageId: uid(prefix) }) });
      expect(r.body.result.artifacts[0].parts, prefix).toEqual([part]);
    }
  });

  it('accepts A2A-Version: 0.3 (and 0.3.0) the same way', async () => {
    for (const version of ['0.3', '0.3.0']) {
      const r = await rpc03(echo, 'message/send', { message: v03Message('v') }, { 'a2a-version': version });
      expect(r.body.result?.status.state).toBe('completed');
    }
  });

  it('returns a bare v0.3 Message with role agent when the agent answers with a message', async () => {
    const r = await rpc03(conf, 'message/send', { message: v03Message('hi', { messageId: uid('tck-message-response') }) });
    expect(r.body.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'Direct message response' }] });
  });

  it('maps blocking:false to returnImmediately (the task comes back before it finishes)', async () => {
    const r = await rpc03(conf, 'message/send', { message: v03Message('long', { messageId: uid('test-resubscribe-message-id') }), configuration: { blocking: false } });
    expect(r.body.result.kind).toBe('task');
    expect(['submitted', 'working']).toContain(r.body.result.status.state);
    const c = await rpc03(conf, 'tasks/cancel', { id: r.body.result.id });
    expect(c.body.result).toMatchObject({ kind: 'task', id: r.body.result.id, status: { state: 'canceled' } });
  });

  it('continues an input-required task with a follow-up message in the same context', async () => {
    const first = await rpc03(conf, 'message/send', { message: v03Message('start', { messageId: uid('tck-input-required') }) });
    expect(first.body.result.status.state).toBe('input-required');
    expect(first.body.result.status.message).toMatchObject({ kind: 'message', role: 'agent' });
    const next = await rpc03(conf, 'message/send', {
      message: v03Message('done', { messageId: uid('tck-complete-task'), taskId: first.body.result.id, contextId: first.body.result.contextId }),
    });
    expect(next.body.result).toMatchObject({ id: first.body.result.id, status: { state: 'completed' } });
  });

  it('returns a rejected task in v0.3 state names', async () => {
    const r = await rpc03(conf, 'message/send', { message: v03Message('no', { messageId: uid('tck-reject-task') }) });
    expect(r.body.result.status.state).toBe('rejected');
  });

  it('answers a media type the agent does not accept with -32005 ContentTypeNotSupported', async () => {
    const parts = [{ kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } }];
    const r = await rpc03(echo, 'message/send', { message: v03Message('x', { parts }) });
    expect(r.body.error).toMatchObject({ code: -32005, data: { reason: 'CONTENT_TYPE_NOT_SUPPORTED' } });
  });

  it('refuses invalid v0.3 params with -32602 naming the v0.3 field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'message'],
      [{ message: { ...v03Message('x'), role: 'ROLE_USER' } }, 'message.role'],
      [{ message: { ...v03Message('x'), parts: [] } }, 'message.parts'],
      [{ message: v03Message('x', { parts: [{ kind: 'file', file: { name: 'f' } }] }) }, 'message.parts[0].file'],
      [{ message: v03Message('x', { parts: [{ kind: 'data', data: [1, 2] }] }) }, 'message.parts[0].data'],
      [{ message: v03Message('x', { parts: [{ kind: 'image', text: 'x' }] }) }, 'message.parts[0].kind'],
      [{ message: v03Message('x'), configuration: { blocking: 'yes' } }, 'configuration.blocking'],
    ];
    for (const [params, field] of cases) {
      const r = await rpc03(echo, 'message/send', params);
      expect(r.body.error?.code, JSON.stringify(params)).toBe(-32602);
      expect(r.body.error.data.fieldViolations[0].field).toBe(field);
      expect(Array.isArray(r.body.error.data)).toBe(false);
    }
  });
});

describe('message/stream', () => {
  it('streams bare v0.3 events with kind, in order, ending with a final status-update', async () => {
    const r = await stream03(conf, 'message/stream', { message: v03Message('s', { messageId: uid('tck-stream-001') }) }, 'st-7');
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/event-stream/);
    const results = r.events.map((e) => {
      expect(e.data).toMatchObject({ jsonrpc: '2.0', id: 'st-7' });
      return e.data.result;
    });
    expect(results.map((x) => x.kind + (x.status ? `:${x.status.state}` : ''))).toEqual(['task:submitted', 'status-update:working', 'artifact-update', 'status-update:completed']);
    expect(results[1].final).toBe(false);
    expect(results[3].final).toBe(true);
    expect(results[2].artifact.parts).toEqual([{ kind: 'text', text: 'Stream hello from TCK' }]);
  });

  it('streams chunked artifacts with append and lastChunk', async () => {
    const r = await stream03(conf, 'message/stream', { message: v03Message('c', { messageId: uid('tck-stream-artifact-chunked') }) });
    const chunks = r.events.map((e) => e.data.result).filter((x) => x.kind === 'artifact-update');
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, true],
    ]);
    expect(chunks[1].artifact.artifactId).toBe(chunks[0].artifact.artifactId);
  });

  it('marks input-required as final, the point where the stream closes', async () => {
    const r = await stream03(conf, 'message/stream', { message: v03Message('i', { messageId: uid('tck-input-required') }) });
    const last = r.events.at(-1)!.data.result;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
  });

  it('streams a direct message reply as one kind:message event', async () => {
    const r = await stream03(conf, 'message/stream', { message: v03Message('m', { messageId: uid('tck-message-response') }) });
    expect(r.events.map((e) => e.data.result.kind)).toEqual(['message']);
  });

  it('answers an invalid stream request with a plain JSON-RPC error, not a stream', async () => {
    const r = await stream03(conf, 'message/stream', { message: { kind: 'message' } }, 9);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ id: 9, error: { code: -32602 } });
  });
});

describe('tasks/get, tasks/cancel, tasks/resubscribe', () => {
  it('gets a task with historyLength and v0.3 shapes', async () => {
    const sent = await rpc03(echo, 'message/send', { message: v03Message('g') });
    const r = await rpc03(echo, 'tasks/get', { id: sent.body.result.id, historyLength: 0 });
    expect(r.body.result).toMatchObject({ kind: 'task', id: sent.body.result.id, status: { state: 'completed' } });
    expect(r.body.result.history ?? []).toEqual([]);
  });

  it('answers an unknown task with -32001 TaskNotFound and its reason in data', async () => {
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
      const r = await rpc03(echo, method, { id: 'no-such-task' });
      expect(r.body.error, method).toMatchObject({ code: -32001, data: { reason: 'TASK_NOT_FOUND' } });
    }
  });

  it('refuses to cancel a completed task with -32002 TaskNotCancelable', async () => {
    const sent = await rpc03(echo, 'message/send', { message: v03Message('done') });
    const r = await rpc03(echo, 'tasks/cancel', { id: sent.body.result.id });
    expect(r.body.error).toMatchObject({ code: -32002, message: expect.any(String) });
  });

  it('resubscribes to a running task and ends with final:true when it is canceled', async () => {
    const sent = await rpc03(conf, 'message/send', { message: v03Message('long', { messageId: uid('test-resubscribe-message-id') }), configuration: { blocking: false } });
    const taskId = sent.body.result.id;
    await waitForState(conf, taskId, ['working']);
    const streaming = stream03(conf, 'tasks/resubscribe', { id: taskId }, 'rs');
    await new Promise((r) => setTimeout(r, 100));
    await rpc03(conf, 'tasks/cancel', { id: taskId });
    const r = await streaming;
    const results = r.events.map((e) => e.data.result);
    expect(results[0]).toMatchObject({ kind: 'task', id: taskId });
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', taskId, final: true, status: { state: 'canceled' } });
  });
});

describe('tasks/pushNotificationConfig/*', () => {
  it('sets, gets, lists and deletes configs in v0.3 shapes', async () => {
    const sent = await rpc03(echo, 'message/send', { message: v03Message('p') });
    const taskId = sent.body.result.id;
    const cfg = { id: 'c1', url: 'http://127.0.0.1:9/hook', token: 'tok', authentication: { schemes: ['Bearer', 'Basic'], credentials: 'secret' } };
    const set = await rpc03(echo, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: cfg });
    // Lossy by design: v1.0 keeps one authentication scheme, the first.
    expect(set.body.result).toEqual({ taskId, pushNotificationConfig: { ...cfg, authentication: { schemes: ['Bearer'], credentials: 'secret' } } });

    const got = await rpc03(echo, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'c1' });
    expect(got.body.result).toEqual(set.body.result);

    // Without an id the config is named after the task, so get with only the task id finds it.
    const bare = await rpc03(echo, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: 'http://127.0.0.1:9/other' } });
    expect(bare.body.result).toEqual({ taskId, pushNotificationConfig: { id: taskId, url: 'http://127.0.0.1:9/other' } });
    const byTask = await rpc03(echo, 'tasks/pushNotificationConfig/get', { id: taskId });
    expect(byTask.body.result.pushNotificationConfig.url).toBe('http://127.0.0.1:9/other');

    const list = await rpc03(echo, 'tasks/pushNotificationConfig/list', { id: taskId });
    expect(Array.isArray(list.body.result)).toBe(true);
    expect(list.body.result.map((c: any) => c.pushNotificationConfig.id).sort()).toEqual(['c1', taskId].sort());

    const del = await rpc03(echo, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'c1' });
    expect(del.body).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    const gone = await rpc03(echo, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'c1' });
    expect(gone.body.error.code).toBe(-32001);
  });

  it('registers a config given in message/send configuration', async () => {
    const r = await rpc03(echo, 'message/send', { message: v03Message('p'), configuration: { pushNotificationConfig: { id: 'in-send', url: 'http://127.0.0.1:9/hook' } } });
    const list = await rpc03(echo, 'tasks/pushNotificationConfig/list', { id: r.body.result.id });
    expect(list.body.result).toEqual([{ taskId: r.body.result.id, pushNotificationConfig: { id: 'in-send', url: 'http://127.0.0.1:9/hook' } }]);
  });

  it('validates v0.3 push params: delete needs pushNotificationConfigId, schemes must not be empty', async () => {
    const del = await rpc03(echo, 'tasks/pushNotificationConfig/delete', { id: 't' });
    expect(del.body.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'pushNotificationConfigId' }] } });
    const set = await rpc03(echo, 'tasks/pushNotificationConfig/set', { taskId: 't', pushNotificationConfig: { url: 'http://127.0.0.1:9/h', authentication: { schemes: [] } } });
    expect(set.body.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'pushNotificationConfig.authentication.schemes' }] } });
  });
});

describe('agent/getAuthenticatedExtendedCard', () => {
  it('returns the extended card in the v0.3 shape', async () => {
    const r = await rpc03(echo, 'agent/getAuthenticatedExtendedCard');
    const card = r.body.result;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', name: 'Echo', preferredTransport: 'JSONRPC', capabilities: { streaming: true, pushNotifications: true } });
    expect(card.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/echo$/);
    expect(card.supportedInterfaces).toBeUndefined();
    expect(card.additionalInterfaces).toContainEqual({ url: card.url, transport: 'JSONRPC' });
    expect(card.skills.map((sk: any) => sk.id)).toContain('echo');
  });
});

describe('errors with their v0.3 codes', () => {
  it('-32003 PushNotificationNotSupported from an agent without push', async () => {
    const sent = await rpc03(`${s.http}/a2a/plain`, 'message/send', { message: v03Message('x') });
    const r = await rpc03(`${s.http}/a2a/plain`, 'tasks/pushNotificationConfig/set', { taskId: sent.body.result.id, pushNotificationConfig: { url: 'http://127.0.0.1:9/h' } });
    expect(r.body.error).toMatchObject({ code: -32003, data: { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' } });
  });

  it('-32004 UnsupportedOperation for the extended card of an agent that offers none (the core decides; -32007 is unit-tested)', async () => {
    const r = await rpc03(`${s.http}/a2a/plain`, 'agent/getAuthenticatedExtendedCard');
    expect(r.body.error).toMatchObject({ code: -32004, data: { reason: 'UNSUPPORTED_OPERATION' } });
  });

  it('-32004 UnsupportedOperation for message/stream on an agent without streaming', async () => {
    const r = await stream03(`${s.http}/a2a/plain`, 'message/stream', { message: v03Message('x') }, 5);
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32004, message: 'This agent does not support streaming', data: { reason: 'UNSUPPORTED_OPERATION' } } });
  });

  it('a required extension: refused as -32600 without it, activated and echoed via X-A2A-Extensions', async () => {
    const strict = `${s.http}/a2a/strict`;
    const refused = await rpc03(strict, 'message/send', { message: v03Message('x') });
    expect(refused.body.error).toMatchObject({ code: -32600, data: { reason: 'EXTENSION_SUPPORT_REQUIRED' } });
    const ok = await rpc03(strict, 'message/send', { message: v03Message('x') }, { 'x-a2a-extensions': 'urn:agentport:test:required' });
    expect(ok.body.result?.status.state).toBe('completed');
    expect(ok.headers.get('x-a2a-extensions')).toBe('urn:agentport:test:required');
  });
});

describe('dispatch by version', () => {
  it('answers the extended card without credentials as HTTP 401 with a v0.3 error body', async () => {
    const res = await fetch(echo, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'agent/getAuthenticatedExtendedCard' }) });
    const body = await res.json();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32000, data: { reason: 'UNAUTHENTICATED' } } });
  });

  it('keeps v1.0 methods without A2A-Version VersionNotSupported', async () => {
    const r = await rpc03(echo, 'GetTask', { id: 'x' });
    expect(r.body.error).toMatchObject({ code: -32009 });
  });

  it('treats a slash method sent as A2A-Version 1.0 as an unknown v1.0 method', async () => {
    const r = await rpc03(echo, 'message/send', { message: v03Message('x') }, { 'a2a-version': '1.0' });
    expect(r.body.error).toMatchObject({ code: -32601 });
  });

  it('answers methods v0.3 never had with -32601', async () => {
    const r = await rpc03(echo, 'tasks/list', {});
    expect(r.body.error).toMatchObject({ code: -32601 });
  });

  it('serves v0.3 on the shared endpoint, for the primary agent', async () => {
    const r = await rpc03(`${s.http}/a2a`, 'message/send', { message: v03Message('shared') });
    expect(r.body.result?.kind).toBe('task');
  });
});
