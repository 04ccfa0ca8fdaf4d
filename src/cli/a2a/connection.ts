/**
 * The options every A2A client command shares (credentials, binding, version, headers) and the
 * client they build. Secrets may come from the environment so they stay out of shell history.
 */
import { Option, type Command } from 'commander';
import { A2AClient, apiKeyAuth, bearerAuth, ClientCredentialsAuth, type A2AClientOptions, type AuthProvider, type Binding } from '../../client/index.js';
import type { CliIO } from '../io.js';

export interface ConnectionFlags {
  apiKey?: string;
  token?: string;
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  binding?: 'jsonrpc' | 'rest' | 'grpc';
  a2aVersion?: '1.0' | '0.3';
  header: string[];
  timeout?: string;
  json?: boolean;
}

const BINDINGS: Record<NonNullable<ConnectionFlags['binding']>, Binding> = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };

export const CONNECTION_HELP = `
Credentials (also from the environment): --api-key ($AGENTPORT_API_KEY), --token ($AGENTPORT_TOKEN),
or OAuth client credentials --token-url/--client-id/--client-secret ($AGENTPORT_CLIENT_SECRET).
The agent's card chooses the interface (first one this client speaks); --binding and --a2a-version narrow
the choice, and when an interface cannot be reached the next one in the card is tried.`;

export function withConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--api-key <key>', 'send X-API-Key: <key>')
    .option('--token <token>', 'send Authorization: Bearer <token>')
    .option('--token-url <url>', 'OAuth token endpoint for client credentials')
    .option('--client-id <id>', 'OAuth client id (with --token-url)')
    .option('--client-secret <secret>', 'OAuth client secret (with --token-url)')
    .option('--scope <scopes>', 'OAuth scopes, space-separated (with --token-url)')
    .addOption(new Option('--binding <binding>', 'only this transport').choices(['jsonrpc', 'rest', 'grpc']))
    .addOption(new Option('--a2a-version <version>', 'only this protocol version').choices(['1.0', '0.3']))
    .option('-H, --header <name:value>', 'extra request header (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 30000)')
    .option('--json', 'machine-readable output: JSON (one object per line for streams)');
}

export class UsageError extends Error {}

function authFrom(f: ConnectionFlags, io: CliIO): AuthProvider | undefined {
  const apiKey = f.apiKey ?? io.env.AGENTPORT_API_KEY;
  const token = f.token ?? io.env.AGENTPORT_TOKEN;
  const secret = f.clientSecret ?? io.env.AGENTPORT_CLIENT_SECRET;
  if (f.tokenUrl || f.clientId) {
    if (!f.tokenUrl || !f.clientId || !secret) throw new UsageError('OAuth client credentials need --token-url, --client-id and --client-secret (or $AGENTPORT_CLIENT_SECRET)');
    return new ClientCredentialsAuth({ tokenUrl: f.tokenUrl, clientId: f.clientId, clientSecret: secret, ...(f.scope ? { scope: f.scope } : {}) });
  }
  if (token) return bearerAuth(token);
  if (apiKey) return apiKeyAuth(apiKey);
  return undefined;
}

export function clientOptions(f: ConnectionFlags, io: CliIO): A2AClientOptions {
  const headers: Record<string, string> = {};
  for (const h of f.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`--header ${JSON.stringify(h)} is not name:value`);
    headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  let timeoutMs: number | undefined;
  if (f.timeout !== undefined) {
    timeoutMs = Number(f.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout ${JSON.stringify(f.timeout)} is not a positive number of milliseconds`);
  }
  const auth = authFrom(f, io);
  return {
    ...(auth ? { auth } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(f.binding ? { bindings: [BINDINGS[f.binding]] } : {}),
    ...(f.a2aVersion ? { protocolVersions: [f.a2aVersion] } : {}),
  };
}

export function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${JSON.stringify(url)} is not a URL; give the agent's URL, e.g. http://127.0.0.1:8080/a2a/echo`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${url}: only http and https URLs are supported`);
}

export async function connect(url: string, f: ConnectionFlags, io: CliIO): Promise<A2AClient> {
  checkUrl(url);
  return A2AClient.connect(url, clientOptions(f, io));
}
