/**
 * A remote A2A agent served by Agentport (`agents[].remote` in the config): any A2A agent, v1.0 or
 * v0.3, on any binding its card offers, reached through agentport/client and proxied on all of
 * Agentport's faces through the core (so authz, task log, streams, push and MCP all apply).
 *
 * Each local task forwards its messages to one remote task (streamed when the remote streams, else
 * one blocking call) and relays the remote's events. Cancel reaches the remote. Nothing hangs: the
 * whole call has `callTimeoutMs`, and a remote that goes silent for `idleTimeoutMs` fails the task
 * with a reason naming the remote. Outbound URLs pass the SSRF guard (remote-client.ts).
 */
import { traceparentOf } from '../../observability/tracing/index.js';
import type { AgentExtension } from '../../protocol/a2a/types.js';
import type { AgentConfig, RemoteA2AConfig } from '../../config/config.js';
import { A2AClientError, AgentCardError, TransportError, type A2AClient, type AgentCard, type Message } from '../../client/index.js';
import { defineAgent, type AgentCardSpec, type AgentContext, type AgentDefinition } from '../sdk/agent.js';
import type { CallerIdentitySigner } from '../../core/keys/caller-identity.js';
import type { RemoteCredentials } from '../../core/vault/index.js';
import { awaitUserCredential, inTaskAuthorizationScope, reportSignedIdentity } from '../sdk/remote-connection.js';

export type { CallerIdentitySigner };
import { connectRemote } from './remote-client.js';
import { relayEvent, type RemoteRef } from './relay.js';

/** In-memory id mappings kept per agent; a restart forgets them (a follow-up then starts a new remote task). */
const MAX_REMEMBERED = 10_000;

export interface RemoteA2ALog {
  warn(obj: object, msg?: string): void;
}

function cardSpecOf(card: AgentCard, id: string, inTaskAuthorization: AgentExtension | undefined): AgentCardSpec {
  return {
    name: card.name || id,
    description: card.description || `The remote A2A agent ${id}.`,
    version: card.version || '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, ...(inTaskAuthorization ? { extensions: [inTaskAuthorization] } : {}) },
    defaultInputModes: card.defaultInputModes.length ? card.defaultInputModes : ['text/plain'],
    defaultOutputModes: card.defaultOutputModes.length ? card.defaultOutputModes : ['text/plain'],
    skills: card.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
    })),
  };
}

/**
 * What the caller sees when the remote cannot be used: what kind of failure, never the configured
 * URL or a transport message (both name hosts of the operator's network). The remote's own A2A
 * error is its answer and is passed on. The details go to the server log (`reasonOf`).
 */
function publicReasonOf(err: unknown): string {
  if (err instanceof A2AClientError) return `remote agent error${err.kind ? ` (${err.kind})` : ''}: ${err.message}`;
  if (err instanceof TransportError || err instanceof AgentCardError) return 'the remote agent is unreachable';
  if (err instanceof Error && err.name === 'SsrfRejectedError') return 'the remote agent is not an allowed destination';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'the remote agent did not answer in time';
  return 'the remote agent failed';
}

/** The operator's view of a failure, for the log: with the card URL and the underlying message. */
function reasonOf(err: unknown, cfg: RemoteA2AConfig): string {
  if (err instanceof A2AClientError) return `remote agent error${err.kind ? ` (${err.kind})` : ''}: ${err.message}`;
  if (err instanceof TransportError || err instanceof AgentCardError) return `remote agent at ${cfg.cardUrl} is unreachable: ${err.message}`;
  if (err instanceof Error && err.name === 'SsrfRejectedError') return `remote agent at ${cfg.cardUrl} is not an allowed destination: ${err.message}`;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `remote agent at ${cfg.cardUrl} did not answer in time`;
  return `remote agent at ${cfg.cardUrl} failed: ${err instanceof Error ? err.message : String(err)}`;
}

export async function remoteA2AAgent(agent: AgentConfig & { remote: RemoteA2AConfig }, log: RemoteA2ALog, callerIdentity?: CallerIdentitySigner, remoteCredentials?: RemoteCredentials): Promise<AgentDefinition> {
  const cfg = agent.remote;
  if (cfg.auth?.kind === 'signed-identity' && !callerIdentity) throw new Error(`agent ${agent.id}: remote.auth needs the server's signing keys`);
  // Per caller: each user's own token (oauth, ADR 0035) or the caller's exchanged one (token-exchange, ADR 0039).
  const oauth = cfg.auth?.kind === 'oauth' || cfg.auth?.kind === 'token-exchange' ? cfg.auth : undefined;
  if (oauth && !remoteCredentials) throw new Error(`agent ${agent.id}: remote.auth ${oauth.kind} needs the server's remote credentials`);
  let remote: { client: A2AClient; card: AgentCard } | undefined;
  let startError: unknown;
  try {
    remote = await connectRemote(cfg);
  } catch (err) {
    // The server still starts; the agent fails its tasks with the reason until a restart finds the remote.
    startError = err;
    log.warn({ agent: agent.id, cardUrl: cfg.cardUrl, err: reasonOf(err, cfg) }, 'remote a2a: card not available at start');
  }
  /** local task id → the remote task it forwards to (a follow-up message continues that task) */
  const remoteTasks = new Map<string, RemoteRef>();
  /** local conversation (owner + context) → remote context, so a conversation stays one on the remote */
  const remoteContexts = new Map<string, string>();

  /** Keeps the mapping while the task can continue; both maps are bounded (oldest first out). */
  function remember(ctx: AgentContext, ref: RemoteRef, end: string | undefined): void {
    if (ref.contextId) {
      remoteContexts.delete(ctx.conversationKey);
      remoteContexts.set(ctx.conversationKey, ref.contextId);
      if (remoteContexts.size > MAX_REMEMBERED) remoteContexts.delete(remoteContexts.keys().next().value!);
    }
    if (end && end !== 'TASK_STATE_INPUT_REQUIRED' && end !== 'TASK_STATE_AUTH_REQUIRED') remoteTasks.delete(ctx.taskId);
    else if (remoteTasks.size > MAX_REMEMBERED) remoteTasks.delete(remoteTasks.keys().next().value!);
  }

  async function run(ctx: AgentContext, retried = false): Promise<void> {
    if (!remote) {
      ctx.fail(publicReasonOf(startError));
      return;
    }
    // Per-user OAuth (ADR 0035): the user's own token, after connecting when they have none; waited
    // for before the call's timers start.
    let userAuthorization: string | undefined;
    if (oauth) {
      const caller = ctx.caller?.principal;
      if (!caller) return ctx.fail('the caller of this task is not known here, so the remote agent cannot be called on its behalf');
      const next = () => remoteCredentials!.credentialFor(caller, agent.id);
      const token = await awaitUserCredential(ctx, { first: await next(), next, remote: agent.id, host: new URL(cfg.cardUrl).host, waitMs: oauth.kind === 'oauth' ? oauth.connectWaitMs : 0 });
      if (!token) return;
      userAuthorization = token.authorization;
    }
    const { client, card } = remote;
    const ref: RemoteRef = remoteTasks.get(ctx.taskId) ?? {};
    remoteTasks.set(ctx.taskId, ref);
    const remoteContext = ref.contextId ?? remoteContexts.get(ctx.conversationKey);
    const message: Message = {
      messageId: ctx.message.messageId,
      role: 'ROLE_USER',
      parts: ctx.message.parts,
      ...(ref.taskId ? { taskId: ref.taskId } : {}),
      ...(remoteContext ? { contextId: remoteContext } : {}),
      ...(ctx.message.metadata ? { metadata: ctx.message.metadata } : {}),
    };
    const abort = new AbortController();
    const onCancel = () => abort.abort(new Error('canceled'));
    ctx.signal.addEventListener('abort', onCancel, { once: true });
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(Object.assign(new Error('idle'), { name: 'TimeoutError' })), cfg.idleTimeoutMs);
    };
    const total = setTimeout(() => abort.abort(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), cfg.callTimeoutMs);
    const artifactIds = new Map<string, string>();
    // The run's span goes out as a traceparent header: the guarded fetch's client span hangs under
    // it, and the remote continues the trace (the client library only lets a call add headers).
    const traceparent = traceparentOf(ctx.trace);
    const headers: Record<string, string> = traceparent ? { traceparent } : {};
    if (userAuthorization) headers.authorization = userAuthorization;
    try {
      if (cfg.auth?.kind === 'signed-identity') {
        // Signed per call, never the caller's own token (docs/auth.md "Acting as the caller").
        const caller = ctx.caller?.principal;
        if (!caller) {
          ctx.fail('the caller of this task is not known here, so the remote agent cannot be called on its behalf');
          return;
        }
        const audience = cfg.auth.audience ?? new URL(cfg.cardUrl).origin;
        reportSignedIdentity(ctx, caller.subject, callerIdentity?.issuer?.());
        headers.authorization = `Bearer ${await callerIdentity!.sign({ audience, caller, ttlSeconds: cfg.auth.ttlSeconds })}`;
      }
      const call = { signal: abort.signal, headers };
      touch();
      if (card.capabilities.streaming) {
        let first = true;
        for await (const ev of client.sendStreamingMessage({ message }, call)) {
          touch();
          const end = relayEvent(ctx, ev.response, ref, artifactIds, first && message.taskId !== undefined);
          first = false;
          remember(ctx, ref, end);
          if (end) return;
        }
        if (!abort.signal.aborted) {
          log.warn({ agent: agent.id, cardUrl: cfg.cardUrl, taskId: ctx.taskId }, 'remote a2a: the remote ended the stream before the task ended');
          ctx.fail('the remote agent ended the stream before the task ended');
        }
      } else {
        const r = await client.sendMessage({ message }, call);
        const end = relayEvent(ctx, 'task' in r ? { task: r.task } : { message: r.message }, ref, artifactIds);
        remember(ctx, ref, end);
        if (!end) ctx.fail(`the remote agent returned the task unfinished (${'task' in r ? r.task.status.state : ''})`);
      }
    } catch (err) {
      if (ctx.signal.aborted) {
        // Canceled here: cancel there too (best effort; the local task is already CANCELED).
        if (ref.taskId) await client.cancelTask({ id: ref.taskId }, { headers }).catch(() => {});
        return;
      }
      // The remote no longer takes the user's token (revoked): forget it and ask again, once.
      if (oauth && !retried && err instanceof A2AClientError && err.isUnauthenticated && !ref.taskId) {
        await remoteCredentials!.refused(ctx.caller!.principal, agent.id);
        return run(ctx, true);
      }
      const cause = abort.signal.aborted ? abort.signal.reason : err;
      log.warn({ agent: agent.id, taskId: ctx.taskId, err: reasonOf(cause, cfg) }, 'remote a2a: task failed');
      if (abort.signal.aborted && ref.taskId) await client.cancelTask({ id: ref.taskId }, { headers }).catch(() => {});
      ctx.fail(publicReasonOf(cause));
    } finally {
      clearTimeout(idle);
      clearTimeout(total);
      ctx.signal.removeEventListener('abort', onCancel);
    }
  }

  return defineAgent({
    card: remote
      ? cardSpecOf(remote.card, agent.id, oauth ? inTaskAuthorizationScope(new URL(cfg.cardUrl).host) : undefined)
      : { name: agent.id, description: `The remote A2A agent at ${cfg.cardUrl} (unreachable at start).`, skills: [] },
    execute: (ctx) => run(ctx),
    close: async () => remote?.client.close(),
  });
}
