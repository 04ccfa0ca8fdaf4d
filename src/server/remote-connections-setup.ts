/**
 * Composes per-user OAuth to remotes (ADR 0035) when some `agents[].mcp` has `auth: oauth`: the
 * vault over the store with the configured keys, the connect flow, and the audit events of
 * connect, disconnect and refresh failures (names only, never a token), and the refresh counters
 * of the metrics.
 */
import { RemoteConnections, type OAuthRemote } from '../auth/remote-oauth/remote-connections.js';
import type { Config } from '../config/index.js';
import type { AuditSink } from '../core/audit/audit-event.js';
import { TokenCipher, TokenVault, vaultKeysOf } from '../core/vault/index.js';
import type { Metrics } from '../observability/metrics/index.js';
import type { Store } from '../store/index.js';

export interface RemoteConnectionsSetup {
  connections: RemoteConnections;
  vault: TokenVault;
  /** ids of the agents with `auth: oauth` */
  remotes: ReadonlySet<string>;
  onConnected: (e: { subject: string; remote: string; remoteSubject?: string }) => void;
  onDisconnected: (e: { subject: string; remote: string }) => void;
  onRefused: (e: { actor: string; subject: string; remote: string }) => void;
}

export function remoteConnectionsOf(config: Config, store: Store, publicUrl: () => string, audit: AuditSink, metrics?: Metrics): RemoteConnectionsSetup | undefined {
  const remotes: OAuthRemote[] = [];
  for (const a of config.agents) {
    if (a.mcp?.auth?.kind === 'oauth') remotes.push({ id: a.id, url: a.mcp.url, auth: a.mcp.auth, allowlist: a.mcp.allowlist });
    // A remote A2A agent is probed at its agent URL (the card URL without the well-known part).
    if (a.remote?.auth?.kind === 'oauth') remotes.push({ id: a.id, url: a.remote.cardUrl.replace(/\/\.well-known\/agent(-card)?\.json$/, ''), auth: a.remote.auth, allowlist: a.remote.allowlist });
  }
  // Checked at parse time too (auth.vault.keys is required with auth: oauth); this guards a config built another way.
  if (remotes.length === 0 || !config.auth.vault) return undefined;
  const cipher = new TokenCipher(vaultKeysOf(config.auth.vault));
  const vault = new TokenVault(store.oauth.remoteTokens, cipher, {
    events: {
      refreshed: (_subject, remote) => metrics?.remoteTokenRefreshed(remote),
      refreshFailed: (subject, remote, refused) => {
        metrics?.remoteTokenRefreshFailed(remote, refused ? 'refused' : 'error');
        audit.record({ action: 'connection.refresh_failed', outcome: 'failure', actor: 'system', target: `agent:${remote}`, details: { subject, refused } });
      },
    },
  });
  const connections = new RemoteConnections({ remotes, vault, cipher, publicUrl });
  return {
    connections,
    vault,
    remotes: new Set(remotes.map((r) => r.id)),
    onConnected: (e) => audit.record({ action: 'connection.connected', outcome: 'success', actor: e.subject, target: `agent:${e.remote}`, ...(e.remoteSubject ? { details: { remoteSubject: e.remoteSubject } } : {}) }),
    onRefused: (e) => audit.record({ action: 'connection.refused', outcome: 'denied', actor: e.actor, target: `agent:${e.remote}`, details: { linkFor: e.subject } }),
    onDisconnected: (e) => audit.record({ action: 'connection.disconnected', outcome: 'success', actor: e.subject, target: `agent:${e.remote}` }),
  };
}
