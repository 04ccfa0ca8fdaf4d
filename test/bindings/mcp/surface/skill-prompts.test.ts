/**
 * MCP prompts from agent skills (src/bindings/mcp/surface/skill-prompts.ts): each example of a skill is a
 * prompt, listed with the server's caching hints, answered by prompts/get, and shown to a caller
 * only when it may use the tool of that skill.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { envelope, modernHeaders, post } from '../clients.js';

const ALL = 'k-prompts-all-0123456789abcdef';
const HR_ONLY = 'k-prompts-hr-0123456789abcdef';

describe('MCP prompts from skill examples', () => {
  let s: TestServer;
  let id = 0;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo', usecase: 'sales' },
        { id: 'hr-echo', builtin: 'echo', usecase: 'hr' },
      ],
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ALL, subject: 'analyst', scopes: ['mcp:tools'] },
          { key: HR_ONLY, subject: 'hr-bot', scopes: ['mcp:tools:hr'] },
        ],
      },
    });
  });
  afterAll(async () => s?.stop());

  const rpc = (method: string, params: Record<string, unknown>, key: string, name?: string) =>
    post(`${s.http}/mcp`, { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: envelope() } }, { ...modernHeaders(method, name), authorization: `Bearer ${key}` });

  it('lists one prompt per skill example, with the caching hints, and declares the capability', async () => {
    const r = await rpc('prompts/list', {}, ALL);
    expect(r.status).toBe(200);
    const names = (r.json.result.prompts as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(['echo_echo_example_1', 'hr-echo_echo_example_1']);
    expect(r.json.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const discover = await rpc('server/discover', {}, ALL);
    expect(discover.json.result.capabilities.prompts).toEqual({ listChanged: true });
  });

  it('answers prompts/get with the example as the user message, naming the tool', async () => {
    const r = await rpc('prompts/get', { name: 'echo_echo_example_1' }, ALL, 'echo_echo_example_1');
    expect(r.json.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hello\n\n(Use the tool echo_echo.)' } }]);
  });

  it("filters per caller like tools: a caller bound to one usecase sees only that usecase's prompts", async () => {
    const tools = (await rpc('tools/list', {}, HR_ONLY)).json.result.tools.map((t: { name: string }) => t.name);
    const prompts = (await rpc('prompts/list', {}, HR_ONLY)).json.result.prompts.map((p: { name: string }) => p.name);
    expect(tools).toEqual(['hr-echo_echo']);
    expect(prompts).toEqual(['hr-echo_echo_example_1']);
    const hidden = await rpc('prompts/get', { name: 'echo_echo_example_1' }, HR_ONLY, 'echo_echo_example_1');
    const unknown = await rpc('prompts/get', { name: 'no_such_prompt' }, HR_ONLY, 'no_such_prompt');
    expect(hidden.json.error.code).toBe(unknown.json.error.code);
  });
});
