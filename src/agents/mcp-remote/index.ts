/**
 * A remote MCP server as an A2A agent (`agents[].mcp` in the config). Its tools are the agent's
 * skills; a message names the tool and its arguments (tool-call-request.ts); the tool's result is
 * the task's artifact (tool-result-parts.ts), an `isError` result fails the task with its text.
 * Canceling the task cancels the remote call. The card's skills follow the remote's tool list
 * (`onCardChange`: the server registers the agent again, so cards and MCP tools follow too).
 */
import type { AgentConfig, McpRemoteConfig } from '../../config/config.js';
import { defineAgent, type AgentCardSpec, type AgentContext, type AgentDefinition } from '../sdk/agent.js';
import type { Tool } from '@modelcontextprotocol/client';
import { describe, RemoteMcpError, RemoteMcpServer, toRemoteError, type RemoteLog } from './remote-mcp-server.js';
import { PerUserRemotes } from './per-user-remotes.js';
import { explicitToolOf, toolCallOf } from './tool-call-request.js';
import { errorTextOf, partsOfToolResult } from './tool-result-parts.js';
import { skillOfTool } from './tool-skills.js';
import { signedIdentityAuthorization } from './remote-identity.js';
import { inTaskAuthorizationScope, reportSignedIdentity } from '../sdk/remote-connection.js';
import type { CallerIdentitySigner } from '../../core/keys/caller-identity.js';
import type { CredentialCaller, RemoteCredentials } from '../../core/vault/index.js';

export type { RemoteCredentials };

export interface McpRemoteAgentOptions {
  log: RemoteLog;
  /** Agentport's version, sent as the MCP clientInfo */
  version: string;
  /** signs the caller's identity when `mcp.auth` is `signed-identity` (ADR 0034) */
  callerIdentity?: CallerIdentitySigner;
  /** the users' own tokens when `mcp.auth` is `oauth` (ADR 0035) */
  remoteCredentials?: RemoteCredentials;
}

export async function mcpRemoteAgent(agent: AgentConfig & { mcp: McpRemoteConfig }, opts: McpRemoteAgentOptions): Promise<AgentDefinition> {
  const auth = agent.mcp.auth?.kind === 'signed-identity' ? agent.mcp.auth : undefined;
  // Per caller: each user's own token (oauth, ADR 0035) or the caller's exchanged one (token-exchange, ADR 0039).
  const oauth = agent.mcp.auth?.kind === 'oauth' || agent.mcp.auth?.kind === 'token-exchange' ? agent.mcp.auth : undefined;
  if (auth && !opts.callerIdentity) throw new Error(`agent ${agent.id}: mcp.auth needs the server's signing keys`);
  if (oauth && !opts.remoteCredentials) throw new Error(`agent ${agent.id}: mcp.auth ${oauth.kind} needs the server's remote credentials`);
  const remote = new RemoteMcpServer(agent.mcp, opts.log, opts.version, auth ? signedIdentityAuthorization(auth, agent.mcp.url, opts.callerIdentity!) : undefined);
  const perUser = oauth ? new PerUserRemotes(agent.id, { ...agent.mcp, auth: oauth }, opts.remoteCredentials!, opts.log, opts.version) : undefined;
  try {
    await remote.start();
  } catch (err) {
    // The server still starts: the agent answers with a clear failure until the remote is back.
    // With per-user OAuth a remote that lists its tools only to users is expected to refuse here.
    if (oauth) opts.log.debug({ agent: agent.id, err: describe(err) }, 'mcp remote: tools not listed without a user; the first connected user lists them');
    else opts.log.warn({ agent: agent.id, err: describe(err) }, 'mcp remote: not reachable at start; its card has no skills until a restart, calls retry the connection');
  }
  /** the tools as a connected user's session listed them, while the remote lists none without a user */
  let userTools: ReadonlyMap<string, Tool> = new Map();
  const tools = () => (remote.tools.size ? remote.tools : userTools);
  const cardListeners: Array<() => void> = [];
  const host = new URL(agent.mcp.url).host;
  const cardNow = (): AgentCardSpec => {
    const info = remote.serverInfo;
    return {
      name: info?.title ?? info?.name ?? agent.id,
      description: (info as { description?: string } | undefined)?.description ?? remote.instructions?.slice(0, 500) ?? `The tools of the MCP server at ${host}, as an A2A agent.`,
      version: info?.version ?? '1.0.0',
      capabilities: { streaming: true, pushNotifications: true, ...(oauth ? { extensions: [inTaskAuthorizationScope(host)] } : {}) },
      defaultInputModes: ['application/json', 'text/plain'],
      defaultOutputModes: ['text/plain', 'application/json', 'image/*', 'audio/*'],
      skills: [...tools().values()].map(skillOfTool),
    };
  };
  let card = cardNow();

  /** `auth: oauth`: the call goes out on the caller's own session with their own token. */
  async function executeAsUser(ctx: AgentContext, users: PerUserRemotes): Promise<void> {
    const caller = ctx.caller?.principal;
    if (!caller) return ctx.fail('the caller of this task is not known here, so the MCP server cannot be called on its behalf');
    // Tools already known: a malformed request is refused before anyone is asked to connect.
    if (tools().size) {
      const early = toolCallOf(ctx.message, tools(), ctx.requestMetadata);
      if (!early.ok) return ctx.reject(early.reason);
    }
    await callAsUser(ctx, users, caller);
  }

  async function callAsUser(ctx: AgentContext, users: PerUserRemotes, caller: CredentialCaller): Promise<void> {
    let token = await users.tokenFor(ctx, caller);
    for (let attempt = 0; token; attempt++) {
      const session = users.sessionOf(caller.subject, token);
      try {
        if (session.tools.size === 0) {
          await session.refreshTools();
          if (!remote.tools.size && session.tools.size && userTools !== session.tools) {
            userTools = session.tools;
            card = cardNow();
            for (const l of cardListeners) l();
          }
        }
        const call = toolCallOf(ctx.message, session.tools, ctx.requestMetadata);
        if (!call.ok) return ctx.reject(call.reason);
        ctx.working(`Calling ${call.tool.name}`);
        const result = await session.callTool(call.tool.name, call.arguments, {
          signal: ctx.signal,
          trace: ctx.trace,
          onProgress: (message) => ctx.working(message ? `${call.tool.name}: ${message}` : `${call.tool.name} is working`),
        });
        if (result.isError) return ctx.fail(errorTextOf(result));
        const parts = partsOfToolResult(result);
        if (parts.length) ctx.artifact(parts, { name: call.tool.name });
        return ctx.complete();
      } catch (err) {
        if (ctx.signal.aborted) return;
        // The remote no longer takes the user's token (revoked grant): connect again, then retry once.
        if (err instanceof RemoteMcpError && err.status === 401 && attempt === 0) {
          token = await users.refused(ctx, caller);
          continue;
        }
        return ctx.fail((err instanceof RemoteMcpError ? err : toRemoteError(err, agent.mcp)).message);
      }
    }
  }

  return defineAgent({
    get card() {
      return card;
    },
    onCardChange(listener) {
      cardListeners.push(listener);
      remote.onToolsChanged(() => {
        card = cardNow();
        listener();
      });
    },
    async execute(ctx) {
      if (perUser) return executeAsUser(ctx, perUser);
      if (remote.tools.size === 0) {
        try {
          await remote.refreshTools();
        } catch (err) {
          return ctx.fail(toRemoteError(err, agent.mcp).message);
        }
      }
      const call = toolCallOf(ctx.message, remote.tools, ctx.requestMetadata);
      if (!call.ok) return ctx.reject(call.reason);
      const caller = ctx.caller?.principal;
      // Never as nobody: a run without its caller (resumed elsewhere) cannot say whom it acts for.
      if (auth && !caller) return ctx.fail('the caller of this task is not known here, so the MCP server cannot be called on its behalf');
      if (auth) reportSignedIdentity(ctx, caller!.subject, opts.callerIdentity?.issuer?.());
      ctx.working(`Calling ${call.tool.name}`);
      try {
        const result = await remote.callTool(call.tool.name, call.arguments, {
          signal: ctx.signal,
          trace: ctx.trace,
          caller,
          onProgress: (message) => ctx.working(message ? `${call.tool.name}: ${message}` : `${call.tool.name} is working`),
        });
        if (result.isError) return ctx.fail(errorTextOf(result));
        const parts = partsOfToolResult(result);
        if (parts.length) ctx.artifact(parts, { name: call.tool.name });
        ctx.complete();
      } catch (err) {
        if (ctx.signal.aborted) return; // canceled: the core has already ended the task
        ctx.fail((err instanceof RemoteMcpError ? err : toRemoteError(err, agent.mcp)).message);
      }
    },
    // Per-skill scopes: only an explicit {tool, arguments} part pins the tool; otherwise the
    // engine requires every skill's scopes, since the text or the metadata may name any tool.
    skillOf: (message) => {
      const tool = explicitToolOf(message);
      return tool !== undefined && tools().has(tool) ? tool : undefined;
    },
    // The remote's own hints reach the agent's MCP tools (docs/mcp.md, annotations).
    toolAnnotations: (skillId) => {
      const a = tools().get(skillId)?.annotations;
      if (!a) return undefined;
      const hints = { readOnlyHint: a.readOnlyHint, destructiveHint: a.destructiveHint, idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint };
      return Object.fromEntries(Object.entries(hints).filter(([, v]) => typeof v === 'boolean'));
    },
    // An LLM agent offering this agent's tools gives the model each tool's own schema (src/agents/llm).
    skillInputSchema: (skillId) => tools().get(skillId)?.inputSchema as Record<string, unknown> | undefined,
    close: async () => {
      await perUser?.close();
      await remote.close();
    },
  });
}
