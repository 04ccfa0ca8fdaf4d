// One A2A framework client against Agentport, run with the interop clients' own Node 22 and
// node_modules (scripts/interop-clients.sh): `node a2a-client-run.mjs <client> <serverUrl> <agentId> <apiKey>`.
// Reads the agent's card and sends one message through the framework's own A2A layer (no LLM),
// printing one JSON line: {card, answer}.
const [client, server, agentId, key] = process.argv.slice(2);
const agentUrl = `${server}/a2a/${agentId}`;
const TEXT = 'hello from a framework';

/** A fetch that adds the API key to Agentport's requests only. */
const keyedFetch = (input, init = {}) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith(server)) return fetch(input, init);
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  headers.set('X-API-Key', key);
  return fetch(input, { ...init, headers });
};

const textOf = (parts) => (parts ?? []).map((p) => p.text ?? '').join('');
/** The answer's text: a message's parts, or a task's artifacts. */
const answerOf = (r) => (r?.kind === 'message' || r?.parts ? textOf(r.parts) : (r?.artifacts ?? []).map((a) => textOf(a.parts)).join(''));

async function mastra() {
  const { MastraClient } = await import('@mastra/client-js');
  // Mastra's client puts every path under an API prefix (default /api) and looks for a card at
  // /.well-known/<agentId>/agent-card.json: no prefix here, and the card path is mapped to the
  // agent's own card by the fetch.
  const cardPath = /\/\.well-known\/([^/]+)\/agent-card\.json$/;
  const mapped = (input, init) => keyedFetch(String(input).replace(cardPath, '/a2a/$1/.well-known/agent-card.json'), init);
  const c = new MastraClient({ baseUrl: server, apiPrefix: '', fetch: mapped, retries: 0 });
  const a2a = c.getA2A(agentId);
  const card = await a2a.getAgentCard();
  const sent = await a2a.sendMessage({ message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: TEXT }] } });
  if (sent.error) throw new Error(JSON.stringify(sent.error));
  return { card: card.name, answer: answerOf(sent.result) };
}

async function adk() {
  const { InMemoryRunner, RemoteA2AAgent } = await import('@google/adk');
  const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = await import('@a2a-js/sdk/client');
  // ADK resolves a string agentCard as a base URL and appends .well-known/agent-card.json to it
  // (URL resolution): the agent's URL with a trailing slash, not the card's URL.
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch })] }));
  const agent = new RemoteA2AAgent({ name: 'agentport_echo', description: 'Agentport echo', agentCard: `${agentUrl}/`, clientFactory: factory });
  const runner = new InMemoryRunner({ agent, appName: 'interop' });
  const session = await runner.sessionService.createSession({ appName: 'interop', userId: 'u1' });
  let answer = '';
  for await (const e of runner.runAsync({ userId: 'u1', sessionId: session.id, newMessage: { role: 'user', parts: [{ text: TEXT }] } })) {
    if (e.errorMessage) throw new Error(e.errorMessage);
    answer += (e.content?.parts ?? []).map((p) => p.text ?? '').join('');
  }
  // The card the agent resolved (read after the run, which resolves it first).
  return { card: agent.card?.name, answer };
}

async function aiProvider() {
  const { a2a } = await import('a2a-ai-provider');
  const { generateText } = await import('ai');
  // The provider takes no credential: the global fetch (which its A2A client uses) adds the key.
  globalThis.fetch = (
    (base) =>
    (input, init = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.startsWith(server)) return base(input, init);
      const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
      headers.set('X-API-Key', key);
      return base(input, { ...init, headers });
    }
  )(globalThis.fetch);
  const quiet = console.log;
  console.log = () => {}; // the provider logs the card on every call
  try {
    const { text } = await generateText({ model: a2a(`${agentUrl}/.well-known/agent-card.json`), prompt: TEXT });
    return { card: null, answer: text };
  } finally {
    console.log = quiet;
  }
}

const clients = { mastra, adk, 'a2a-ai-provider': aiProvider };
try {
  process.stdout.write(`${JSON.stringify(await clients[client]())}\n`);
  process.exit(0);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: String(e?.stack ?? e) })}\n`);
  process.exit(1);
}
