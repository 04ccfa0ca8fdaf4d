/**
 * Interop matrix, the other side: our client against a server built from the official A2A SDK
 * (@a2a-js/sdk 1.3), on each binding × version that server offers (JSON-RPC, HTTP+JSON, gRPC at
 * v1.0; the same three through its v0.3 compatibility layer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, A2AClientError, textMessage, type Binding } from '../../src/client/index.js';
import { startA2aJsServer, type A2aJsServer } from './a2a-js-server.js';
import { artifactTexts, collect, states } from './support.js';

let s: A2aJsServer;
beforeAll(async () => {
  s = await startA2aJsServer();
});
afterAll(() => s?.stop());

const CASES: Array<{ binding: Binding; version: string }> = [
  { binding: 'JSONRPC', version: '1.0' },
  { binding: 'HTTP+JSON', version: '1.0' },
  { binding: 'GRPC', version: '1.0' },
  { binding: 'JSONRPC', version: '0.3' },
  { binding: 'HTTP+JSON', version: '0.3' },
  { binding: 'GRPC', version: '0.3' },
];

describe.each(CASES)('client on a2a-js $binding v$version', ({ binding, version }) => {
  const connect = () => A2AClient.connect(s.cardUrl, { bindings: [binding], protocolVersions: [version] });

  it('uses that interface of the SDK card', async () => {
    const c = await connect();
    expect([c.currentInterface.protocolBinding, c.currentInterface.protocolVersion]).toEqual([binding, version]);
    c.close();
  });

  it.runIf(binding !== 'GRPC')('speaks that version on the wire', async () => {
    const seen: Array<{ url: string; version: string | null; method?: string }> = [];
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
      seen.push({ url: String(input), version: headers.get('a2a-version'), ...(body?.method ? { method: body.method } : {}) });
      return fetch(input, init);
    };
    const c = await A2AClient.connect(s.cardUrl, { bindings: [binding], protocolVersions: [version], fetch: recording });
    await c.sendMessage({ message: textMessage('wire') });
    const call = seen.at(-1)!;
    expect(call.version).toBe(version);
    if (binding === 'JSONRPC') expect(call.method).toBe(version === '1.0' ? 'SendMessage' : 'message/send');
    else expect(new URL(call.url).pathname).toBe(version === '1.0' ? '/a2a/rest/message:send' : '/a2a/rest/v1/message:send');
    c.close();
  });

  it('sends a message and reads the task back', async () => {
    const c = await connect();
    try {
      const r = await c.sendMessage({ message: textMessage('hello sdk') });
      if (!('task' in r)) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
      expect(r.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.task.artifacts?.[0]?.parts[0]?.text).toBe('hello sdk');
      expect((await c.getTask({ id: r.task.id })).status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
  });

  it('streams artifacts in order to completion', async () => {
    const c = await connect();
    try {
      const events = await collect(c.sendStreamingMessage({ message: textMessage('ticks 3 10') }));
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1', 'tick-2']);
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
  });

  it('cancels a running task', async () => {
    const c = await connect();
    try {
      const sent = await c.sendMessage({ message: textMessage('hold'), configuration: { returnImmediately: true } });
      if (!('task' in sent)) throw new Error('expected a task');
      const canceled = await c.cancelTask({ id: sent.task.id });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      c.close();
    }
  });

  it('maps an unknown task to TaskNotFound', async () => {
    const c = await connect();
    try {
      const err = await c.getTask({ id: 'no-such-task' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(A2AClientError);
      expect((err as A2AClientError).kind).toBe('TaskNotFound');
    } finally {
      c.close();
    }
  });

  it('creates, lists and deletes a push config', async () => {
    const c = await connect();
    try {
      const sent = await c.sendMessage({ message: textMessage('hold'), configuration: { returnImmediately: true } });
      if (!('task' in sent)) throw new Error('expected a task');
      const created = await c.createPushConfig(sent.task.id, { url: 'http://127.0.0.1:9/hook', id: 'cfg-1', token: 'tok-1' });
      expect(created).toMatchObject({ id: 'cfg-1', url: 'http://127.0.0.1:9/hook' });
      expect(await c.getPushConfig(sent.task.id, 'cfg-1')).toMatchObject({ id: 'cfg-1' });
      expect((await c.listPushConfigs(sent.task.id)).configs.map((x) => x.id)).toEqual(['cfg-1']);
      await c.deletePushConfig(sent.task.id, 'cfg-1');
      expect((await c.listPushConfigs(sent.task.id)).configs).toEqual([]);
      await c.cancelTask({ id: sent.task.id });
    } finally {
      c.close();
    }
  });

  it.runIf(version === '1.0')('lists tasks', async () => {
    const c = await connect();
    try {
      const r = await c.sendMessage({ message: textMessage('listed') });
      if (!('task' in r)) throw new Error('expected a task');
      const list = await c.listTasks({ contextId: r.task.contextId });
      expect(list.tasks.map((t) => t.id)).toEqual([r.task.id]);
    } finally {
      c.close();
    }
  });
});
