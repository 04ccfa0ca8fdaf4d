/**
 * The compatibility routes beside /mcp (src/bindings/mcp/compat/): plain HTTP on a real server,
 * compared with what the official client sees on /mcp itself.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../../support/server.js';
import { legacyClient, post } from '../clients.js';

const PROBE = fileURLToPath(new URL('../../../fixtures/agents/probe-agent.ts', import.meta.url));

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json };
}

describe('MCP compatibility routes (auth off)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: { mode: 'none' },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'probe', module: PROBE },
      ],
    });
  });
  afterAll(async () => server?.stop());

  it('GET /mcp without an event-stream Accept is the server info, with the auth type', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const r = await getJson(`${server.http}/mcp`, accept ? { accept } : {});
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.json).toMatchObject({ name: 'agentport', endpoint: `${server.http}/mcp`, transport: 'streamable-http', auth: { type: 'none', required: false } });
      expect(r.json.protocolVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-06-18']));
    }
  });

  it('GET /mcp with Accept: text/event-stream stays the MCP endpoint (no info JSON): the server stream', async () => {
    const ac = new AbortController();
    const res = await fetch(`${server.http}/mcp`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
    expect(first).not.toContain('"endpoint"');
    ac.abort();
  });

  it('GET and POST /mcp/tools/list publish the same tools as tools/list on /mcp', async () => {
    const client = await legacyClient(`${server.http}/mcp`);
    let fromMcp: any[];
    try {
      fromMcp = (await client.listTools()).tools;
    } finally {
      await client.close();
    }
    const got = await getJson(`${server.http}/mcp/tools/list`);
    expect(got.status).toBe(200);
    expect(got.json.tools).toEqual(JSON.parse(JSON.stringify(fromMcp)));
    const posted = await post(`${server.http}/mcp/tools/list`, { jsonrpc: '2.0', id: 'l1', method: 'tools/list' });
    expect(posted.json).toEqual({ jsonrpc: '2.0', id: 'l1', result: { tools: got.json.tools } });
    const bare = await post(`${server.http}/mcp/tools/list`, '');
    expect(bare.json.tools.map((t: any) => t.name)).toEqual(['echo_echo', 'probe_probe']);
  });

  it('POST /mcp/tools/call {name, arguments} runs the tool as a durable A2A task', async () => {
    const r = await post(`${server.http}/mcp/tools/call`, { name: 'echo_echo', arguments: { message: 'hello compat' } });
    expect(r.status).toBe(200);
    expect(r.json.content).toContainEqual({ type: 'text', text: 'hello compat' });
    const taskId = r.json._meta['agentport/taskId'];
    const task = await rpc(`${server.http}/a2a/echo`, 'GetTask', { id: taskId });
    expect(task.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a JSON-RPC tools/call body gets a JSON-RPC answer with its id; tool failures stay isError results', async () => {
    const r = await post(`${server.http}/mcp/tools/call`, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'probe_probe', arguments: { message: 'fail disk full' } } });
    expect(r.status).toBe(200);
    expect(r.json.jsonrpc).toBe('2.0');
    expect(r.json.id).toBe(7);
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.content[0].text).toBe('disk full');
  });

  it('bad bodies get JSON-RPC-shaped errors, never a stack', async () => {
    const notJson = await post(`${server.http}/mcp/tools/call`, '{"name":');
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe(-32700);
    const noName = await post(`${server.http}/mcp/tools/call`, { arguments: {} });
    expect(noName.status).toBe(400);
    expect(noName.json.error).toEqual({ code: -32602, message: 'The body must be {"name": "<tool>", "arguments": {...}}' });
    const badArgs = await post(`${server.http}/mcp/tools/call`, { name: 'echo_echo', arguments: [1] });
    expect(badArgs.json.error.code).toBe(-32602);
    const unknown = await post(`${server.http}/mcp/tools/call`, { name: 'no_such_tool', arguments: {} });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe(-32602);
    expect(unknown.text).not.toMatch(/\n\s+at /);
    const outsideSchema = await post(`${server.http}/mcp/tools/call`, { name: 'echo_echo', arguments: { nope: 1 } });
    expect(outsideSchema.text).not.toMatch(/\n\s+at /);
    expect(outsideSchema.json.isError ?? outsideSchema.json.error).toBeTruthy();
  });

  it('wrong methods are 405 with Allow', async () => {
    const res = await fetch(`${server.http}/mcp/tools/call`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const del = await fetch(`${server.http}/mcp/health`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET');
  });

  it('POST /mcp/initialize answers an initialize (no session)', async () => {
    const r = await post(`${server.http}/mcp/initialize`, { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    expect(r.status).toBe(200);
    expect(r.json.protocolVersion).toBe('2025-03-26');
    expect(r.json.serverInfo.name).toBe('agentport');
    expect(r.json.capabilities.tools).toBeDefined();
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const empty = await post(`${server.http}/mcp/initialize`, '');
    expect(empty.json.protocolVersion).toBe('2025-06-18');
  });

  it('GET /mcp/resources/list lists the agent cards', async () => {
    const r = await getJson(`${server.http}/mcp/resources/list`);
    expect(r.status).toBe(200);
    expect(r.json.resources.map((x: any) => x.uri)).toEqual(expect.arrayContaining(['agentport://agents/echo/card', 'agentport://agents/probe/card']));
  });

  it('GET /mcp/health and /mcp/validate', async () => {
    const health = await getJson(`${server.http}/mcp/health`);
    expect(health.json).toMatchObject({ status: 'ok', agents: 2, tools: 2 });
    const v = await getJson(`${server.http}/mcp/validate`);
    expect(v.status).toBe(200);
    expect(v.json.valid).toBe(true);
    const byId = Object.fromEntries(v.json.checks.map((c: any) => [c.id, c]));
    expect(byId['tool-names']).toMatchObject({ ok: true, message: '2 tool names are valid' });
    expect(byId['public-url'].message).toMatch(/local/);
    expect(byId.auth).toMatchObject({ ok: true, message: 'authentication is off (auth.mode: none)' });
  });

  it('/.well-known/mcp-metadata: server, tools, auth and the ChatGPT and Claude connector blocks', async () => {
    const r = await getJson(`${server.http}/.well-known/mcp-metadata`, { origin: 'http://localhost:6274' });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(r.json.server).toMatchObject({ name: 'agentport' });
    expect(r.json.mcp.endpoint).toBe(`${server.http}/mcp`);
    expect(r.json.tools.map((t: any) => t.name)).toEqual(['echo_echo', 'probe_probe']);
    expect(r.json.auth.type).toBe('none');
    expect(r.json.connectors.chatgpt).toMatchObject({ url: `${server.http}/mcp`, authentication: 'none', searchAndFetch: false });
    expect(r.json.connectors.claude.claudeCode).toBe(`claude mcp add --transport http agentport ${server.http}/mcp`);
    expect(r.json.authentication).toEqual({ type: 'none', required: false });
    expect(r.json.chatgpt_connector.authentication.type).toBe('none');
  });
});

describe('MCP compatibility routes with authentication', () => {
  const KEY = 'compat-key-0123456789abcdef';
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['mcp:tools', 'a2a:discover', 'a2a:publish'] }] },
      agents: [{ id: 'echo', builtin: 'echo' }],
    });
  });
  afterAll(async () => server?.stop());

  it('tools/list is public; the metadata names the OAuth endpoints', async () => {
    const list = await getJson(`${server.http}/mcp/tools/list`);
    expect(list.status).toBe(200);
    expect(list.json.tools.map((t: any) => t.name)).toEqual(['echo_echo']);
    const meta = await getJson(`${server.http}/.well-known/mcp-metadata`);
    expect(meta.json.auth).toMatchObject({
      type: 'oauth2',
      required: true,
      scopes: ['mcp:tools'],
      authorization_endpoint: `${server.http}/oauth/authorize`,
      token_endpoint: `${server.http}/oauth/token`,
      registration_endpoint: `${server.http}/oauth/register`,
      protected_resource_metadata: `${server.http}/.well-known/oauth-protected-resource/mcp`,
    });
    expect(meta.json.connectors.claude.redirect_uris).toContain('https://claude.ai/api/mcp/auth_callback');
  });

  it("GET /mcp and the metadata carry the Novaeden API's shapes: authentication.type oauth, both connector blocks, default_connector by Origin", async () => {
    for (const path of ['/mcp', '/.well-known/mcp-metadata']) {
      const chatgpt = await getJson(`${server.http}${path}`, { origin: 'https://chatgpt.com' });
      expect(chatgpt.json.authentication).toMatchObject({ type: 'oauth', required: true, authorization_url: `${server.http}/oauth/authorize`, token_url: `${server.http}/oauth/token` });
      expect(chatgpt.json.auth.type).toBe('oauth2'); // Agentport's own member stays
      expect(chatgpt.json.oauth_config).toMatchObject({ token_endpoint: `${server.http}/oauth/token`, code_challenge_methods_supported: ['S256'] });
      expect(chatgpt.json.auth_request).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', scope: 'mcp:tools' });
      for (const key of ['chatgpt_connector', 'claude_code_connector']) {
        expect(chatgpt.json[key]).toMatchObject({ url: `${server.http}/mcp`, authentication: { type: 'oauth' }, auth_request: { response_type: 'code' } });
        expect(chatgpt.json[key].oauth_client_params.redirect_uris.length).toBeGreaterThan(0);
      }
      expect(chatgpt.json.connectors.default_connector).toBe('chatgpt_connector');
      expect(chatgpt.headers.get('vary')).toMatch(/Origin/);
      const claude = await getJson(`${server.http}${path}`, { origin: 'https://claude.ai' });
      expect(claude.json.connectors.default_connector).toBe('claude_code_connector');
    }
  });

  it('tools/call is authorized exactly like /mcp: a wrong key is 401 with a Bearer challenge, a good key runs as its subject', async () => {
    const call = { name: 'echo_echo', arguments: { message: 'as alice' } };
    const wrong = await post(`${server.http}/mcp/tools/call`, call, { authorization: 'Bearer not-a-valid-key-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(wrong.json.error.code).toBe(-32001);

    const viaMcp = await post(`${server.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...call } }, { 'mcp-protocol-version': '2025-06-18' });
    const anonymous = await post(`${server.http}/mcp/tools/call`, call);
    expect(viaMcp.status).toBe(401); // auth.mode required: MCP needs mcp:tools
    expect(anonymous.status).toBe(401); // same edge, same answer
    expect(anonymous.headers.get('www-authenticate')).toBe(viaMcp.headers.get('www-authenticate'));

    const ok = await post(`${server.http}/mcp/tools/call`, call, { 'x-api-key': KEY });
    expect(ok.status).toBe(200);
    expect(ok.json.content).toContainEqual({ type: 'text', text: 'as alice' });
    // The task belongs to alice: she reads it over A2A.
    const task = await rpc(`${server.http}/a2a/echo`, 'GetTask', { id: ok.json._meta['agentport/taskId'] }, { 'x-api-key': KEY });
    expect(task.body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('MCP compatibility routes and hidden agents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: { mode: 'required', apiKeys: [{ key: 'compat-hidden-0123456789abc', subject: 'alice', scopes: ['mcp:tools'] }] },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'internal', builtin: 'echo', visibility: 'extended' },
      ],
    });
  });
  afterAll(async () => server?.stop());

  it('the public tool list and the metadata leave out the tools of hidden agents', async () => {
    const list = await getJson(`${server.http}/mcp/tools/list`);
    expect(list.json.tools.map((t: any) => t.name)).toEqual(['echo_echo']);
    const meta = await getJson(`${server.http}/.well-known/mcp-metadata`);
    expect(meta.json.tools.map((t: any) => t.name)).toEqual(['echo_echo']);
    // A caller with an MCP scope sees and calls it on /mcp, and so through the compat route.
    const r = await post(`${server.http}/mcp/tools/call`, { name: 'internal_echo', arguments: { message: 'inside' } }, { 'x-api-key': 'compat-hidden-0123456789abc' });
    expect(r.status).toBe(200);
    expect(r.json.content).toContainEqual({ type: 'text', text: 'inside' });
  });
});
