/**
 * What an agent fronting a remote with `auth: oauth` asks of the server: the user's credential
 * for that remote, or where the user connects. Built by the server over the vault and the
 * remote's authorization server (src/auth/remote-oauth); agents see only this contract.
 */
import type { ConnectReason } from './token-vault.js';

export type RemoteCredential =
  /** `authorization`: the header value; `remoteSubject`: who the user is there, when known, and `remoteIssuer` who says so (records) */
  | { kind: 'token'; authorization: string; remoteSubject?: string; remoteIssuer?: string }
  /** the user has to connect (again) at `connectUrl`, opened in their browser */
  | { kind: 'connect'; connectUrl: string; reason: ConnectReason };

export interface RemoteCredentials {
  /** The user's credential for the agent `remote`, refreshed first when it nears expiry. */
  credentialFor(subject: string, remote: string): Promise<RemoteCredential>;
  /** The remote refused the user's token (401): it is forgotten; returns where to connect again. */
  refused(subject: string, remote: string): Promise<string>;
}
