/**
 * How to connect each client to this server: the steps for ChatGPT, Claude, Claude Code, the MCP
 * Inspector and an A2A client, as data. The page at `/` renders them as HTML and
 * `agentport connect` as text, from the same list, so the two never disagree.
 */

/** The MCP Inspector the printed commands name: the version the suite runs (scripts/mcp-tools.sh). */
export const INSPECTOR_VERSION = '2.12.0';

export type ConnectClient = 'chatgpt' | 'claude' | 'claude-code' | 'inspector' | 'a2a';
export const CONNECT_CLIENTS: readonly ConnectClient[] = ['chatgpt', 'claude', 'claude-code', 'inspector', 'a2a'];

export interface ConnectTarget {
  /** the server's public URL (no trailing slash) */
  baseUrl: string;
  /** the MCP endpoint, `${baseUrl}/mcp` */
  mcpUrl: string;
  /** OAuth sign-in offered (auth.oauth.enabled with auth on) */
  oauth: boolean;
  /** authentication required at all (auth.mode) */
  authRequired: boolean;
  /** the agent an A2A example talks to */
  agent?: { id: string; url: string; cardUrl: string };
}

/** One step: words, and optionally a command or value to paste. */
export interface ConnectStep {
  text: string;
  code?: string;
}

export interface ConnectGuide {
  client: ConnectClient;
  title: string;
  steps: ConnectStep[];
}

/** A short, stable server name for clients that ask for one (`claude mcp add <name> …`). */
function serverName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' ? 'agentport' : host.split('.')[0]!.replace(/[^\w-]/g, '') || 'agentport';
}

export function connectGuide(client: ConnectClient, t: ConnectTarget): ConnectGuide {
  const signIn = t.oauth
    ? 'Sign in on the Agentport page that opens (user admin and the password the first start printed, or any user from agentport users create), then allow access.'
    : t.authRequired
      ? 'This server has OAuth sign-in turned off: the client needs an API key (agentport keys create) sent as X-API-Key.'
      : 'Authentication is off on this server: no sign-in needed.';
  const remote = /^https:/.test(t.baseUrl) ? '' : ' (the client runs in the cloud: it needs a public https URL; set server.publicUrl behind a tunnel or proxy)';
  switch (client) {
    case 'chatgpt':
      return {
        client,
        title: 'ChatGPT',
        steps: [
          { text: 'In ChatGPT: Settings → Apps & Connectors → Advanced settings → turn on Developer mode.' },
          { text: `Create a connector${remote}; MCP server URL:`, code: t.mcpUrl },
          { text: `Authentication: ${t.oauth ? 'OAuth (ChatGPT registers itself; nothing to fill in).' : 'No authentication / API key, as this server is configured.'}` },
          { text: signIn },
        ],
      };
    case 'claude':
      return {
        client,
        title: 'Claude (claude.ai and Claude Desktop)',
        steps: [
          { text: `Settings → Connectors → Add custom connector${remote}. Name: Agentport; URL:`, code: t.mcpUrl },
          { text: 'Leave the OAuth client id and secret empty: Claude registers itself.' },
          { text: signIn },
        ],
      };
    case 'claude-code':
      return {
        client,
        title: 'Claude Code',
        steps: [
          { text: 'Add the server:', code: `claude mcp add --transport http ${serverName(t.baseUrl)} ${t.mcpUrl}` },
          t.oauth
            ? { text: 'In Claude Code, run /mcp, choose the server and Authenticate; a browser opens the Agentport sign-in.' }
            : t.authRequired
              ? { text: 'With an API key instead of OAuth:', code: `claude mcp add --transport http ${serverName(t.baseUrl)} ${t.mcpUrl} --header "X-API-Key: $KEY"` }
              : { text: 'Check it with /mcp in Claude Code.' },
        ],
      };
    case 'inspector':
      return {
        client,
        title: 'MCP Inspector',
        steps: [
          // Pinned: on Node 20 a bare `npx @modelcontextprotocol/inspector` silently resolves to an
          // old 0.x Inspector whose CLI refuses these arguments; 2.x needs Node 22.
          {
            text: `Open the Inspector ${INSPECTOR_VERSION} (needs Node 22 or later; check with node --version) with this server filled in, transport Streamable HTTP:`,
            code: `npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --transport http --server-url ${t.mcpUrl}`,
          },
          { text: t.oauth ? 'Click Connect; the Inspector runs the OAuth flow in the browser and lists the tools when you are signed in.' : 'Click Connect.' },
          {
            text: 'Or without a browser, list the tools:',
            code: `npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${t.mcpUrl} --transport http --method tools/list${t.authRequired ? ' --header "X-API-Key: $KEY"' : ''}`,
          },
        ],
      };
    case 'a2a': {
      const agent = t.agent ?? { id: 'echo', url: `${t.baseUrl}/a2a/echo`, cardUrl: `${t.baseUrl}/a2a/echo/.well-known/agent-card.json` };
      const key = t.authRequired ? ' --api-key "$KEY"' : '';
      return {
        client,
        title: 'A2A clients',
        steps: [
          { text: `The agent card of ${agent.id} (every A2A client starts here):`, code: agent.cardUrl },
          { text: 'Talk to it with the Agentport CLI:', code: `agentport send ${agent.url} "hello"${key}` },
          {
            text: 'Or from code, with the Agentport client library (any A2A v1.0 or v0.3 agent):',
            code: [
              "import { A2AClient, apiKeyAuth, textMessage } from 'agentport/client';",
              `const client = await A2AClient.connect('${agent.url}'${t.authRequired ? ', { auth: apiKeyAuth(process.env.KEY) }' : ''});`,
              "const reply = await client.sendMessage({ message: textMessage('hello') });",
            ].join('\n'),
          },
          ...(t.authRequired ? [{ text: 'Send a credential: an API key (agentport keys create --subject me --scope a2a:publish) as X-API-Key, or an OAuth bearer token.' }] : []),
        ],
      };
    }
  }
}
