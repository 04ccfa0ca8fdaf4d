/**
 * AgentContext.agents: a run calling other hosted agents through the core as its task's caller.
 * Each call enters the outer handler (authorization, quotas, tracing) with the caller's own
 * principal and surface, so an agent used as a tool can do exactly what the caller could do by
 * calling it directly, is counted against the caller's quotas, and its task is owned by, visible
 * to and billed to the caller. The sub-task's message names the parent task in its metadata.
 */
import { type A2AHandler, CallContext } from '../a2a-handler.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { PARENT_TASK_METADATA_KEY, type HostedAgents, type HostedAgentView } from '../agents/agent-definition.js';
import type { Principal } from '../authz/principal.js';
import type { UsageDraft } from '../usage/usage-draft.js';
import type { Context } from '../../observability/tracing/index.js';
import type { SendMessageRequest, StreamResponse } from '../../protocol/a2a/types.js';
import { toA2AError } from '../../protocol/a2a/errors.js';

/** Who a run acts for: the principal and surface of the call that started or continued it. */
export interface RunCaller {
  principal: Principal;
  surface?: 'a2a' | 'mcp';
  /** the usecases the caller may see (src/core/authz), undefined: all */
  usecases?: readonly string[];
}

/** The caller of a call, as a run keeps it. */
export function runCallerOf(ctx: CallContext): RunCaller {
  // Optional fields assigned, not spread: each conditional spread was an object made to be copied.
  const caller: RunCaller = { principal: ctx.principal };
  if (ctx.surface) caller.surface = ctx.surface;
  if (ctx.usecases) caller.usecases = ctx.usecases;
  return caller;
}

/** The caller as the task row keeps it: who it is and what it may do, no credential. */
export function storedCaller(c: RunCaller): string {
  const p = c.principal;
  return JSON.stringify({
    subject: p.subject,
    authenticated: p.authenticated,
    scopes: p.scopes,
    ...(p.clientId !== undefined ? { clientId: p.clientId } : {}),
    ...(p.usecase !== undefined ? { usecase: p.usecase } : {}),
    ...(p.tenant !== undefined ? { tenant: p.tenant } : {}),
    ...(p.keyId !== undefined ? { keyId: p.keyId } : {}),
    ...(c.surface ? { surface: c.surface } : {}),
    ...(c.usecases ? { usecases: c.usecases } : {}),
  });
}

/** The stored caller back, when it is one and belongs to the task's owner; undefined otherwise. */
export function callerOfStored(json: string | undefined, owner: string): RunCaller | undefined {
  if (!json) return undefined;
  try {
    const v = JSON.parse(json) as { subject?: unknown; authenticated?: unknown; scopes?: unknown; clientId?: unknown; usecase?: unknown; tenant?: unknown; keyId?: unknown; surface?: unknown; usecases?: unknown };
    if (v.subject !== owner || !Array.isArray(v.scopes) || !v.scopes.every((s) => typeof s === 'string')) return undefined;
    const principal: Principal = {
      subject: owner,
      authenticated: v.authenticated === true,
      scopes: v.scopes as string[],
      ...(typeof v.clientId === 'string' ? { clientId: v.clientId } : {}),
      ...(typeof v.usecase === 'string' ? { usecase: v.usecase } : {}),
      ...(typeof v.tenant === 'string' ? { tenant: v.tenant } : {}),
      ...(typeof v.keyId === 'string' ? { keyId: v.keyId } : {}),
    };
    const usecases = Array.isArray(v.usecases) && v.usecases.every((u) => typeof u === 'string') ? (v.usecases as string[]) : undefined;
    return { principal, ...(v.surface === 'mcp' || v.surface === 'a2a' ? { surface: v.surface } : {}), ...(usecases ? { usecases } : {}) };
  } catch {
    return undefined;
  }
}

export interface HostedAgentCallsDeps {
  registry: AgentRegistry;
  /** the outer handler every binding calls (set once the server has built it) */
  handler(): A2AHandler | undefined;
  /** usage drafts for sub-calls, as a listener opens one per request; absent: none */
  usage?: { open(face: string): UsageDraft | undefined; finish(d: UsageDraft, end: { status: number; latencyMs: number }): void };
}

/** The face usage records name for calls an agent makes to another hosted agent. */
export const SUB_AGENT_FACE = 'agent';

export class HostedAgentCalls implements HostedAgents {
  constructor(
    private readonly d: HostedAgentCallsDeps,
    private readonly caller: RunCaller,
    private readonly parent: { agentId: string; taskId: string; trace: () => Context | undefined },
  ) {}

  get(agentId: string): HostedAgentView | undefined {
    const handler = this.d.handler();
    const agent = this.d.registry.get(agentId);
    if (!handler || !agent || !handler.hasAgent(agentId, { principal: this.caller.principal, ...(this.caller.surface ? { surface: this.caller.surface } : {}) })) return undefined;
    const def = agent.definition;
    return { id: agentId, card: agent.publicCard, inputSchema: (skillId) => def.skillInputSchema?.(skillId) };
  }

  async *sendStreamingMessage(agentId: string, request: SendMessageRequest, opts: { signal?: AbortSignal; trace?: Context | undefined } = {}): AsyncIterable<StreamResponse> {
    const handler = this.required();
    const draft = this.d.usage?.open(SUB_AGENT_FACE);
    const started = performance.now();
    let status = 200;
    const req: SendMessageRequest = {
      ...request,
      message: { ...request.message, metadata: { ...request.message.metadata, [PARENT_TASK_METADATA_KEY]: this.parent.taskId } },
    };
    try {
      // An agent without streaming is called blocking: its final task (or message) is the one item.
      if (this.d.registry.get(agentId)?.streaming === false)
        yield await handler.sendMessage(this.context(agentId, draft, opts.signal, opts.trace), { ...req, configuration: { ...req.configuration, returnImmediately: false } });
      else for await (const item of handler.sendStreamingMessage(this.context(agentId, draft, opts.signal, opts.trace), req)) yield item.response;
    } catch (e) {
      status = toA2AError(e).identity.http;
      throw e;
    } finally {
      if (draft) this.d.usage?.finish(draft, { status, latencyMs: performance.now() - started });
    }
  }

  async cancelTask(agentId: string, taskId: string): Promise<void> {
    await this.required().cancelTask(this.context(agentId, undefined), { id: taskId });
  }

  private required(): A2AHandler {
    const handler = this.d.handler();
    if (!handler) throw new Error('hosted agents are not reachable before the server has started');
    return handler;
  }

  private context(agentId: string, usage: UsageDraft | undefined, signal?: AbortSignal, span?: Context): CallContext {
    return CallContext.of(agentId, this.caller.principal, { surface: this.caller.surface, signal, usage, trace: span ?? this.parent.trace() });
  }
}
