/**
 * The MCP fixture module hook (src/bindings/mcp/surface/fixture-module.ts, `mcp.fixtureModule`): what a
 * module registers is served on `/mcp` only, its capabilities replace the defaults there, its
 * fastPath answers before the SDK, and a module that does not load leaves `/mcp` answering 503.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpFixtureModuleOf } from '../../../../src/bindings/mcp/surface/fixture-module.js';
import { startTestServer, type TestServer } from '../../../support/server.js';
import { post } from '../clients.js';

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const toolNames = (r: { json: any }) => (r.json.result.tools as Array<{ name: string }>).map((t) => t.name);

/** A module written as plain JavaScript: it needs nothing from src/ but the hook's shape. */
const MODULE = `
export default {
  capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } },
  register(server, ctx) {
    server.registerTool('hook_probe', { description: 'probe' }, () => ({ content: [{ type: 'text', text: 'probe for ' + ctx.principal.subject + (ctx.agentTool('echo_echo') ? ' with echo_echo' : '') }] }));
  },
  fastPath(request) {
    if (request?.method !== 'hook/ping') return undefined;
    return { kind: 'json', status: 200, body: { jsonrpc: '2.0', id: request.id, result: { pong: true } } };
  },
};
`;

describe('mcpFixtureModuleOf', () => {
  it('takes a default export with register, and names the file and the shape otherwise', () => {
    const m = { register: () => {} };
    expect(mcpFixtureModuleOf({ default: m }, 'm.js')).toBe(m);
    for (const exports of [{}, { default: {} }, { register: () => {} }, { default: { register: () => {}, fastPath: 1 } }]) {
      expect(() => mcpFixtureModuleOf(exports, '/x/m.js')).toThrow(/mcp\.fixtureModule \/x\/m\.js: the default export must be an MCP fixture module/);
    }
  });
});

describe('mcp.fixtureModule', () => {
  let dir: string;
  let s: TestServer;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-fixture-module-'));
    await writeFile(path.join(dir, 'probe.mjs'), MODULE);
    await writeFile(path.join(dir, 'broken.mjs'), 'export default { capabilities: {} };\n');
    s = await startTestServer({ auth: { mode: 'none' }, mcp: { fixtureModule: path.join(dir, 'probe.mjs') }, agents: [{ id: 'echo', builtin: 'echo' }] });
  });
  afterAll(async () => {
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('registers its tools on /mcp beside the agent tools, bound to the caller', async () => {
    const list = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, LEGACY);
    expect(toolNames(list)).toEqual(expect.arrayContaining(['echo_echo', 'hook_probe']));
    const call = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hook_probe', arguments: {} } }, LEGACY);
    expect(call.json.result.content[0].text).toBe('probe for anonymous with echo_echo');
  });

  it('declares its capabilities on /mcp instead of the defaults; /a2a/{id}/mcp keeps them and has none of its tools', async () => {
    // (the SDK completes the rest from what is registered: the task template, the skills' prompts)
    const own = await post(`${s.http}/mcp`, initialize, LEGACY);
    expect(own.json.result.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} });
    const agent = await post(`${s.http}/a2a/echo/mcp`, initialize, LEGACY);
    expect(agent.json.result.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {} });
    expect(agent.json.result.capabilities.resources).not.toHaveProperty('subscribe');
    const list = await post(`${s.http}/a2a/echo/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, LEGACY);
    expect(toolNames(list)).not.toContain('hook_probe');
  });

  it('answers what its fastPath takes, before the SDK', async () => {
    const r = await post(`${s.http}/mcp`, { jsonrpc: '2.0', id: 7, method: 'hook/ping', params: {} }, LEGACY);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 7, result: { pong: true } });
  });

  it('a module whose export is not a fixture module leaves /mcp answering 503, as after a failed start', async () => {
    const broken = await startTestServer({ auth: { mode: 'none' }, server: { logLevel: 'silent' }, mcp: { fixtureModule: path.join(dir, 'broken.mjs') }, agents: [{ id: 'echo', builtin: 'echo' }] });
    try {
      const r = await post(`${broken.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, LEGACY);
      expect(r.status).toBe(503);
      expect(r.json.error).toMatchObject({ code: -32603, message: 'The server failed to start' });
    } finally {
      await broken.stop();
    }
  });
});
