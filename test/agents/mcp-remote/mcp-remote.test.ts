/**
 * MCP servers as A2A agents, end to end: a real SDK MCP server on loopback (modern v2 and legacy
 * v1), Agentport started from a config naming it, driven over A2A JSON-RPC and HTTP+JSON and over
 * Agentport's own /mcp with the official client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { startServer, type RunningServer } from '../../../src/server/start.js';
import { readSse, rpc, userMessage } from '../../support/server.js';
import { modernClient } from '../../bindings/mcp/clients.js';
import { PNG, startLegacyRemote, startModernRemote, type RemoteServer } from './remote-servers.js';

interface Agentport extends RunningServer {
  http: string;
  stop(): Promise<void>;
}

async function startAgentport(agents: unknown[], env: Record<string, string> = {}): Promise<Agentport> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-mcp-remote-'));
  const config = parseConfig({ server: { host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, grpc: { enabled: false } }, auth: { mode: 'none' }, agents }, { env, cwd: dataDir });
  const running = await startServer(config);
  return {
    ...running,
    http: running.urls.http,
    async stop() {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const callData = (tool: string, args: Record<string, unknown>) => ({ messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ data: { tool, arguments: args } }] });

async function send(ap: Agentport, agentId: string, message: unknown, configuration?: Record<string, unknown>) {
  const r = await rpc(`${ap.http}/a2a/${agentId}`, 'SendMessage', { message, ...(configuration ? { configuration } : {}) });
  expect(r.status).toBe(200);
  return r.body;
}

const textOf = (task: any): string => task.artifacts?.flatMap((a: any) => a.parts.filter((p: any) => typeof p.text === 'string').map((p: any) => p.text)).join('\n') ?? '';
const reasonOf = (task: any): string => task.status.message?.parts?.map((p: any) => p.text).join('\n') ?? '';

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a modern (2026-07-28) MCP server as an A2A agent', () => {
  let remote: RemoteServer;
  let ap: Agentport;
  beforeAll(async () => {
    remote = await startModernRemote();
    ap = await startAgentport(
      [
        { id: 'echo', builtin: 'echo' },
        { id: 'calc', mcp: { url: remote.url, era: 'modern', allowlist: ['127.0.0.1'], headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } }, skills: { add: { annotations: { openWorldHint: true } } } },
        { id: 'calc-quick', mcp: { url: remote.url, era: 'modern', allowlist: ['127.0.0.1'], callTimeoutMs: 300 } },
      ],
      { REMOTE_TOKEN: 'tok-from-env' },
    );
  });
  afterAll(async () => {
    await ap?.stop();
    await remote?.close();
  });

  it('builds the card skills from the tools: name from the title, arguments described, an example call', async () => {
    const card = await (await fetch(`${ap.http}/a2a/calc/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('Modern Remote');
    const ids = card.skills.map((s: any) => s.id);
    expect(ids).toEqual(['add', 'shout', 'picture', 'slow', 'broken', 'steps']);
    const add = card.skills[0];
    expect(add.name).toBe('Add numbers');
    expect(add.description).toContain('Adds a and b.');
    expect(add.description).toContain('a (number, required): first');
    expect(JSON.parse(add.examples[0])).toEqual({ tool: 'add', arguments: { a: 1, b: 1 } });
  });

  it('a DataPart {tool, arguments} over JSON-RPC calls the tool; the result is the artifact (text and structured data)', async () => {
    const body = await send(ap, 'calc', callData('add', { a: 2, b: 3 }));
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toBe('5');
    expect(task.artifacts[0].parts).toContainEqual({ data: { sum: 5 }, mediaType: 'application/json' });
  });

  it('a text message naming the tool, over HTTP+JSON, fills its one string argument', async () => {
    const res = await fetch(`${ap.http}/a2a/calc/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: userMessage('shout hello there') }),
    });
    expect(res.status).toBe(200);
    const task = (await res.json()).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toBe('HELLO THERE');
  });

  it('images come back as raw parts with their media type', async () => {
    const task = (await send(ap, 'calc', userMessage('picture'))).result.task;
    expect(task.artifacts[0].parts).toContainEqual({ raw: PNG, mediaType: 'image/png' });
  });

  it("the remote's progress notifications stream as WORKING status updates (SendStreamingMessage)", async () => {
    const res = await fetch(`${ap.http}/a2a/calc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('steps') } }),
    });
    const events = await readSse(res);
    const notes = events
      .map((e) => e.data.result?.statusUpdate)
      .filter((u) => u?.status.state === 'TASK_STATE_WORKING')
      .map((u) => u.status.message?.parts?.[0]?.text);
    expect(notes).toEqual(['Calling steps', 'steps: step one', 'steps: step two']);
    const last = events[events.length - 1]!.data.result.statusUpdate;
    expect(last.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('the configured header, with ${ENV} substituted, reaches the remote', () => {
    expect(remote.record.authorization).toContain('Bearer tok-from-env');
  });

  it('a message naming no tool is REJECTED with the list of tools', async () => {
    const task = (await send(ap, 'calc', userMessage('multiply 3 by 4'))).result.task;
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(reasonOf(task)).toContain('Its tools: add, shout, picture, slow, broken, steps.');
  });

  it('an isError tool result FAILS the task with the tool text', async () => {
    const task = (await send(ap, 'calc', callData('broken', {}))).result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(reasonOf(task)).toBe('the widget is jammed');
  });

  it('arguments the remote refuses (an isError validation result, spec 2025-11-25+) FAIL the task with its message', async () => {
    const task = (await send(ap, 'calc', callData('add', { a: 'two' }))).result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(reasonOf(task)).toMatch(/Invalid arguments for tool add/);
  });

  it('CancelTask cancels the call on the remote', async () => {
    const before = remote.record.cancelled.length;
    const started = remote.record.started.length;
    const task = (await send(ap, 'calc', callData('slow', { ms: 20_000 }), { returnImmediately: true })).result.task;
    await waitFor(() => (remote.record.started.length > started ? true : undefined));
    const canceled = await rpc(`${ap.http}/a2a/calc`, 'CancelTask', { id: task.id });
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    await waitFor(() => (remote.record.cancelled.length > before ? true : undefined));
  });

  it('a remote slower than callTimeoutMs FAILS the task in time, and the remote call is cancelled', async () => {
    const before = remote.record.cancelled.length;
    const t0 = Date.now();
    const task = (await send(ap, 'calc-quick', callData('slow', { ms: 20_000 }))).result.task;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(reasonOf(task)).toMatch(/did not answer in time/);
    await waitFor(() => (remote.record.cancelled.length > before ? true : undefined));
  });

  it('is on /mcp like any agent: one tool per remote tool, called with data as the arguments', async () => {
    const client = await modernClient(`${ap.http}/mcp`);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['calc_add', 'calc_shout', 'calc_slow']));
      // The remote's hints reach the tool, each replaced by a configured one (openWorldHint here).
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.calc_add!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: true });
      expect(byName.calc_shout!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
      const r = await client.callTool({ name: 'calc_add', arguments: { message: 'add these', data: { a: 20, b: 22 } } });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual({ sum: 42 });
      const shout = await client.callTool({ name: 'calc_shout', arguments: { message: 'quiet words' } });
      expect(shout.content).toContainEqual({ type: 'text', text: 'QUIET WORDS' });
    } finally {
      await client.close();
    }
  });
});

describe('a legacy (2025) MCP server as an A2A agent', () => {
  let remote: RemoteServer;
  let ap: Agentport;
  beforeAll(async () => {
    remote = await startLegacyRemote();
    ap = await startAgentport([
      { id: 'old', mcp: { url: remote.url, era: 'legacy', allowlist: ['127.0.0.0/8'] } },
      { id: 'old-auto', mcp: { url: remote.url, allowlist: ['127.0.0.1'] } },
    ]);
  });
  afterAll(async () => {
    await ap?.stop();
    await remote?.close();
  });

  it('calls tools over a legacy session (era legacy, and auto falling back to initialize)', async () => {
    for (const id of ['old', 'old-auto']) {
      const task = (await send(ap, id, callData('add', { a: 40, b: 2 }))).result.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(task)).toBe('42');
    }
  });

  it('picks up a tool announced with notifications/tools/list_changed', async () => {
    const first = (await send(ap, 'old', userMessage('late'))).result.task;
    expect(first.status.state).toBe('TASK_STATE_REJECTED');
    remote.addTool('late');
    const task = await waitFor(async () => {
      const t = (await send(ap, 'old', userMessage('late'))).result.task;
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    });
    expect(textOf(task)).toBe('late');
    // The agent is registered again: its card and its MCP tools follow the remote's list.
    const card = await (await fetch(`${ap.http}/a2a/old/.well-known/agent-card.json`)).json();
    expect(card.skills.map((s: any) => s.id)).toContain('late');
    const client = await modernClient(`${ap.http}/mcp`);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('old_late');
    } finally {
      await client.close();
    }
    const compatList = await (await fetch(`${ap.http}/mcp/tools/list`)).json();
    expect(compatList.tools.map((t: any) => t.name)).toContain('old_late');
  });

  it('CancelTask sends notifications/cancelled to the remote', async () => {
    const before = remote.record.cancelled.length;
    const started = remote.record.started.length;
    const task = (await send(ap, 'old', callData('slow', { ms: 20_000 }), { returnImmediately: true })).result.task;
    await waitFor(() => (remote.record.started.length > started ? true : undefined));
    await rpc(`${ap.http}/a2a/old`, 'CancelTask', { id: task.id });
    await waitFor(() => (remote.record.cancelled.length > before ? true : undefined));
  });
});

describe('a remote that goes away and comes back', () => {
  let remote: RemoteServer | undefined;
  let ap: Agentport;
  afterEach(async () => {
    await ap?.stop();
    await remote?.close();
    remote = undefined;
  });

  it('fails calls clearly and quickly while it is down, then reconnects (legacy session renewed)', async () => {
    remote = await startLegacyRemote();
    const port = remote.port;
    ap = await startAgentport([{ id: 'flaky', mcp: { url: remote.url, era: 'legacy', allowlist: ['127.0.0.1'], connectTimeoutMs: 2000 } }]);
    expect((await send(ap, 'flaky', callData('add', { a: 1, b: 1 }))).result.task.status.state).toBe('TASK_STATE_COMPLETED');

    await remote.close();
    const t0 = Date.now();
    const down = (await send(ap, 'flaky', callData('add', { a: 1, b: 1 }))).result.task;
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(down.status.state).toBe('TASK_STATE_FAILED');
    expect(reasonOf(down)).toMatch(/^The MCP server http:\/\/127\.0\.0\.1:\d+\/mcp is unreachable\.$/);

    remote = await startLegacyRemote(port);
    const back = (await send(ap, 'flaky', callData('add', { a: 2, b: 2 }))).result.task;
    expect(back.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(back)).toBe('4');
  });

  it('a remote that accepts connections and never answers: start and calls are bounded by the timeouts', async () => {
    const hung = createServer(() => {}); // reads requests, never answers
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/mcp`;
    try {
      const t0 = Date.now();
      ap = await startAgentport([{ id: 'hung', mcp: { url, allowlist: ['127.0.0.1'], connectTimeoutMs: 400, callTimeoutMs: 400 } }]);
      expect(Date.now() - t0).toBeLessThan(3000);
      const t1 = Date.now();
      const task = (await send(ap, 'hung', callData('add', { a: 1, b: 1 }))).result.task;
      expect(Date.now() - t1).toBeLessThan(3000);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(reasonOf(task)).toMatch(/^The MCP server http:\/\/127\.0\.0\.1:\d+\/mcp did not answer in time\.$/);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });

  it('a remote that restarted forgets the session; the call is retried on a new one', async () => {
    remote = await startLegacyRemote();
    const port = remote.port;
    ap = await startAgentport([{ id: 'restart', mcp: { url: remote.url, era: 'legacy', allowlist: ['127.0.0.1'] } }]);
    await remote.close();
    remote = await startLegacyRemote(port);
    const task = (await send(ap, 'restart', callData('add', { a: 3, b: 4 }))).result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toBe('7');
  });
});

describe('the SSRF guard on the remote URL', () => {
  let remote: RemoteServer;
  let ap: Agentport;
  beforeAll(async () => {
    remote = await startModernRemote();
    ap = await startAgentport([
      { id: 'guarded', mcp: { url: remote.url, era: 'modern', connectTimeoutMs: 1000 } },
      { id: 'other-range', mcp: { url: remote.url, era: 'modern', allowlist: ['10.0.0.0/8'], connectTimeoutMs: 1000 } },
    ]);
  });
  afterAll(async () => {
    await ap?.stop();
    await remote?.close();
  });

  it('refuses a loopback address that is not allowlisted, and says how to allow it', async () => {
    for (const id of ['guarded', 'other-range']) {
      const task = (await send(ap, id, callData('add', { a: 1, b: 1 }))).result.task;
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(reasonOf(task)).toMatch(/is not an allowed destination \(address\); add its host to agents\[\]\.mcp\.allowlist/);
    }
    expect(remote.record.authorization).toHaveLength(0); // nothing reached it
  });
});

describe('per-skill scopes on a remote MCP agent', () => {
  const PUBLISHER = 'k-publisher-0123456789abcdef';
  const MATH = 'k-math-0123456789abcdefghij';
  let remote: RemoteServer;
  let ap: Agentport;
  beforeAll(async () => {
    remote = await startModernRemote();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-mcp-remote-'));
    const config = parseConfig(
      {
        server: { host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, grpc: { enabled: false } },
        auth: {
          mode: 'required',
          apiKeys: [
            { key: PUBLISHER, subject: 'pat', scopes: ['a2a:publish', 'a2a:discover'] },
            { key: MATH, subject: 'mo', scopes: ['a2a:publish', 'a2a:discover', 'math'] },
          ],
        },
        agents: [{ id: 'calc', mcp: { url: remote.url, era: 'modern', allowlist: ['127.0.0.1'] }, skills: { add: { scopes: ['math'] } } }],
      },
      { env: {}, cwd: dataDir },
    );
    const running = await startServer(config);
    ap = { ...running, http: running.urls.http, stop: async () => (await running.close(), await rm(dataDir, { recursive: true, force: true })) };
  });
  afterAll(async () => {
    await ap?.stop();
    await remote?.close();
  });

  /** A missing skill scope is PermissionDenied (403, JSON-RPC -32000), not any other error. */
  const expectPermissionDenied = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(r.body.error.code).toBe(-32000);
    expect(r.body.error.data?.[0]?.reason).toBe('PERMISSION_DENIED');
  };

  const sendAs = (key: string, message: unknown) => rpc(`${ap.http}/a2a/calc`, 'SendMessage', { message }, { authorization: `Bearer ${key}` });

  it('an explicit {tool, arguments} part needs only that tool’s scopes; text naming a tool needs every skill’s', async () => {
    const shout = await sendAs(PUBLISHER, callData('shout', { text: 'ok' }));
    expect(shout.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const calls = remote.record.calls.length;
    const add = await sendAs(PUBLISHER, callData('add', { a: 1, b: 2 }));
    expectPermissionDenied(add);
    // The text may name any tool (and the metadata another), so it is checked against all of them.
    const byText = await sendAs(PUBLISHER, userMessage('shout but needs every scope'));
    expectPermissionDenied(byText);
    const hinted = await rpc(`${ap.http}/a2a/calc`, 'SendMessage', { message: userMessage('{"a": 1, "b": 2}'), metadata: { 'agentport/skill': 'add' } }, { authorization: `Bearer ${PUBLISHER}` });
    expectPermissionDenied(hinted);
    expect(remote.record.calls.length).toBe(calls); // nothing reached the remote

    const allowed = await sendAs(MATH, callData('add', { a: 1, b: 2 }));
    expect(textOf(allowed.body.result.task)).toBe('3');
  });
});
