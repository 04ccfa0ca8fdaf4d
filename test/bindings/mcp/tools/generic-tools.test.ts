/**
 * The generic MCP tools on /mcp (list_agents, send_message, get_task, cancel_task), driven by the
 * official clients against a real server; tasks they create or touch are checked over A2A.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../../support/server.js';
import { legacyClient, modernClient } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));
const GENERIC = ['list_agents', 'send_message', 'get_task', 'cancel_task'];

const textOf = (r: any): string =>
  r.content
    .filter((c: any) => c.type === 'text')
    .map((c: any) => c.text)
    .join('\n');

describe('generic tools on /mcp', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: { mode: 'none' },
      mcp: { genericTools: true },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
    });
  });
  afterAll(async () => server?.stop());

  it('are listed with their hints next to the per-skill tools, and not on an agent’s own endpoint', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining([...GENERIC, 'echo_echo', 'probe_probe']));
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.list_agents!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(byName.cancel_task!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(byName.send_message!.inputSchema.required).toEqual(['agentId', 'text']);
    } finally {
      await client.close();
    }
    const own = await modernClient(`${server.http}/a2a/echo/mcp`);
    try {
      const names = (await own.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(['echo_echo']);
    } finally {
      await own.close();
    }
  });

  it('list_agents lists every agent with its skills', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const r: any = await client.callTool({ name: 'list_agents', arguments: {} });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.agents.map((a: any) => a.id)).toEqual(['echo', 'probe']);
      expect(r.structuredContent.agents[0]).toMatchObject({ name: 'Echo', url: `${server.http}/a2a/echo`, skills: [{ id: 'echo', name: 'Echo' }] });
      expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
    } finally {
      await client.close();
    }
  });

  it('send_message runs a durable task (visible over A2A) and contextId continues the conversation', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const first: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'echo', text: 'hello', data: { n: 1 } } });
      expect(first.isError).toBeFalsy();
      expect(textOf(first)).toContain('hello');
      expect(first.structuredContent).toEqual({ n: 1 });
      const taskId = first._meta['agentport/taskId'];
      const contextId = first._meta['agentport/contextId'];
      const overA2A = await rpc(`${server.http}/a2a/echo`, 'GetTask', { id: taskId });
      expect(overA2A.body.result.status.state).toBe('TASK_STATE_COMPLETED');

      const second: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'echo', text: 'again', contextId } });
      expect(second._meta['agentport/contextId']).toBe(contextId);
      expect(second._meta['agentport/taskId']).not.toBe(taskId);
    } finally {
      await client.close();
    }
  });

  it('send_message to an unknown agent is an isError result naming list_agents', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const r: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'nobody', text: 'hi' } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe('No agent "nobody" here; call list_agents for the agents you can use.');
    } finally {
      await client.close();
    }
  });

  it('a task that asks for input is answered with send_message {taskId}; get_task reads it (legacy client)', async () => {
    const client = await legacyClient(`${server.http}/mcp`);
    try {
      const asked: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'probe', text: 'input' } });
      expect(asked.isError).toBe(true);
      expect(asked.structuredContent.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(textOf(asked)).toContain('call send_message again with {"taskId"');
      const taskId = asked.structuredContent.taskId;

      const answered: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'probe', text: 'the answer', taskId } });
      expect(answered.isError).toBeFalsy();
      expect(answered._meta['agentport/taskId']).toBe(taskId);

      const got: any = await client.callTool({ name: 'get_task', arguments: { agentId: 'probe', taskId, historyLength: 10 } });
      expect(got.isError).toBeFalsy();
      expect(got.structuredContent).toMatchObject({ taskId, state: 'TASK_STATE_COMPLETED' });
      expect(got.structuredContent.artifacts.map((a: any) => a.text)).toContain('the answer');
      expect(got.structuredContent.history.map((m: any) => m.text)).toEqual(expect.arrayContaining(['input', 'the answer']));
    } finally {
      await client.close();
    }
  });

  it('cancel_task cancels a running task started over A2A', async () => {
    const sent = await rpc(`${server.http}/a2a/probe`, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } });
    const taskId = sent.body.result.task.id;
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const r: any = await client.callTool({ name: 'cancel_task', arguments: { agentId: 'probe', taskId } });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.state).toBe('TASK_STATE_CANCELED');
      // Canceling again is idempotent in the core; a finished task cannot be canceled.
      const again: any = await client.callTool({ name: 'cancel_task', arguments: { agentId: 'probe', taskId } });
      expect(again.structuredContent.state).toBe('TASK_STATE_CANCELED');
      const done: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'echo', text: 'done' } });
      const finished: any = await client.callTool({ name: 'cancel_task', arguments: { agentId: 'echo', taskId: done._meta['agentport/taskId'] } });
      expect(finished.isError).toBe(true);
      expect(textOf(finished)).toMatch(/cannot be canceled/);
    } finally {
      await client.close();
    }
    const overA2A = await rpc(`${server.http}/a2a/probe`, 'GetTask', { id: taskId });
    expect(overA2A.body.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('get_task of an unknown task, or under the wrong agent, reads as not found', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const unknown: any = await client.callTool({ name: 'get_task', arguments: { agentId: 'echo', taskId: '0190f3a0-0000-7000-8000-000000000000' } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toBe('Task 0190f3a0-0000-7000-8000-000000000000 was not found.');

      const done: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'echo', text: 'x' } });
      const wrongAgent: any = await client.callTool({ name: 'get_task', arguments: { agentId: 'probe', taskId: done._meta['agentport/taskId'] } });
      expect(wrongAgent.isError).toBe(true);
      expect(textOf(wrongAgent)).toMatch(/was not found\.$/);
    } finally {
      await client.close();
    }
  });

  it('bad arguments are refused by the schema (-32602 or an isError result), never run', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const r: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'echo' } }).catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }));
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/text/);
    } finally {
      await client.close();
    }
  });
});

describe('generic tools by default', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => server?.stop());

  it('are off: only the per-skill tools are listed', async () => {
    const client = await modernClient(`${server.http}/mcp`);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(['echo_echo']);
    } finally {
      await client.close();
    }
  });
});

describe('generic tools under the authorization engine', () => {
  const ALICE = 'k-alice-generic-0123456789';
  const BOB = 'k-bob-generic-0123456789ab';
  const SUPPORT = 'k-support-generic-012345678';
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ALICE, subject: 'alice', scopes: ['mcp:tools'] },
          { key: BOB, subject: 'bob', scopes: ['mcp:tools'] },
          { key: SUPPORT, subject: 'carol', scopes: ['mcp:tools:support'] },
        ],
      },
      mcp: { genericTools: true },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'sales', builtin: 'echo', usecase: 'sales' },
      ],
    });
  });
  afterAll(async () => server?.stop());

  const as = (key: string) => modernClient(`${server.http}/mcp`, { headers: { authorization: `Bearer ${key}` } });

  it('list_agents and send_message leave out agents of another usecase, which read as unknown', async () => {
    const carol = await as(SUPPORT);
    try {
      const listed: any = await carol.callTool({ name: 'list_agents', arguments: {} });
      expect(listed.structuredContent.agents.map((a: any) => a.id)).toEqual(['echo']);
      const sent: any = await carol.callTool({ name: 'send_message', arguments: { agentId: 'sales', text: 'hi' } });
      expect(sent.isError).toBe(true);
      expect(textOf(sent)).toBe('No agent "sales" here; call list_agents for the agents you can use.');
    } finally {
      await carol.close();
    }
    const alice = await as(ALICE);
    try {
      const listed: any = await alice.callTool({ name: 'list_agents', arguments: {} });
      expect(listed.structuredContent.agents.map((a: any) => a.id)).toEqual(['echo', 'sales']);
    } finally {
      await alice.close();
    }
  });

  it("another caller's task is not found by get_task or cancel_task", async () => {
    const alice = await as(ALICE);
    const bob = await as(BOB);
    try {
      const sent: any = await alice.callTool({ name: 'send_message', arguments: { agentId: 'echo', text: 'mine' } });
      const taskId = sent._meta['agentport/taskId'];
      const own: any = await alice.callTool({ name: 'get_task', arguments: { agentId: 'echo', taskId } });
      expect(own.structuredContent.state).toBe('TASK_STATE_COMPLETED');
      for (const name of ['get_task', 'cancel_task']) {
        const r: any = await bob.callTool({ name, arguments: { agentId: 'echo', taskId } });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toBe(`Task ${taskId} was not found.`);
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
