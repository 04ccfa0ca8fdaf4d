// One third-party MCP client against Agentport, run with the interop clients' own Node 22 and
// node_modules (scripts/interop-clients.sh): `node mcp-client-run.mjs <client> <mcpUrl> <apiKey>`.
// Lists the tools, calls echo_echo, calls probe_probe ("ticks 3 20") with progress where the
// client offers it, and prints one JSON line: {tools, echo, ticks, progress}. No LLM is involved:
// each framework's own MCP layer is used directly. The `*-oauth` clients get no key: they print
// `{authorize}` lines for the test to sign in at, and read the callback URL from stdin where the
// framework has no listener of its own.
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

/** A LangChain tool's output: a string, or standard content blocks. */
const langchainText = (r) => (typeof r === 'string' ? r : Array.isArray(r) ? r.map((b) => b.text ?? '').join('') : JSON.stringify(r));

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
    const echo = langchainText(await byName.echo_echo.invoke(ECHO));
    const ticks = langchainText(await byName.probe_probe.invoke(TICKS));
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
 * An in-memory OAuthClientProvider of the MCP SDK's shape, which the AI SDK, LangChain and OpenAI
 * Agents all take as `authProvider`: a public client that registers itself (RFC 7591), with one
 * loopback redirect URI; its authorization URL is printed as `{authorize}` for the test to sign in
 * at (standing in for the browser).
 */
function memoryAuthProvider(clientName) {
  const redirect = 'http://127.0.0.1:9/callback';
  const stored = {};
  return {
    redirectUrl: redirect,
    clientMetadata: { client_name: clientName, redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
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
    // The MCP SDK 2 keeps the authorization server it found between the redirect and the callback.
    saveDiscoveryState: (state) => {
      stored.discovery = state;
    },
    discoveryState: () => stored.discovery,
    redirectToAuthorization: (u) => {
      process.stdout.write(`${JSON.stringify({ authorize: u.href })}\n`);
    },
  };
}

/** The redirect back to the client: the test writes the callback URL (code, state, iss) to stdin. */
async function redirectedBack() {
  const { createInterface } = await import('node:readline');
  return new URL(await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve)));
}

/** A first connection without tokens must be refused (the provider was sent to sign in). */
async function refusedUntilSignedIn(attempt) {
  try {
    await attempt();
  } catch (e) {
    if (/unauthori/i.test(String(e?.stack ?? e))) return;
    throw e;
  }
  throw new Error('connected without signing in');
}

/**
 * The AI SDK signing in with OAuth (no key): the first `createMCPClient` fails with
 * UnauthorizedError, `auth()` trades the code from the callback, and a new client uses the tokens.
 */
async function aiSdkOAuth() {
  const { auth, createMCPClient } = await import('@ai-sdk/mcp');
  const provider = memoryAuthProvider('AI SDK interop');
  const connect = () => createMCPClient({ transport: { type: 'http', url, authProvider: provider } });
  await refusedUntilSignedIn(async () => (await connect()).close());
  const callback = await redirectedBack();
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

/**
 * LangChain signing in with OAuth (no key): the adapters pass `authProvider` to the MCP SDK 1.x
 * transport and have no step of their own to finish the sign-in, so the SDK's `auth()` (the
 * adapters' own dependency) trades the code; a new client then uses the provider's tokens.
 */
async function langchainOAuth() {
  const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const authProvider = memoryAuthProvider('LangChain interop');
  const connect = () => new MultiServerMCPClient({ mcpServers: { agentport: { transport: 'http', url, authProvider } }, useStandardContentBlocks: true });
  const first = connect();
  await refusedUntilSignedIn(() => first.getTools()).finally(() => first.close());
  const callback = await redirectedBack();
  await auth(authProvider, { serverUrl: url, authorizationCode: callback.searchParams.get('code') });
  const c = connect();
  try {
    const tools = await c.getTools();
    const echo = langchainText(await tools.find((t) => t.name === 'echo_echo').invoke(ECHO));
    return { tools: tools.map((t) => t.name), echo, ticks: '', progress: null };
  } finally {
    await c.close();
  }
}

/**
 * OpenAI Agents signing in with OAuth (no key): `MCPServerStreamableHttp` passes `authProvider` to
 * the MCP SDK 2 transport; the first `connect()` is refused, the SDK's `auth()` trades the code, and
 * `connect()` again uses the provider's tokens.
 */
async function openaiAgentsOAuth() {
  const { MCPServerStreamableHttp } = await import('@openai/agents');
  const { auth } = await import('@modelcontextprotocol/client');
  const authProvider = memoryAuthProvider('OpenAI Agents interop');
  const server = new MCPServerStreamableHttp({ url, name: 'agentport', authProvider });
  await refusedUntilSignedIn(() => server.connect());
  const callback = await redirectedBack();
  await auth(authProvider, { serverUrl: url, authorizationCode: callback.searchParams.get('code'), iss: callback.searchParams.get('iss') ?? undefined });
  await server.connect();
  try {
    const tools = (await server.listTools()).map((t) => t.name);
    const echo = textOf(await server.callTool('echo_echo', ECHO));
    return { tools, echo, ticks: '', progress: null };
  } finally {
    await server.close();
  }
}

/**
 * Mastra signing in with OAuth (no key), its own way: `MCPOAuthClientProvider` does not register
 * dynamically, so it names a client registered beforehand (OAUTH_CLIENT_ID, made with
 * `agentport clients create --public --redirect-uri http://127.0.0.1/callback`);
 * `mcp.authenticate()` listens on the loopback redirect URI, sends the user to sign in
 * (`onRedirectToAuthorization`), takes the code from the redirect and trades it.
 */
async function mastraOAuth() {
  const { MCPClient, MCPOAuthClientProvider } = await import('@mastra/mcp');
  const { createServer } = await import('node:net');
  // A free port for its callback listener (it tries the next ports if this one is taken meanwhile).
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  const authProvider = new MCPOAuthClientProvider({
    redirectUrl,
    clientInformation: { client_id: process.env.OAUTH_CLIENT_ID },
    clientMetadata: { client_name: 'Mastra interop', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    onRedirectToAuthorization: (u) => process.stdout.write(`${JSON.stringify({ authorize: u.href })}\n`),
  });
  const mcp = new MCPClient({ id: `agentport-oauth-${process.pid}`, servers: { agentport: { url: new URL(url), authProvider } } });
  try {
    await mcp.authenticate('agentport', { timeoutMs: 60_000 });
    const tools = await mcp.listTools();
    const echo = textOf(await tools.agentport_echo_echo.execute(ECHO, {}));
    return { tools: Object.keys(tools).map((n) => n.replace(/^agentport_/, '')), echo, ticks: '', progress: null };
  } finally {
    await mcp.disconnect();
  }
}

const clients = {
  'ai-sdk-oauth': aiSdkOAuth,
  'langchain-oauth': langchainOAuth,
  'openai-agents-oauth': openaiAgentsOAuth,
  'mastra-oauth': mastraOAuth,
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
