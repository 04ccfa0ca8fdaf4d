import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeState } from '../../../fixtures/agents/probe-agent.js';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { legacyClient, modernClient } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));

/** The two client lines behind one shape: the v2 client in the modern era, the v1 SDK in the legacy one. */
type AnyClient = {
  listTools(): Promise<{ tools: any[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }, opts?: { onprogress?: (p: any) => void; signal?: AbortSignal }): Promise<any>;
  listResources(): Promise<{ resources: any[] }>;
  readResource(params: { uri: string }): Promise<any>;
  close(): Promise<void>;
};

const eras: Array<[string, (url: string) => Promise<AnyClient>]> = [
  [
    'modern (v2 client, auto)',
    async (url) => {
      const c = await modernClient(url);
      return { listTools: () => c.listTools(), callTool: (p, o) => c.callTool(p, o) as Promise<any>, listResources: () => c.listResources(), readResource: (p) => c.readResource(p), close: () => c.close() };
    },
  ],
  [
    'legacy (v1 SDK client)',
    async (url) => {
      const c = await legacyClient(url);
      return { listTools: () => c.listTools(), callTool: (p, o) => c.callTool(p, undefined, o) as Promise<any>, listResources: () => c.listResources(), readResource: (p) => c.readResource(p), close: () => c.close() };
    },
  ],
];

async function waitFor<T>(f: () => Promise<T | undefined> | T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(eras)('agents as MCP tools, %s', (_era, connect) => {
  let s: TestServer;
  let c: AnyClient;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
    });
    c = await connect(`${s.http}/mcp`);
  });
  afterAll(async () => {
    await c?.close();
    await s?.stop();
  });

  it('lists one tool per skill with title, strict schema and annotations', async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo_echo', 'probe_probe']);
    const echo = tools[0];
    expect(echo.title).toBe('Echo: Echo');
    expect(echo.description).toContain('Returns the parts of your message unchanged.');
    expect(echo.inputSchema.type).toBe('object');
    expect(echo.inputSchema.required).toEqual(['message']);
    expect(echo.inputSchema.additionalProperties).toBe(false);
    expect(Object.keys(echo.inputSchema.properties).sort()).toEqual(['data', 'message', 'taskId']);
    expect(echo.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tools[1].annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('calls the echo agent through an A2A task visible over A2A afterwards', async () => {
    const r = await c.callTool({ name: 'echo_echo', arguments: { message: 'hello over mcp', data: { n: 1 } } });
    expect(r.isError).toBeFalsy();
    expect(r.content[0]).toEqual({ type: 'text', text: 'hello over mcp' });
    expect(r.structuredContent).toEqual({ n: 1 });
    expect(r.content[1]).toEqual({ type: 'text', text: '{"n":1}' });
    const taskId = r._meta['agentport/taskId'];
    expect(typeof taskId).toBe('string');
    const got = await rpc(`${s.http}/a2a/echo`, 'GetTask', { id: taskId });
    expect(got.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(got.body.result.artifacts[0].parts[0]).toEqual({ text: 'hello over mcp' });
    const list = await rpc(`${s.http}/a2a/echo`, 'ListTasks', {});
    expect(list.body.result.tasks.map((t: { id: string }) => t.id)).toContain(taskId);
  });

  it('rejects arguments outside the schema', async () => {
    const r = await c.callTool({ name: 'echo_echo', arguments: { text: 'wrong field' } }).catch((e: Error) => ({ thrown: e.message }));
    // 2025-11-25+: input validation errors are isError results; either way no task runs.
    if ('thrown' in r) expect(r.thrown).toMatch(/invalid|message/i);
    else expect(r.isError).toBe(true);
  });

  it('sends progress notifications from status and artifact updates', async () => {
    const notes: any[] = [];
    const r = await c.callTool({ name: 'probe_probe', arguments: { message: 'ticks 3 20' } }, { onprogress: (p) => notes.push(p) });
    expect(r.isError).toBeFalsy();
    expect(notes.length).toBeGreaterThanOrEqual(4);
    const progress = notes.map((n) => n.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(notes.some((n) => /working/.test(n.message))).toBe(true);
    expect(notes.some((n) => /artifact/.test(n.message))).toBe(true);
  });

  it('turns INPUT_REQUIRED into an isError result naming the task, and continues it with taskId', async () => {
    const first = await c.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    expect(first.isError).toBe(true);
    const taskId = first.structuredContent.taskId;
    expect(first.structuredContent.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.content[0].text).toContain('Tell me more.');
    expect(first.content[0].text).toContain(taskId);
    const second = await c.callTool({ name: 'probe_probe', arguments: { message: 'here is more', taskId } });
    expect(second.isError).toBeFalsy();
    expect(second._meta['agentport/taskId']).toBe(taskId);
    expect(second.content[0].text).toBe('here is more');
  });

  it('turns FAILED into an isError result with the agent text', async () => {
    const r = await c.callTool({ name: 'probe_probe', arguments: { message: 'fail disk full' } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toBe('disk full');
  });

  it('cancels the A2A task when the client cancels the call', async () => {
    const before = await rpc(`${s.http}/a2a/probe`, 'ListTasks', { status: 'TASK_STATE_WORKING' });
    const known = new Set((before.body.result.tasks as Array<{ id: string }>).map((t) => t.id));
    const ac = new AbortController();
    const call = c.callTool({ name: 'probe_probe', arguments: { message: 'hold' } }, { signal: ac.signal }).catch((e: Error) => e);
    const taskId = await waitFor(async () => {
      const l = await rpc(`${s.http}/a2a/probe`, 'ListTasks', { status: 'TASK_STATE_WORKING' });
      return (l.body.result.tasks as Array<{ id: string }>).map((t) => t.id).find((id) => !known.has(id));
    });
    ac.abort();
    expect(await call).toBeInstanceOf(Error);
    const state = await waitFor(async () => {
      const t = await rpc(`${s.http}/a2a/probe`, 'GetTask', { id: taskId });
      return t.body.result.status.state === 'TASK_STATE_CANCELED' ? t.body.result.status.state : undefined;
    });
    expect(state).toBe('TASK_STATE_CANCELED');
    expect(probeState().aborted.get(taskId)).toBe(true);
  });

  it('offers each agent card as a JSON resource', async () => {
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['agentport://agents/echo/card', 'agentport://agents/probe/card']);
    const read = await c.readResource({ uri: 'agentport://agents/echo/card' });
    expect(read.contents[0].mimeType).toBe('application/json');
    expect(JSON.parse(read.contents[0].text).name).toBe('Echo');
  });
});

describe('the per-agent endpoint /a2a/{id}/mcp', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
    });
  });
  afterAll(async () => s?.stop());

  it('exposes only that agent, in both eras', async () => {
    const m = await modernClient(`${s.http}/a2a/probe/mcp`);
    expect((await m.listTools()).tools.map((t) => t.name)).toEqual(['probe_probe']);
    expect((await m.listResources()).resources.map((r) => r.uri)).toEqual(['agentport://agents/probe/card']);
    await m.close();
    const l = await legacyClient(`${s.http}/a2a/echo/mcp`);
    expect((await l.listTools()).tools.map((t) => t.name)).toEqual(['echo_echo']);
    const r: any = await l.callTool({ name: 'echo_echo', arguments: { message: 'direct' } });
    expect(r.content[0].text).toBe('direct');
    await l.close();
  });

  it('answers 404 for an unknown agent', async () => {
    const res = await fetch(`${s.http}/a2a/nobody/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
  });
});
