/**
 * `agents[].mcp.auth: oauth` (ADR 0035) and `token-exchange` (ADR 0039): each user reaches the
 * remote with their own token, on their own MCP session (a remote binds a session to the user who
 * opened it). A user without a usable token is asked to connect (src/agents/sdk/remote-connection.ts);
 * an exchange the token service refuses ends the call with its reason.
 */
import type { McpRemoteConfig, RemoteOAuthConfig, TokenExchangeAuthConfig } from '../../config/config.js';
import type { CredentialCaller, RemoteCredential, RemoteCredentials } from '../../core/vault/index.js';
import type { AgentContext } from '../sdk/agent.js';
import { awaitUserCredential } from '../sdk/remote-connection.js';
import { RemoteMcpServer, type RemoteLog } from './remote-mcp-server.js';

/** Sessions kept open at once; the least recently used is closed first. */
const MAX_SESSIONS = 200;

type Token = Extract<RemoteCredential, { kind: 'token' }>;

export class PerUserRemotes {
  private readonly sessions = new Map<string, { remote: RemoteMcpServer; authorization: { value: string } }>();

  constructor(
    private readonly agentId: string,
    private readonly cfg: McpRemoteConfig & { auth: RemoteOAuthConfig | TokenExchangeAuthConfig },
    private readonly credentials: RemoteCredentials,
    private readonly log: RemoteLog,
    private readonly version: string,
  ) {}

  /** The user's session, its requests carrying `token`. */
  sessionOf(subject: string, token: Token): RemoteMcpServer {
    let s = this.sessions.get(subject);
    if (s) this.sessions.delete(subject);
    else {
      const authorization = { value: token.authorization };
      s = { remote: new RemoteMcpServer(this.cfg, this.log, this.version, async () => authorization.value), authorization };
    }
    s.authorization.value = token.authorization;
    this.sessions.set(subject, s);
    if (this.sessions.size > MAX_SESSIONS) {
      const [oldest, entry] = this.sessions.entries().next().value!;
      this.sessions.delete(oldest);
      void entry.remote.close();
    }
    return s.remote;
  }

  /** The user's token, after waiting in AUTH_REQUIRED for them to connect when they have none. */
  async tokenFor(ctx: AgentContext, caller: CredentialCaller, first?: RemoteCredential): Promise<Token | undefined> {
    const next = () => this.credentials.credentialFor(caller, this.agentId);
    first ??= await next();
    const waitMs = this.cfg.auth.kind === 'oauth' ? this.cfg.auth.connectWaitMs : 0;
    return awaitUserCredential(ctx, { first, next, remote: this.agentId, host: new URL(this.cfg.url).host, waitMs });
  }

  /** The remote refused the user's token: it is forgotten, and the user asked to connect again. */
  async refused(ctx: AgentContext, caller: CredentialCaller): Promise<Token | undefined> {
    this.sessions.get(caller.subject)?.remote.close();
    this.sessions.delete(caller.subject);
    return this.tokenFor(ctx, caller, await this.credentials.refused(caller, this.agentId));
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await s.remote.close();
    this.sessions.clear();
  }
}
