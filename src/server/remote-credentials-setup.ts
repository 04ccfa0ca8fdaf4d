/**
 * The credentials agents use to call a remote as their caller, by agent: per-user OAuth through
 * the vault (`auth: oauth`, ADR 0035) or an exchange at the remote's token service
 * (`auth: token-exchange`, ADR 0039). The subject token of an exchange is the caller's Agentport
 * access token, signed with the server's keys for the token service alone.
 */
import { issueAccessToken } from '../auth/access-tokens.js';
import { TokenExchangeCredentials, type ExchangeRemote } from '../auth/remote-oauth/token-exchange-credentials.js';
import type { Config } from '../config/index.js';
import type { KeyStore } from '../core/keys/key-store.js';
import type { CredentialCaller, RemoteCredential, RemoteCredentials } from '../core/vault/index.js';
import { guardedFetch, SsrfGuard } from '../net/index.js';
import type { RemoteConnectionsSetup } from './remote-connections-setup.js';

export function remoteCredentialsOf(config: Config, keys: KeyStore, publicUrl: () => string, connections: RemoteConnectionsSetup | undefined): RemoteCredentials | undefined {
  const exchanges: ExchangeRemote[] = [];
  for (const a of config.agents) {
    const remote = a.mcp ?? a.remote;
    if (remote?.auth?.kind !== 'token-exchange') continue;
    exchanges.push({ id: a.id, auth: remote.auth, fetch: guardedFetch(new SsrfGuard({ allow: [...remote.allowlist], allowHttp: true, label: `agents[${a.id}] token service URL` })) });
  }
  const exchange = exchanges.length
    ? new TokenExchangeCredentials({
        remotes: exchanges,
        signSubjectToken: (caller, audience, ttlSeconds) =>
          issueAccessToken(keys, {
            issuer: publicUrl(),
            audience,
            subject: caller.subject,
            scopes: caller.scopes,
            ttlSeconds,
            ...(caller.clientId === undefined ? {} : { clientId: caller.clientId }),
            ...(caller.usecase === undefined ? {} : { usecase: caller.usecase }),
          }),
      })
    : undefined;
  if (!exchange) return connections?.connections;
  const oauth = connections?.connections;
  const none = (remote: string): Promise<RemoteCredential> => Promise.resolve({ kind: 'unavailable', reason: `no credentials are configured for ${remote}` });
  const sourceOf = (remote: string): RemoteCredentials | undefined => (exchange.has(remote) ? exchange : oauth?.has(remote) ? oauth : undefined);
  return {
    credentialFor: (caller: CredentialCaller, remote: string) => sourceOf(remote)?.credentialFor(caller, remote) ?? none(remote),
    refused: (caller: CredentialCaller, remote: string) => sourceOf(remote)?.refused(caller, remote) ?? none(remote),
  };
}
