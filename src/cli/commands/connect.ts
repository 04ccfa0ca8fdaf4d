/**
 * `agentport connect chatgpt|claude|claude-code|inspector|a2a [--url]`: the exact steps and
 * commands to connect a client to a running server. The server's own description of itself
 * (`GET /` as JSON: its MCP URL, agents, whether OAuth is on) fills them in, so what is printed
 * matches that server, not a guess from flags.
 */
import { Argument, type Command } from 'commander';
import { CONNECT_CLIENTS, connectGuide, type ConnectClient } from '../../bindings/landing/connect-steps.js';
import { checkUrl, UsageError } from '../a2a/connection.js';
import { EXIT } from '../a2a/exit-codes.js';
import type { CliIO } from '../io.js';
import { failed } from './send.js';

const CONNECT_HELP = `
Examples:
  $ agentport connect claude-code                          the server on http://127.0.0.1:8080
  $ agentport connect chatgpt --url https://agents.example.com
  $ agentport connect a2a --agent table-expert
  $ AGENTPORT_URL=https://agents.example.com agentport connect inspector

Exit codes: 0 printed, 2 usage, 4 the server cannot be reached or is not an Agentport server.
The same steps are on the server's page at / in a browser.
`;

interface ServerFacts {
  agents: Array<{ id: string; url: string; cardUrl: string; primary?: boolean }>;
  mcp: { url: string };
  auth: { required: boolean; oauth: boolean };
}

class ServerDescriptionError extends Error {}

function isFacts(v: unknown): v is ServerFacts {
  const o = v as Partial<ServerFacts> | null;
  return typeof o === 'object' && o !== null && Array.isArray(o.agents) && typeof o.mcp?.url === 'string' && typeof o.auth?.required === 'boolean';
}

async function readServer(base: string, timeoutMs: number): Promise<ServerFacts> {
  let res: Response;
  try {
    res = await fetch(`${base}/`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ServerDescriptionError(`cannot reach ${base}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}; is the server running (agentport serve)?`);
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok || !isFacts(body)) throw new ServerDescriptionError(`${base}/ (HTTP ${res.status}) does not describe an Agentport server; give the server's address with --url`);
  return body;
}

export function registerConnect(program: Command, io: CliIO): void {
  program
    .command('connect')
    .description('print the steps to connect ChatGPT, Claude, Claude Code, the MCP Inspector or an A2A client to a server')
    .addArgument(new Argument('<client>', 'which client').choices(CONNECT_CLIENTS))
    .option('--url <url>', "the server's address (default $AGENTPORT_URL, else http://127.0.0.1:8080)")
    .option('--agent <id>', 'the agent the A2A steps use (default: the primary agent)')
    .option('--json', 'the steps as JSON')
    .addHelpText('after', CONNECT_HELP)
    .action(async (client: ConnectClient, f: { url?: string; agent?: string; json?: boolean }) => {
      const code = await connect(io, client, f);
      if (code !== 0) io.exit(code);
    });
}

async function connect(io: CliIO, client: ConnectClient, f: { url?: string; agent?: string; json?: boolean }): Promise<number> {
  try {
    const given = f.url ?? io.env.AGENTPORT_URL ?? 'http://127.0.0.1:8080';
    checkUrl(given);
    const base = new URL(given).origin;
    const facts = await readServer(base, 10_000);
    const agent = f.agent === undefined ? (facts.agents.find((a) => a.primary) ?? facts.agents[0]) : facts.agents.find((a) => a.id === f.agent);
    if (f.agent !== undefined && !agent) {
      throw new UsageError(`no agent '${f.agent}' on ${base}; agents: ${facts.agents.map((a) => a.id).join(', ') || 'none public'}`);
    }
    const guide = connectGuide(client, {
      baseUrl: new URL(facts.mcp.url).origin,
      mcpUrl: facts.mcp.url,
      oauth: facts.auth.oauth,
      authRequired: facts.auth.required,
      ...(agent ? { agent } : {}),
    });
    if (f.json) {
      io.stdout(`${JSON.stringify(guide)}\n`);
      return EXIT.ok;
    }
    const lines = [`${guide.title} → ${facts.mcp.url}`, ''];
    guide.steps.forEach((s, i) => {
      lines.push(`${i + 1}. ${s.text}`);
      if (s.code) lines.push(...s.code.split('\n').map((l) => `     ${l}`));
    });
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ServerDescriptionError) {
      io.stderr(`agentport: ${err.message}\n`);
      return EXIT.unreachable;
    }
    return failed(io, err, 'connect');
  }
}
