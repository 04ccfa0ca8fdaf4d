/**
 * What an agent fronting a remote with `auth: oauth` or `auth: token-exchange` asks of the server:
 * the user's credential for that remote, or where the user connects. Built by the server over the
 * vault, the remote's authorization server or an external token service (src/auth/remote-oauth);
 * agents see only this contract.
 */
import type { Principal } from '../authz/principal.js';
import type { ConnectReason } from './token-vault.js';

export type RemoteCredential =
  /** `authorization`: the header value; `remoteSubject`: who the user is there, when known, and `remoteIssuer` who says so (records) */
  | { kind: 'token'; authorization: string; remoteSubject?: string; remoteIssuer?: string }
  /** the user has to connect (again) at `connectUrl`, opened in their browser */
  | { kind: 'connect'; connectUrl: string; reason: ConnectReason }
  /** none can be had and no user action would help (a token service refused); `reason` is safe to show the caller */
  | { kind: 'unavailable'; reason: string };

/** Who a credential is for: the principal of the call that started the task. */
export type CredentialCaller = Pick<Principal, 'subject' | 'scopes' | 'usecase' | 'clientId'>;

export interface RemoteCredentials {
  /** The caller's credential for the agent `remote`, refreshed first when it nears expiry. */
  credentialFor(caller: CredentialCaller, remote: string): Promise<RemoteCredential>;
  /** The remote refused the caller's token (401): it is forgotten; returns what to try next (a connect, a new token, or nothing). */
  refused(caller: CredentialCaller, remote: string): Promise<RemoteCredential>;
}
