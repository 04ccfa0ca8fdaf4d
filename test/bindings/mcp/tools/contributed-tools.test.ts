import { describe, expect, it } from 'vitest';
import { contributedInstructions, contributedToolSpecs, contributesTool } from '../../../../src/bindings/mcp/tools/contributed-tools.js';
import type { AgentMcp } from '../../../../src/agents/sdk/mcp-tools.js';
import type { RegisteredAgent } from '../../../../src/core/agents/agent-registry.js';

const tool = (name: string, skills: string[] = ['s']) => ({ name, title: `T ${name}`, description: `does ${name}`, inputSchema: { type: 'object' }, skills, call: () => ({ content: [] }) });

const agent = (id: string, mcp?: AgentMcp): RegisteredAgent =>
  ({ id, baseUrl: `https://h/a2a/${id}`, definition: { execute: async () => {}, ...(mcp ? { mcp } : {}) }, publicCard: { name: id, description: id, skills: [] } }) as unknown as RegisteredAgent;

describe('MCP face: tools agents contribute', () => {
  it('lists each agent tool once, first owner first, skipping names the skill tools took', () => {
    const a = agent('a', { tools: [tool('search'), tool('fetch', ['f', 'g'])], page: async () => ({ status: 200, contentType: 'text/plain', body: '' }) });
    const b = agent('b', { tools: [tool('search'), tool('other')] });
    const specs = contributedToolSpecs([agent('none'), a, b], new Set(['other']));
    expect(specs.map((s) => `${s.agentId}:${s.name}`)).toEqual(['a:search', 'a:fetch']);
    expect(specs[1]).toMatchObject({ title: 'T fetch', skills: ['f', 'g'], contributed: { tool: 'fetch', pages: 'https://h/a2a/a/items' } });
  });

  it('names no page base for an agent without pages', () => {
    expect(contributedToolSpecs([agent('b', { tools: [tool('x')] })], new Set())[0]!.contributed).toEqual({ tool: 'x' });
  });

  it('adds each agent sentence to the instructions once', () => {
    const said = { instructions: 'Use x.' };
    expect(contributedInstructions([agent('a', said), agent('b', said), agent('c')])).toBe(' Use x.');
  });

  it('tells whether an agent offers a tool by name (the compat routes ask for search and fetch)', () => {
    const a = agent('a', { tools: [tool('search')] });
    expect(contributesTool(a, 'search')).toBe(true);
    expect(contributesTool(a, 'fetch')).toBe(false);
    expect(contributesTool(agent('n'), 'search')).toBe(false);
  });
});
