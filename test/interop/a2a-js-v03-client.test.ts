/**
 * Deployed v0.3 clients against every built-in agent: the @a2a-js/sdk 0.3.x line (npm alias
 * `a2a-js-sdk-03`), which fetches `/.well-known/agent-card.json` without `A2A-Version` and reads
 * `url`, `preferredTransport` and `additionalInterfaces` from it. `A2AClient.fromCardUrl` drives
 * JSON-RPC; the 0.3 `ClientFactory` with only the REST transport drives HTTP+JSON from the same
 * card. Each cell: send, stream, get, cancel, and the push-config calls. Authentication is on, so
 * the cards carry security schemes and every call carries the API key.
 */
import { A2AClient, ClientFactory, RestTransportFactory } from 'a2a-js-sdk-03/client';
import type { Message, MessageSendParams, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-js-sdk-03';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { uniqueId } from './sdk-support.js';

type A2AStreamEventData = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

const API_KEY = 'test-key-v03-client-0123456789abcdef';
const WEBHOOK = 'http://127.0.0.1:9/push-receiver';

/** Adds the API key to every request the 0.3 client makes (card fetches too, which ignore it). */
const authedFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${API_KEY}`);
  return fetch(input, { ...init, headers });
};

/** One v0.3 client surface, JSON-RPC or HTTP+JSON, with errors thrown as exceptions. */
interface V03Surface {
  send(p: MessageSendParams): Promise<Task | Message>;
  stream(p: MessageSendParams): AsyncGenerator<A2AStreamEventData>;
  get(id: string): Promise<Task>;
  cancel(id: string): Promise<Task>;
  setPush(taskId: string, id: string): Promise<unknown>;
  getPush(taskId: string, id: string): Promise<{ pushNotificationConfig: { url: string } }>;
  listPush(taskId: string): Promise<unknown[]>;
  deletePush(taskId: string, id: string): Promise<void>;
}

type RpcResponse<T> = { result: T } | { error: { code: number; message: string } };
function ok<T>(r: RpcResponse<T>): T {
  if ('error' in r) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.result;
}

async function jsonRpcSurface(cardUrl: string): Promise<V03Surface & { url: string }> {
  const c = await A2AClient.fromCardUrl(cardUrl, { fetchImpl: authedFetch });
  const card = await c.getAgentCard();
  return {
    url: card.url,
    send: async (p) => ok(await c.sendMessage(p)),
    stream: (p) => c.sendMessageStream(p),
    get: async (id) => ok(await c.getTask({ id })),
    cancel: async (id) => ok(await c.cancelTask({ id })),
    setPush: async (taskId, id) => ok(await c.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { id, url: WEBHOOK } })),
    getPush: async (taskId, id) => ok(await c.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: id } as never)),
    listPush: async (taskId) => ok(await c.listTaskPushNotificationConfig({ id: taskId })),
    deletePush: async (taskId, id) => void ok(await c.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: id })),
  };
}

async function restSurface(cardUrl: string): Promise<V03Surface> {
  const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl: authedFetch })] });
  const c = await factory.createFromUrl(cardUrl, '');
  return {
    send: (p) => c.sendMessage(p) as Promise<Task | Message>,
    stream: (p) => c.sendMessageStream(p),
    get: (id) => c.getTask({ id }),
    cancel: (id) => c.cancelTask({ id }),
    setPush: (taskId, id) => c.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { id, url: WEBHOOK } }),
    getPush: (taskId, id) => c.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: id } as never),
    listPush: (taskId) => c.listTaskPushNotificationConfig({ id: taskId }),
    deletePush: (taskId, id) => c.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: id }),
  };
}

const message = (messageId: string, text: string): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId, parts: [{ kind: 'text', text }] },
});

/** Each built-in agent: a message it turns into a completed task, and one that stays open for cancel. */
const AGENTS: Array<{ id: string; done: () => MessageSendParams; open?: () => MessageSendParams }> = [
  { id: 'echo', done: () => message(uniqueId('v03'), 'hello') },
  {
    id: 'conformance',
    done: () => message(uniqueId('tck-complete-task'), 'hi'),
    open: () => ({ ...message(uniqueId('test-resubscribe-message-id'), 'wait'), configuration: { blocking: false } }),
  },
  { id: 'table-expert', done: () => message(uniqueId('v03'), 'Which datasets do you have?') },
];

const CELLS: Array<{ binding: string; surface: (cardUrl: string) => Promise<V03Surface> }> = [
  { binding: 'JSON-RPC (A2AClient.fromCardUrl)', surface: jsonRpcSurface },
  { binding: 'HTTP+JSON (ClientFactory, REST transport)', surface: restSurface },
];

const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];
const asTask = (r: Task | Message): Task => {
  expect(r.kind).toBe('task');
  return r as Task;
};

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    agents: [
      { id: 'conformance', builtin: 'conformance' },
      { id: 'echo', builtin: 'echo' },
      { id: 'table-expert', builtin: 'table-expert' },
    ],
    primaryAgent: 'conformance',
    push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
    auth: { mode: 'required', apiKeys: [{ key: API_KEY, subject: 'alice', scopes: ['a2a:discover', 'a2a:publish'] }] },
  });
});
afterAll(async () => {
  await s?.stop();
});

describe('a2a-js 0.3 discovers agents from a headerless card request', () => {
  it.each([
    ['/.well-known/agent-card.json', 'conformance'],
    ['/.well-known/agent.json', 'conformance'],
    ['/a2a/echo/.well-known/agent-card.json', 'echo'],
    ['/a2a/table-expert/.well-known/agent.json', 'table-expert'],
    ['/api/v1/agents/echo/card', 'echo'],
  ])('A2AClient.fromCardUrl(%s) finds the JSON-RPC endpoint of %s', async (path, agent) => {
    const c = await jsonRpcSurface(`${s.http}${path}`);
    expect(c.url).toBe(`${s.http}/a2a/${agent}`);
    const task = asTask(await c.send(AGENTS.find((a) => a.id === agent)!.done()));
    expect(TERMINAL).toContain(task.status.state);
  });
});

describe.each(CELLS)('a2a-js 0.3 over $binding', (cell) => {
  describe.each(AGENTS)('agent $id', (agent) => {
    let c: V03Surface;
    beforeAll(async () => {
      c = await cell.surface(`${s.http}/a2a/${agent.id}/.well-known/agent-card.json`);
    });

    it('send returns a finished task, and get reads it back', async () => {
      const task = asTask(await c.send(agent.done()));
      expect(TERMINAL).toContain(task.status.state);
      const again = await c.get(task.id);
      expect(again).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId, status: { state: task.status.state } });
    });

    it('stream yields the task and ends in a terminal status', async () => {
      const events: A2AStreamEventData[] = [];
      for await (const ev of c.stream(agent.done())) events.push(ev);
      expect(events[0]?.kind).toBe('task');
      const last = events.at(-1)!;
      const state = last.kind === 'task' ? last.status.state : last.kind === 'status-update' ? last.status.state : undefined;
      expect(TERMINAL).toContain(state);
    });

    it('cancel of a finished task is refused with TaskNotCancelable', async () => {
      const task = asTask(await c.send(agent.done()));
      const err = await c.cancel(task.id).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: number },
      );
      expect(err).toBeDefined();
      // JSON-RPC: the -32002 code; REST: the SDK's error class for the v0.3 HTTP status
      expect(String(err!.code ?? err!.name ?? '') + err!.message).toMatch(/-32002|TaskNotCancelable|not cancel/i);
    });

    it('push config: set, get, list, delete', async () => {
      const task = asTask(await c.send(agent.open?.() ?? agent.done()));
      const id = uniqueId('cfg');
      await c.setPush(task.id, id);
      expect((await c.getPush(task.id, id)).pushNotificationConfig.url).toBe(WEBHOOK);
      expect(await c.listPush(task.id)).toHaveLength(1);
      await c.deletePush(task.id, id);
      expect(await c.listPush(task.id)).toHaveLength(0);
    });

    if (agent.open) {
      it('cancel of a running task returns it canceled', async () => {
        const task = asTask(await c.send(agent.open!()));
        expect(task.status.state).toBe('working');
        const canceled = await c.cancel(task.id);
        expect(canceled.status.state).toBe('canceled');
        expect((await c.get(task.id)).status.state).toBe('canceled');
      });
    }
  });
});
