import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { modernClient } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const ALICE = 'k-alice-0123456789abcdef';
const BOB = 'k-bob-0123456789abcdefgh';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

type AnyClient = {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<any>;
  readResource(p: { uri: string }): Promise<any>;
  listResourceTemplates(): Promise<{ resourceTemplates: any[] }>;
  close(): Promise<void>;
};

const eras: Array<[string, (url: string, key: string) => Promise<AnyClient>]> = [
  ['modern (v2 client, auto)', async (url, key) => (await modernClient(url, { headers: auth(key) })) as unknown as AnyClient],
  [
    'legacy (v1 SDK client)',
    async (url, key) => {
      const c = new V1Client({ name: 'task-resources', version: '1.0.0' });
      await c.connect(new V1Transport(new URL(url), { requestInit: { headers: auth(key) } }));
      return c as unknown as AnyClient;
    },
  ],
];

describe.each(eras)('task snapshots as resource templates, %s', (_era, connect) => {
  let s: TestServer;
  let alice: AnyClient;
  let bob: AnyClient;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
      auth: {
        apiKeys: [
          { key: ALICE, subject: 'alice' },
          { key: BOB, subject: 'bob' },
        ],
      },
    });
    alice = await connect(`${s.http}/mcp`, ALICE);
    bob = await connect(`${s.http}/mcp`, BOB);
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await s?.stop();
  });

  it('lists the task template', async () => {
    const { resourceTemplates } = await alice.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('agentport://tasks/{agentId}/{taskId}');
    expect(resourceTemplates.find((t) => t.name === 'task').mimeType).toBe('application/json');
  });

  it('reads a task the caller made, through GetTask, as A2A JSON', async () => {
    const r = await alice.callTool({ name: 'probe_probe', arguments: { message: 'input' } });
    const taskId = r._meta['agentport/taskId'];
    const uri = `agentport://tasks/probe/${taskId}`;
    const read = await alice.readResource({ uri });
    expect(read.contents[0].uri).toBe(uri);
    expect(read.contents[0].mimeType).toBe('application/json');
    const task = JSON.parse(read.contents[0].text);
    expect(task.id).toBe(taskId);
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.history[0].parts[0].text).toBe('input');
  });

  it("answers another caller's task, an unknown task and a wrong agent as not found", async () => {
    const r = await alice.callTool({ name: 'echo_echo', arguments: { message: 'mine' } });
    const taskId = r._meta['agentport/taskId'];
    await expect(bob.readResource({ uri: `agentport://tasks/echo/${taskId}` })).rejects.toThrow(/not found/i);
    await expect(alice.readResource({ uri: 'agentport://tasks/echo/no-such-task' })).rejects.toThrow(/not found/i);
    await expect(alice.readResource({ uri: `agentport://tasks/nobody/${taskId}` })).rejects.toThrow(/not found/i);
    await expect(alice.readResource({ uri: `agentport://tasks/probe/${taskId}` })).rejects.toThrow(/not found/i);
  });
});

describe('task snapshots on the per-agent endpoint', () => {
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

  it("resolves only that agent's tasks", async () => {
    const all = await modernClient(`${s.http}/mcp`);
    const r: any = await all.callTool({ name: 'echo_echo', arguments: { message: 'x' } });
    const taskId = r._meta['agentport/taskId'];
    await all.close();
    const echo = await modernClient(`${s.http}/a2a/echo/mcp`);
    expect(JSON.parse(((await echo.readResource({ uri: `agentport://tasks/echo/${taskId}` })).contents[0] as { text: string }).text).id).toBe(taskId);
    await echo.close();
    const probe = await modernClient(`${s.http}/a2a/probe/mcp`);
    await expect(probe.readResource({ uri: `agentport://tasks/echo/${taskId}` })).rejects.toThrow(/not found/i);
    await probe.close();
  });
});
