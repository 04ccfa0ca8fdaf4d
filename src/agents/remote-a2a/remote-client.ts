/**
 * The client Agentport uses to reach a remote A2A agent: every HTTP request goes through the SSRF
 * guard with the checked addresses pinned (the MCP remote's guarded fetch), and gRPC interfaces are
 * kept only when their host passes the same guard. The card is fetched the same way.
 */
import { A2AClient, CardResolver, headerAuth, type AgentCard } from '../../client/index.js';
import { guardedFetch, SsrfGuard } from '../../net/index.js';

export interface RemoteA2AClientConfig {
  cardUrl: string;
  headers: Record<string, string>;
  allowlist: string[];
  connectTimeoutMs: number;
  protocolVersions?: string[];
}

/** gRPC urls are `host:port`; the guard reads URLs. */
async function grpcAllowed(guard: SsrfGuard, url: string): Promise<boolean> {
  const hostPort = url.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  try {
    await guard.check(`https://${hostPort}/`);
    return true;
  } catch {
    return false;
  }
}

export async function connectRemote(cfg: RemoteA2AClientConfig): Promise<{ client: A2AClient; card: AgentCard }> {
  const guard = new SsrfGuard({ allow: cfg.allowlist, allowHttp: true, label: 'remote agent URL' });
  const fetch = guardedFetch(guard) as typeof globalThis.fetch;
  const resolved = await new CardResolver({ fetch, headers: cfg.headers, timeoutMs: cfg.connectTimeoutMs }).resolve(cfg.cardUrl);
  const interfaces = [];
  for (const i of resolved.card.supportedInterfaces) {
    if (i.protocolBinding.toUpperCase() !== 'GRPC' || (await grpcAllowed(guard, i.url))) interfaces.push(i);
  }
  const card = { ...resolved.card, supportedInterfaces: interfaces };
  // An explicit Authorization/X-API-Key in `headers` is the credential: the remote is reached as Agentport, not as the caller.
  const client = A2AClient.fromCard(card, { fetch, auth: headerAuth(cfg.headers), timeoutMs: cfg.connectTimeoutMs, ...(cfg.protocolVersions ? { protocolVersions: cfg.protocolVersions } : {}) });
  return { client, card };
}
