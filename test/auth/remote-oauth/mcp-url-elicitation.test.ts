/**
 * Issue 27: a tool call over A's /mcp that needs the caller's account at a remote connected first
 * (ADR 0035) answers a client that declared URL-mode elicitation with the 2025-11-25
 * URLElicitationRequiredError (-32042) carrying the connect link; the official MCP SDK client
 * (v1, @modelcontextprotocol/sdk) reads it as UrlElicitationRequiredError. After the user connects
 * in their browser, the retried call succeeds. A 2026-07-28 client (the v2 SDK client) that
 * declared URL mode gets the MRTR input_required round with a URL-mode elicitation instead; a
 * client without URL mode gets a tool error naming the link; a call made as an MCP task (tasks
 * extension) keeps its task waiting and completes after the connect. Each case is its own user, since a
 * connect lasts. Two real servers on loopback, as in remote-mcp-oauth.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, type TestServer } from '../../support/server.js';
import { envelope, modernHeaders, post } from '../../bindings/mcp/clients.js';
import { consoleSignIn } from '../../console/console-code-flow.js';
import { browse, startOAuthServer } from '../oauth/support.js';

const ALICE_KEY = 'alice-url-elicitation-key-000001';
const BEA = { username: 'bea', password: 'bea has a long password here' };
const ALICE = { username: 'alice', password: 'alice has a long password here' };
const CAROL = { username: 'carol', password: 'carol has a long password here' };
const CAROL_KEY = 'carol-url-elicitation-key-000001';
const DANA = { username: 'dana', password: 'dana has a long password here' };
const DANA_KEY = 'dana-url-elicitation-key-0000001';
const ERIN = { username: 'erin', password: 'erin has a long password here' };
const ERIN_KEY = 'erin-url-elicitation-key-0000001';
const scopes = ['a2a:publish', 'a2a:discover', 'mcp:tools'];

let a: TestServer;
let b: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  b = await startOAuthServer({ agents: [{ id: 'echo', builtin: 'echo' }] }, [BEA]);
  a = await startOAuthServer(
    {
      agents: [{ id: 'bee', remote: { cardUrl: `${b.http}/a2a/echo`, allowlist: ['127.0.0.1'], auth: { kind: 'oauth', connectWaitMs: 60_000 } } }],
      auth: {
        mode: 'required',
        apiKeys: [
          { key: ALICE_KEY, subject: 'alice', scopes },
          { key: CAROL_KEY, subject: 'carol', scopes },
          { key: DANA_KEY, subject: 'dana', scopes },
          { key: ERIN_KEY, subject: 'erin', scopes },
        ],
        vault: { keys: [{ id: 'k1', secret: randomBytes(32).toString('base64') }] },
      },
    },
    [ALICE, CAROL, DANA, ERIN],
  );
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await a?.stop();
  await b?.stop();
});

/** The official SDK client (2025-11-25 era) on A's /mcp as alice, with the capabilities given. */
async function mcpClient(capabilities: Record<string, unknown>, key = ALICE_KEY): Promise<Client> {
  const client = new Client({ name: 'url-elicitation-test', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${a.http}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

async function beeTool(client: Pick<Client, 'listTools'>): Promise<string> {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name.startsWith('bee'));
  expect(tool, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
  return tool!.name;
}

/** The connect, in alice's own browser: A's console session, consent at B as bea, A's callback. */
async function connectInBrowser(link: string, user = ALICE): Promise<void> {
  const signed = await consoleSignIn(a.http, async (authorizeUrl, redirectUri) => (await browse(a, authorizeUrl, { redirectPrefix: redirectUri, user })).callback);
  const start = await fetch(link, { redirect: 'manual', headers: { cookie: signed.cookie } });
  expect(start.status, await start.clone().text()).toBe(302);
  const binding = start.headers
    .getSetCookie()
    .find((c) => c.startsWith('ap_connect='))!
    .split(';')[0]!;
  const consent = await browse(b, start.headers.get('location')!, { redirectPrefix: `${a.http}/connect/callback`, user: BEA });
  const callback = await fetch(consent.callback!, { headers: { cookie: `${signed.cookie}; ${binding}` } });
  expect(callback.status).toBe(200);
}

describe('a tool call that needs a connected account, over MCP', () => {
  it('without URL-mode elicitation: a tool error naming the connect link at once; the waiting task is canceled; after connecting, the retried call succeeds', async () => {
    const client = await mcpClient({}, CAROL_KEY);
    const name = await beeTool(client);
    const first = (await client.callTool({ name, arguments: { message: 'no url mode' } }, undefined, { timeout: 30_000 })) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(first.isError, JSON.stringify(first)).toBe(true);
    const text = first.content.map((c) => c.text).join(' ');
    const link = /open (\S+), then call the tool again/.exec(text)?.[1];
    expect(text).toMatch(/^Connect your account at \S+ to continue: open /);
    expect(link?.startsWith(`${a.http}/connect/start?ticket=`), text).toBe(true);

    const listed = await rpc(`${a.http}/a2a/bee`, 'ListTasks', { includeArtifacts: false }, { 'x-api-key': CAROL_KEY });
    const asked = (listed.body.result?.tasks ?? []).filter((t: any) => JSON.stringify(t.history ?? []).includes('no url mode'));
    expect(
      asked.map((t: any) => t.status.state),
      JSON.stringify(listed.body),
    ).toEqual(['TASK_STATE_CANCELED']);

    await connectInBrowser(link!, CAROL);
    const retried = (await client.callTool({ name, arguments: { message: 'no url mode' } })) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(retried.isError ?? false, JSON.stringify(retried)).toBe(false);
    expect(retried.content.map((c) => c.text).join(' ')).toContain('no url mode');
  });

  it('2026-07-28 with URL mode: input_required with a URL-mode elicitation of the connect link; asked again until connected, then the call completes as the user', async () => {
    const client = new V2Client({ name: 'url-elicitation-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { url: {} } } });
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as Record<string, unknown>;
      asked.push(params);
      // First round: accept without connecting (the server must ask again); second: connect, then accept.
      if (asked.length === 2) await connectInBrowser(String(params.url), DANA);
      return { action: 'accept' };
    });
    await client.connect(new V2Transport(new URL(`${a.http}/mcp`), { requestInit: { headers: { authorization: `Bearer ${DANA_KEY}` } } }));
    try {
      const name = await beeTool(client as unknown as Pick<Client, 'listTools'>);
      const r = (await client.callTool({ name, arguments: { message: 'hello by mrtr url' } })) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
      expect(r.content.map((c) => c.text).join(' ')).toContain('hello by mrtr url');
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(2);
    for (const e of asked) {
      expect(e.mode).toBe('url');
      expect(e).not.toHaveProperty('elicitationId'); // the 2026-07-28 shape; the sealed requestState correlates
      expect(String(e.url).startsWith(`${a.http}/connect/start?ticket=`)).toBe(true);
      expect(e.message).toMatch(/^Connect your account at \S+ to continue: open \S+, then call the tool again\.$/);
      expect(e.message).toContain(String(e.url));
    }
    // Each round canceled the task that waited; the last one ran as dana and completed.
    const listed = await rpc(`${a.http}/a2a/bee`, 'ListTasks', { includeArtifacts: false }, { 'x-api-key': DANA_KEY });
    const states = (listed.body.result?.tasks ?? []).filter((t: any) => JSON.stringify(t.history ?? []).includes('hello by mrtr url')).map((t: any) => t.status.state);
    expect(states.sort(), JSON.stringify(listed.body)).toEqual(['TASK_STATE_CANCELED', 'TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED']);
  });

  it('with URL-mode elicitation: -32042 with the connect link; the waiting task is canceled; after connecting, the retried call succeeds', async () => {
    const client = await mcpClient({ elicitation: { url: {} } });
    const name = await beeTool(client);
    let required: UrlElicitationRequiredError | undefined;
    try {
      await client.callTool({ name, arguments: { message: 'hello by url elicitation' } });
    } catch (err) {
      if (err instanceof UrlElicitationRequiredError) required = err;
      else throw err;
    }
    expect(required).toBeInstanceOf(McpError);
    expect(required!.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(required!.code).toBe(-32042);
    expect(required!.elicitations).toHaveLength(1);
    const e = required!.elicitations[0]!;
    expect(e.mode).toBe('url');
    expect(e.elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.url.startsWith(`${a.http}/connect/start?ticket=`)).toBe(true);
    expect(e.message).toContain('Connect your account');

    // The task that asked is not left waiting to run again once connected: A lists none waiting.
    const listed = await rpc(`${a.http}/a2a/bee`, 'ListTasks', { includeArtifacts: false }, { 'x-api-key': ALICE_KEY });
    const asked = (listed.body.result?.tasks ?? []).filter((t: any) => JSON.stringify(t.history ?? []).includes('hello by url elicitation'));
    expect(
      asked.map((t: any) => t.status.state),
      JSON.stringify(listed.body),
    ).toEqual(['TASK_STATE_CANCELED']);

    await connectInBrowser(e.url);
    const retried = (await client.callTool({ name, arguments: { message: 'hello by url elicitation' } })) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(retried.isError ?? false, JSON.stringify(retried)).toBe(false);
    expect(retried.content.map((c) => c.text).join(' ')).toContain('hello by url elicitation');
  });

  it('a call made as an MCP task: the task waits in AUTH_REQUIRED (input_required), its status message naming the link, and completes after the connect', async () => {
    const name = await beeTool(await mcpClient({}, ERIN_KEY));
    const meta = () => envelope({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    let id = 0;
    const send = (method: string, params: Record<string, unknown>) =>
      post(`${a.http}/mcp`, { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta() } }, { ...modernHeaders(method, method === 'tools/call' ? name : undefined), authorization: `Bearer ${ERIN_KEY}` });
    const created = await send('tools/call', { name, arguments: { message: 'hello as a task' } });
    expect(created.json.result?.resultType, created.text).toBe('task');
    const taskId = created.json.result.taskId as string;
    const until = async (want: string) => {
      for (let i = 0; i < 200; i++) {
        const r = (await send('tasks/get', { taskId })).json.result;
        if (r.status === want) return r;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error(`task ${taskId} never reached ${want}`);
    };
    const waiting = await until('input_required');
    const link = /open (\S+)/.exec(String(waiting.statusMessage))?.[1];
    expect(link?.startsWith(`${a.http}/connect/start?ticket=`), JSON.stringify(waiting)).toBe(true);
    await connectInBrowser(link!, ERIN);
    const done = await until('completed');
    expect(JSON.stringify(done.result?.content ?? [])).toContain('hello as a task');
  });
});
