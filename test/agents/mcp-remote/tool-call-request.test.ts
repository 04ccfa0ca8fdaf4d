/** Which tool an A2A message calls on a remote MCP server, and with what arguments. */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { explicitToolOf, toolCallOf } from '../../../src/agents/mcp-remote/tool-call-request.js';
import { skillOfTool, soleStringArgument } from '../../../src/agents/mcp-remote/tool-skills.js';
import type { Message, Part } from '../../../src/protocol/a2a/types.js';

const tool = (name: string, properties: Record<string, { type: string }>, required: string[] = []): Tool => ({ name, inputSchema: { type: 'object', properties, required } }) as Tool;
const TOOLS = new Map<string, Tool>([
  ['add', tool('add', { a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b'])],
  ['shout', tool('shout', { text: { type: 'string' } }, ['text'])],
  ['ping', tool('ping', {})],
]);
const msg = (...parts: Part[]): Message => ({ messageId: 'm', role: 'ROLE_USER', parts });

describe('toolCallOf', () => {
  it('takes a {tool, arguments} data part first, whatever the text and metadata say', () => {
    const r = toolCallOf(msg({ text: 'shout this' }, { data: { tool: 'add', arguments: { a: 1, b: 2 } } }), TOOLS, { 'agentport/skill': 'shout' });
    expect(r).toMatchObject({ ok: true, tool: { name: 'add' }, arguments: { a: 1, b: 2 } });
    expect(explicitToolOf(msg({ data: { tool: 'add' } }))).toBe('add');
  });

  it('a data part with other keys is arguments, not a call envelope', () => {
    const m = msg({ data: { tool: 'hammer', weight: 3 } });
    expect(explicitToolOf(m)).toBeUndefined();
    expect(toolCallOf(m, TOOLS, { 'agentport/skill': 'shout' })).toMatchObject({ ok: true, tool: { name: 'shout' }, arguments: { tool: 'hammer', weight: 3 } });
  });

  it('the skill in the metadata takes a data part, a JSON text or the one string argument', () => {
    expect(toolCallOf(msg({ text: 'add' }, { data: { a: 5, b: 6 } }), TOOLS, { 'agentport/skill': 'add' })).toMatchObject({ ok: true, arguments: { a: 5, b: 6 } });
    expect(toolCallOf(msg({ text: '{"a": 1, "b": 1}' }), TOOLS, { 'agentport/skill': 'add' })).toMatchObject({ ok: true, arguments: { a: 1, b: 1 } });
    expect(toolCallOf(msg({ text: 'quiet words' }), TOOLS, { 'agentport/skill': 'shout' })).toMatchObject({ ok: true, arguments: { text: 'quiet words' } });
  });

  it('text whose first word is a tool calls it with the rest', () => {
    expect(toolCallOf(msg({ text: 'shout hello there' }), TOOLS)).toMatchObject({ ok: true, tool: { name: 'shout' }, arguments: { text: 'hello there' } });
    expect(toolCallOf(msg({ text: 'add {"a": 2, "b": 3}' }), TOOLS)).toMatchObject({ ok: true, arguments: { a: 2, b: 3 } });
    expect(toolCallOf(msg({ text: 'ping' }), TOOLS)).toMatchObject({ ok: true, tool: { name: 'ping' }, arguments: {} });
    expect(toolCallOf(msg({ text: '{"tool": "shout", "arguments": {"text": "x"}}' }), TOOLS)).toMatchObject({ ok: true, tool: { name: 'shout' }, arguments: { text: 'x' } });
  });

  it('structured arguments cannot come from plain text', () => {
    const r = toolCallOf(msg({ text: 'add one and two' }), TOOLS);
    expect(r).toEqual({ ok: false, reason: 'The tool "add" takes structured arguments: send them as a JSON object, or as a data part {"tool": "add", "arguments": {...}}.' });
  });

  it('names the tools when the message names none or an unknown one', () => {
    expect(toolCallOf(msg({ text: 'multiply 2 3' }), TOOLS)).toEqual({ ok: false, reason: 'The message does not name a tool of this MCP server. Its tools: add, shout, ping.' });
    expect(toolCallOf(msg({ data: { tool: 'divide', arguments: {} } }), TOOLS)).toEqual({ ok: false, reason: 'This MCP server has no tool "divide". Its tools: add, shout, ping.' });
    expect(toolCallOf(msg(), TOOLS)).toEqual({ ok: false, reason: 'The message is empty. Its tools: add, shout, ping.' });
    expect(toolCallOf(msg({ text: 'x' }), new Map())).toEqual({ ok: false, reason: 'The message does not name a tool of this MCP server ("x" is not one). It offers no tools right now.' });
  });

  it('a server with one tool takes any message', () => {
    const only = new Map([['shout', TOOLS.get('shout')!]]);
    expect(toolCallOf(msg({ text: 'make it loud' }), only)).toMatchObject({ ok: true, tool: { name: 'shout' }, arguments: { text: 'make it loud' } });
  });
});

describe('skills from tools', () => {
  it('uses the title, describes the arguments and gives an example call', () => {
    const s = skillOfTool({
      name: 'add',
      title: 'Add',
      description: 'Adds.',
      inputSchema: { type: 'object', properties: { a: { type: 'number', description: 'first' }, b: { type: 'integer' } }, required: ['a'] },
      annotations: { readOnlyHint: true },
    } as Tool);
    expect(s).toMatchObject({ id: 'add', name: 'Add', description: 'Adds. Arguments: a (number, required): first; b (integer).', tags: ['mcp-tool', 'read-only'] });
    expect(JSON.parse(s.examples![0]!)).toEqual({ tool: 'add', arguments: { a: 1 } });
    expect(skillOfTool({ name: 'bare', inputSchema: { type: 'object' } } as Tool)).toMatchObject({ name: 'bare', description: 'Calls the MCP tool "bare".', tags: ['mcp-tool'] });
  });

  it('a text fills a string argument only when it is the one', () => {
    expect(soleStringArgument({ type: 'object', properties: { q: { type: 'string' }, n: { type: 'number' } }, required: ['q'] })).toBe('q');
    expect(soleStringArgument({ type: 'object', properties: { q: { type: 'string' }, n: { type: 'number' } }, required: ['q', 'n'] })).toBeUndefined();
    expect(soleStringArgument({ type: 'object', properties: { q: { type: 'string' }, r: { type: 'string' } } })).toBeUndefined();
    expect(soleStringArgument({ type: 'object', properties: { q: { type: 'string' } } })).toBe('q');
  });
});
