import { describe, expect, it } from 'vitest';
import { agentToolSpecs } from '../../../../src/bindings/mcp/tools/agent-tools.js';
import type { RegisteredAgent } from '../../../../src/core/agents/agent-registry.js';

/** `readOnly`: the agent declares its tools read-only (AgentDefinition.toolAnnotations), as the built-in Echo does. */
const agent = (id: string, name: string, skills: string[], readOnly = false): RegisteredAgent =>
  ({
    id,
    baseUrl: `http://127.0.0.1/a2a/${id}`,
    definition: { execute: async () => {}, ...(readOnly ? { toolAnnotations: () => ({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }) } : {}) },
    publicCard: { name, description: `${name} agent`, skills: skills.map((s) => ({ id: s, name: s, description: `does ${s}`, tags: [] })) },
  }) as unknown as RegisteredAgent;

describe('tool annotations from agents[].skills[id].annotations', () => {
  const agents = [agent('ops', 'Ops', ['status', 'restart']), agent('echo', 'Echo', ['echo'], true)];

  it('keeps the defaults without configured hints', () => {
    const [status, , echo] = agentToolSpecs(agents);
    expect(status!.annotations).toEqual({ title: 'Ops: status', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(echo!.annotations).toEqual({ title: 'Echo: echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('replaces each configured hint of that skill only, keeping the others', () => {
    const configured = { ops: { status: { readOnlyHint: true, idempotentHint: true }, restart: { destructiveHint: true } } } as Record<string, Record<string, object>>;
    const [status, restart, echo] = agentToolSpecs(agents, (a, s) => configured[a]?.[s]);
    expect(status!.annotations).toEqual({ title: 'Ops: status', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    expect(restart!.annotations).toEqual({ title: 'Ops: restart', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(echo!.annotations.readOnlyHint).toBe(true);
  });

  it('lets config turn a built-in read-only default off', () => {
    const [, , echo] = agentToolSpecs(agents, (a) => (a === 'echo' ? { readOnlyHint: false, openWorldHint: true } : undefined));
    expect(echo!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true, idempotentHint: true });
  });
});
