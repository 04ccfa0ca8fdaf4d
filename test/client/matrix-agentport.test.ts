/**
 * Interop matrix, our side: the client on each binding × protocol version Agentport serves
 * (JSON-RPC, HTTP+JSON and gRPC, each at v1.0 and v0.3), every operation over real
 * sockets. Each case pins the binding and version, so the client cannot quietly use another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, A2AClientError, textMessage, type Binding } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { artifactTexts, collect, serverConfig, states } from './support.js';

let s: TestServer;
beforeAll(async () => {
  // probe is the primary agent: Agentport offers v0.3 gRPC for the primary agent only (no tenant in v0.3).
  s = await startTestServer(serverConfig({ primaryAgent: 'probe', push: { allowHttp: true, allowlist: ['127.0.0.1'] } }));
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

describe.each(CASES)('client on Agentport $binding v$version', ({ binding, version }) => {
  const connect = (agent = 'probe') => A2AClient.connect(`${s.http}/a2a/${agent}`, { bindings: [binding], protocolVersions: [version] });

  it('picks exactly that interface from the card', async () => {
    const c = await connect();
    expect(c.currentInterface.protocolBinding).toBe(binding);
    expect(c.currentInterface.protocolVersion).toBe(version);
    c.close();
  });

  it('sends a message and gets the completed task with its artifact', async () => {
    const c = await connect();
    try {
      const r = await c.sendMessage({ message: textMessage('hello matrix') });
      if (!('task' in r)) throw new Error('expected a task');
      expect(r.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.task.artifacts?.[0]?.parts[0]?.text).toBe('hello matrix');
      const got = await c.getTask({ id: r.task.id });
      expect(got.id).toBe(r.task.id);
      expect(got.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
  });

  it('streams status and artifact events in order until completion', async () => {
    const c = await connect();
    try {
      const events = await collect(c.sendStreamingMessage({ message: textMessage('ticks 3 20') }));
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1', 'tick-2']);
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
  });

  it('cancels a running task, and subscribing to it then fails with UnsupportedOperation', async () => {
    const c = await connect();
    try {
      const sent = await c.sendMessage({ message: textMessage('hold'), configuration: { returnImmediately: true } });
      if (!('task' in sent)) throw new Error('expected a task');
      const canceled = await c.cancelTask({ id: sent.task.id });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      const err = await collect(c.subscribeToTask(sent.task.id)).catch((e: unknown) => e);
      // Before any event arrived this is a plain refusal: a terminal task cannot be subscribed to (spec §3.1.6).
      expect(err).toBeInstanceOf(A2AClientError);
      expect((err as A2AClientError).kind).toBe('UnsupportedOperation');
    } finally {
      c.close();
    }
  });

  it('answers an input-required task on a stream: the opening snapshot does not end it', async () => {
    const c = await connect();
    try {
      const asked = await c.sendMessage({ message: textMessage('input') });
      if (!('task' in asked)) throw new Error('expected a task');
      expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const events = await collect(c.sendStreamingMessage({ message: textMessage('the answer', { taskId: asked.task.id, contextId: asked.task.contextId }) }));
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(events)).toEqual(['the answer']);
    } finally {
      c.close();
    }
  });

  it('reports an unknown task as TaskNotFound', async () => {
    const c = await connect();
    try {
      const err = await c.getTask({ id: 'no-such-task' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(A2AClientError);
      expect((err as A2AClientError).kind).toBe('TaskNotFound');
    } finally {
      c.close();
    }
  });

  it('creates, reads, lists and deletes a push config', async () => {
    const c = await connect();
    try {
      const sent = await c.sendMessage({ message: textMessage('hold'), configuration: { returnImmediately: true } });
      if (!('task' in sent)) throw new Error('expected a task');
      const created = await c.createPushConfig(sent.task.id, { url: 'http://127.0.0.1:9/hook', id: 'cfg-1', token: 'tok-123' });
      expect(created).toMatchObject({ url: 'http://127.0.0.1:9/hook', id: 'cfg-1', token: 'tok-123' });
      expect(await c.getPushConfig(sent.task.id, 'cfg-1')).toMatchObject({ id: 'cfg-1', url: 'http://127.0.0.1:9/hook' });
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

  it.runIf(version === '0.3')('refuses ListTasks locally: v0.3 has none', async () => {
    const c = await connect();
    const err = await c.listTasks().catch((e: unknown) => e);
    expect((err as A2AClientError).kind).toBe('UnsupportedOperation');
    c.close();
  });
});
