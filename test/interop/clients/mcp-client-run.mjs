// One third-party MCP client against Agentport, run with the interop clients' own Node 22 and
// node_modules (scripts/interop-clients.sh): `node mcp-client-run.mjs <client> <mcpUrl> <apiKey>`.
// Lists the tools, calls echo_echo, calls probe_probe ("ticks 3 20") with progress where the
// client offers it, and prints one JSON line: {tools, echo, ticks, progress}. No LLM is involved:
// each framework's own MCP layer is used directly.
const [client, url, key] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${key}` };
const ECHO = { message: 'hello from a framework' };
const TICKS = { message: 'ticks 3 20' };
const textOf = (r) =>
  (r?.content ?? r ?? [])
    .filter?.((c) => c.type === 'text')
    .map((c) => c.text)
    .join('') ?? String(r);

async function aiSdk() {
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const c = await createMCPClient({ transport: { type: 'http', url, headers } });
  try {
    const tools = (await c.listTools()).tools.map((t) => t.name);
    // The AI SDK tool set is what an agent loop gets: call through it, as generateText would.
    const set = await c.tools();
    const echo = textOf(await set.echo_echo.execute(ECHO, { toolCallId: 't1', messages: [] }));
    const ticks = textOf(await c.callTool({ name: 'probe_probe', arguments: TICKS }));
    return { tools, echo, ticks, progress: null };
  } finally {
    await c.close();
  }
}

async function langchain() {
  const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
  const progress = [];
  const c = new MultiServerMCPClient({
    mcpServers: { agentport: { transport: 'http', url, headers } },
    onProgress: (p) => progress.push(p.progress),
    useStandardContentBlocks: true,
  });
  try {
    const tools = await c.getTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const text = (r) => (typeof r === 'string' ? r : Array.isArray(r) ? r.map((b) => b.text ?? '').join('') : JSON.stringify(r));
    const echo = text(await byName.echo_echo.invoke(ECHO));
    const ticks = text(await byName.probe_probe.invoke(TICKS));
    return { tools: tools.map((t) => t.name), echo, ticks, progress: progress.length };
  } finally {
    await c.close();
  }
}

async function openaiAgents() {
  const { MCPServerStreamableHttp } = await import('@openai/agents');
  const server = new MCPServerStreamableHttp({ url, name: 'agentport', requestInit: { headers } });
  await server.connect();
  try {
    const tools = (await server.listTools()).map((t) => t.name);
    const echo = textOf(await server.callTool('echo_echo', ECHO));
    const ticks = textOf(await server.callTool('probe_probe', TICKS));
    return { tools, echo, ticks, progress: null };
  } finally {
    await server.close();
  }
}

async function mastra() {
  const { MCPClient } = await import('@mastra/mcp');
  // Progress is off unless asked for (enableProgressTracking: the calls then carry a progressToken).
  const mcp = new MCPClient({ id: `agentport-${process.pid}`, servers: { agentport: { url: new URL(url), requestInit: { headers }, enableProgressTracking: true } } });
  const progress = [];
  try {
    const tools = await mcp.listTools();
    await mcp.progress.onUpdate('agentport', (p) => progress.push(p.progress));
    // Mastra names each tool <server>_<tool>.
    const run = (name, args) => tools[`agentport_${name}`].execute(args, {});
    const echo = textOf(await run('echo_echo', ECHO));
    const ticks = textOf(await run('probe_probe', TICKS));
    return { tools: Object.keys(tools).map((n) => n.replace(/^agentport_/, '')), echo, ticks, progress: progress.length };
  } finally {
    await mcp.disconnect();
  }
}

/** mcp-remote: the stdio bridge desktop hosts run; driven here by the MCP SDK 1.x stdio client. */
async function mcpRemote(transport) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { createRequire } = await import('node:module');
  const proxy = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');
  const args = [proxy, url, '--header', `Authorization:Bearer ${key}`, '--transport', transport, '--allow-http'];
  const c = new Client({ name: 'agentport-interop', version: '1.0.0' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', env: { ...process.env, MCP_REMOTE_CONFIG_DIR: process.env.MCP_REMOTE_CONFIG_DIR ?? '' } }));
  try {
    const tools = (await c.listTools()).tools.map((t) => t.name);
    const echo = textOf(await c.callTool({ name: 'echo_echo', arguments: ECHO }));
    const progress = [];
    const ticks = textOf(await c.callTool({ name: 'probe_probe', arguments: TICKS }, undefined, { onprogress: (p) => progress.push(p.progress) }));
    return { tools, echo, ticks, progress: progress.length };
  } finally {
    await c.close();
  }
}

/**
 * mcp-remote signing in with OAuth (no key): it registers itself, and its authorization URL is
 * printed here as `{authorize}` for the test to sign in at (standing in for the browser, which
 * BROWSER=true keeps closed); the callback then reaches mcp-remote's own listener.
 */
async function mcpRemoteOAuth() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { createRequire } = await import('node:module');
  const proxy = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [proxy, url, '--transport', 'http-only'], stderr: 'pipe', env: { ...process.env, BROWSER: 'true' } });
  let said = '';
  transport.stderr.on('data', (d) => {
    said += d;
    const m = /Please authorize this client by visiting:\s+(\S+)/.exec(said);
    if (m) {
      process.stdout.write(`${JSON.stringify({ authorize: m[1] })}\n`);
      said = '';
    }
  });
  const c = new Client({ name: 'agentport-interop', version: '1.0.0' });
  await c.connect(transport);
  try {
    const tools = (await c.listTools()).tools.map((t) => t.name);
    const echo = textOf(await c.callTool({ name: 'echo_echo', arguments: ECHO }));
    return { tools, echo, ticks: '', progress: null };
  } finally {
    await c.close();
  }
}

/**
 * The AI SDK signing in with OAuth (no key), with an in-memory OAuthClientProvider: it registers
 * itself; its authorization URL is printed as `{authorize}`, the test signs in (as the browser) and
 * writes the callback URL to stdin; `auth()` trades the code, and a new client uses the tokens.
 */
async function aiSdkOAuth() {
  const { auth, createMCPClient, UnauthorizedError } = await import('@ai-sdk/mcp');
  const { createInterface } = await import('node:readline');
  const stored = {};
  const provider = {
    redirectUrl: 'http://127.0.0.1:9/callback',
    clientMetadata: { client_name: 'AI SDK interop', redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    clientInformation: () => stored.client,
    saveClientInformation: (info) => {
      stored.client = info;
    },
    tokens: () => stored.tokens,
    saveTokens: (tokens) => {
      stored.tokens = tokens;
    },
    saveCodeVerifier: (v) => {
      stored.verifier = v;
    },
    codeVerifier: () => stored.verifier,
    redirectToAuthorization: (u) => {
      process.stdout.write(`${JSON.stringify({ authorize: u.href })}\n`);
    },
  };
  const connect = () => createMCPClient({ transport: { type: 'http', url, authProvider: provider } });
  try {
    await (await connect()).close();
    throw new Error('connected without signing in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError) && !/unauthori/i.test(String(e))) throw e;
  }
  const callback = new URL(await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve)));
  await auth(provider, {
    serverUrl: url,
    authorizationCode: callback.searchParams.get('code'),
    callbackState: callback.searchParams.get('state') ?? undefined,
    callbackIssuer: callback.searchParams.get('iss') ?? undefined,
  });
  const c = await connect();
  try {
    const tools = (await c.listTools()).tools.map((t) => t.name);
    const echo = textOf(await c.callTool({ name: 'echo_echo', arguments: ECHO }));
    return { tools, echo, ticks: '', progress: null };
  } finally {
    await c.close();
  }
}

const clients = {
  'ai-sdk-oauth': aiSdkOAuth,
  'mcp-remote-oauth': mcpRemoteOAuth,
  'ai-sdk': aiSdk,
  langchain,
  'openai-agents': openaiAgents,
  mastra,
  'mcp-remote': () => mcpRemote('http-only'),
  'mcp-remote-sse': () => mcpRemote('sse-only'),
};
try {
  process.stdout.write(`${JSON.stringify(await clients[client]())}\n`);
  process.exit(0);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: String(e?.stack ?? e) })}\n`);
  process.exit(1);
}
