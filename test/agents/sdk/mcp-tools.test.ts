import { describe, expect, it } from 'vitest';
import { defineAgent, type AgentContext } from '../../../src/agents/sdk/agent.js';
import { toolCallMessage, toolCallOf, toolResultOf, type AgentTool } from '../../../src/agents/sdk/mcp-tools.js';
import type { Artifact, Message, Task } from '../../../src/protocol/a2a/types.js';

/** The events a run emits, recorded. */
function fakeRun(message: Message) {
  const artifacts: Artifact[] = [];
  const states: string[] = [];
  const ctx = {
    agentId: 'a',
    message,
    signal: new AbortController().signal,
    artifact: (parts: Artifact['parts'], opts: { name?: string; metadata?: Artifact['metadata'] } = {}) => {
      artifacts.push({ artifactId: String(artifacts.length), parts, ...(opts.name ? { name: opts.name } : {}), ...(opts.metadata ? { metadata: opts.metadata } : {}) });
      return String(artifacts.length - 1);
    },
    complete: () => states.push('TASK_STATE_COMPLETED'),
    reject: (reason: string) => states.push(`TASK_STATE_REJECTED: ${reason}`),
    emit: (e: { kind: string; state?: string; message?: unknown }) => states.push(`${e.state}: ${String(e.message)}`),
  } as unknown as AgentContext;
  return { ctx, artifacts, states };
}

const echoTool: AgentTool = {
  name: 'shout',
  description: 'Shouts its text back',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  skills: ['talk', 'yell'],
  skillFor: (args) => (String(args.text).endsWith('!') ? 'yell' : 'talk'),
  call: (args, _ctx, call) =>
    args.text === '' ? { isError: true, content: [{ type: 'text', text: 'Nothing to shout.' }] } : { content: [{ type: 'text', text: String(args.text).toUpperCase() }], structuredContent: { url: call.pageUrl('x/1') } },
};

const agent = defineAgent({
  card: { name: 'T', description: 'test', skills: [] },
  execute: (ctx) => ctx.complete('own executor'),
  skillOf: () => 'own',
  mcp: { tools: [echoTool] },
});

const message = (call: Parameters<typeof toolCallMessage>[0]): Message => ({ messageId: 'm', role: 'ROLE_USER', ...toolCallMessage(call) });

describe('agent SDK: contributed MCP tools', () => {
  it('encodes a tool call as one data part named by message metadata, and reads it back', () => {
    const m = message({ tool: 'shout', arguments: { text: 'hi' }, pages: 'https://h/a2a/a/items' });
    expect(toolCallOf(m)).toEqual({ tool: 'shout', arguments: { text: 'hi' }, pages: 'https://h/a2a/a/items' });
    expect(toolCallOf({ ...m, metadata: {} })).toBeUndefined();
    expect(toolCallOf({ messageId: 'n', role: 'ROLE_USER', parts: [{ text: 'shout' }] })).toBeUndefined();
  });

  it('runs the tool inside the task and leaves its result as the one artifact', async () => {
    const run = fakeRun(message({ tool: 'shout', arguments: { text: 'hi' }, pages: 'https://h/a2a/a/items' }));
    await agent.execute(run.ctx);
    expect(run.states).toEqual(['TASK_STATE_COMPLETED']);
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: run.artifacts } as Task;
    expect(toolResultOf(task)).toEqual({ content: [{ type: 'text', text: 'HI' }], structuredContent: { url: 'https://h/a2a/a/items/x%2F1' } });
  });

  it('fails the task on an isError result, keeping the result for the face', async () => {
    const run = fakeRun(message({ tool: 'shout', arguments: { text: '' } }));
    await agent.execute(run.ctx);
    expect(run.states).toEqual(['TASK_STATE_FAILED: Nothing to shout.']);
    expect(toolResultOf({ artifacts: run.artifacts } as Task)).toEqual({ isError: true, content: [{ type: 'text', text: 'Nothing to shout.' }] });
  });

  it('rejects an unknown tool and leaves other messages to the agent', async () => {
    const unknown = fakeRun(message({ tool: 'whisper', arguments: {} }));
    await agent.execute(unknown.ctx);
    expect(unknown.states[0]).toMatch(/^TASK_STATE_REJECTED/);
    expect(unknown.artifacts).toEqual([]);
    const plain = fakeRun({ messageId: 'p', role: 'ROLE_USER', parts: [{ text: 'hello' }] });
    const seen: string[] = [];
    (plain.ctx as unknown as { complete: (m: string) => void }).complete = (m) => seen.push(m);
    await agent.execute(plain.ctx);
    expect(seen).toEqual(['own executor']);
  });

  it("names the tool's skill for authorization; other messages keep the agent's own skillOf", () => {
    expect(agent.skillOf!(message({ tool: 'shout', arguments: { text: 'hi' } }))).toBe('talk');
    expect(agent.skillOf!(message({ tool: 'shout', arguments: { text: 'hi!' } }))).toBe('yell');
    expect(agent.skillOf!(message({ tool: 'whisper', arguments: {} }))).toBeUndefined();
    expect(agent.skillOf!({ messageId: 'p', role: 'ROLE_USER', parts: [{ text: 'hello' }] })).toBe('own');
  });

  it('leaves an agent without tools as it is', () => {
    const plain = { card: { name: 'P', description: 'p', skills: [] }, execute: () => {} };
    expect(defineAgent(plain)).toBe(plain);
  });
});
