/**
 * The A2A operations behind the authorization policy: every binding (JSON-RPC, HTTP+JSON, gRPC,
 * v0.3, MCP) calls this handler, so each operation is authorized once, in the core, before the
 * task service looks anything up. Owner scoping (a caller sees only its own tasks) stays in the
 * task directory, where it is applied before any task is read.
 */
import type { UsageDraft } from '../usage/usage-draft.js';
import { SKILL_METADATA_KEY } from '../../protocol/a2a/skill-metadata.js';
import type { A2AHandler, AgentCaller, CallContext } from '../a2a-handler.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { ForwardingA2AHandler, type A2ACall } from '../forwarding-a2a-handler.js';
import type { SendMessageRequest } from '../../protocol/a2a/types.js';
import { AccessDenied } from './access-denied.js';
import type { Action, AuthorizationPolicy } from './policy.js';
import { unknownTenant } from './unknown-agent.js';
import { agentSeen } from './agent-lookup.js';
import type { QuotaGate } from '../quotas/quota-engine.js';
import { QuotaA2AHandler } from '../quotas/quota-handler.js';

export interface AuthorizingHandlerOptions {
  /** quotas, checked after authorization, once per operation (core/quotas); absent: none */
  quotas?: QuotaGate;
  /** the RFC 9728 metadata URL named in challenges for an agent's endpoints */
  resourceMetadataUrl?: (agentId: string, surface: 'a2a' | 'mcp') => string;
}

/** What each operation asks the policy for. */
const ACTION: Record<A2ACall['op'], Action> = {
  sendMessage: 'send-message',
  sendStreamingMessage: 'send-message',
  getTask: 'read-tasks',
  listTasks: 'read-tasks',
  cancelTask: 'cancel-task',
  subscribeToTask: 'read-tasks',
  createTaskPushNotificationConfig: 'manage-push-configs',
  getTaskPushNotificationConfig: 'manage-push-configs',
  listTaskPushNotificationConfigs: 'manage-push-configs',
  deleteTaskPushNotificationConfig: 'manage-push-configs',
  getExtendedAgentCard: 'read-extended-card',
};

/** The A2A method name of each operation, as usage records name it whatever the wire version. */
const OPERATION: Record<A2ACall['op'], string> = {
  sendMessage: 'SendMessage',
  sendStreamingMessage: 'SendStreamingMessage',
  getTask: 'GetTask',
  listTasks: 'ListTasks',
  cancelTask: 'CancelTask',
  subscribeToTask: 'SubscribeToTask',
  createTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  getTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  listTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigs',
  deleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  getExtendedAgentCard: 'GetExtendedAgentCard',
};

/** What the core knows of a call for its usage record: operation, agent, skill, caller, task. */
function noteCall(u: UsageDraft, ctx: CallContext, call: A2ACall, skills: readonly string[] | undefined): void {
  // A face that speaks another protocol (MCP: 'tools/call') has named the operation already.
  u.operation ??= OPERATION[call.op];
  u.agent = ctx.agentId;
  u.noteCaller(ctx.principal);
  if (skills?.length === 1) u.skill ??= skills[0];
  if (call.op === 'sendMessage' || call.op === 'sendStreamingMessage') {
    const named = call.req.metadata?.[SKILL_METADATA_KEY];
    if (typeof named === 'string') u.skill ??= named;
  } else if (call.op !== 'getExtendedAgentCard' && call.op !== 'listTasks') {
    const id = 'taskId' in call.req ? call.req.taskId : 'id' in call.req ? call.req.id : undefined;
    if (typeof id === 'string') u.taskId ??= id;
  }
}

export class AuthorizingA2AHandler extends ForwardingA2AHandler {
  constructor(
    inner: A2AHandler,
    private readonly policy: AuthorizationPolicy,
    private readonly registry: AgentRegistry,
    private readonly o: AuthorizingHandlerOptions = {},
  ) {
    // Quotas sit inside: an unauthorized call is refused as such and counts against nothing.
    super(o.quotas ? new QuotaA2AHandler(inner, o.quotas, registry) : inner);
  }

  /** Authorizes and returns the context the core runs with (the caller's usecases attached). */
  private check(ctx: CallContext, action: Action, skillIds?: readonly string[]): CallContext {
    const surface = ctx.surface ?? 'a2a';
    // An agent the caller may not see answers exactly like an unknown tenant.
    if (!this.policy.canSeeAgent(ctx.principal, ctx.agentId, surface)) throw unknownTenant(ctx.agentId);
    try {
      this.policy.authorize(ctx.principal, action, { agentId: ctx.agentId, surface, ...(skillIds ? { skillIds } : {}) });
    } catch (e) {
      if (e instanceof AccessDenied && this.o.resourceMetadataUrl) e.resourceMetadata = this.o.resourceMetadataUrl(ctx.agentId, surface);
      throw e;
    }
    const usecases = this.policy.usecases(ctx.principal);
    return usecases === undefined ? ctx : { ...ctx, usecases };
  }

  /** The skills a message is for: the agent says, else all of them (it may use any). */
  private skillsOf(agentId: string, req: SendMessageRequest): readonly string[] | undefined {
    const agent = this.registry.get(agentId);
    if (!agent) return undefined;
    const named = agent.definition.skillOf?.(req.message);
    return named !== undefined ? [named] : agent.definition.card.skills.map((s) => s.id);
  }

  protected override enter(ctx: CallContext, call: A2ACall): CallContext {
    const sends = call.op === 'sendMessage' || call.op === 'sendStreamingMessage';
    const skills = sends ? this.skillsOf(ctx.agentId, call.req) : undefined;
    if (ctx.usage) noteCall(ctx.usage, ctx, call, skills);
    return this.check(ctx, ACTION[call.op], skills);
  }

  /** The tenant lookup (agent-lookup.ts): the agent exists and, with `caller`, that caller may see it. */
  override hasAgent(agentId: string, caller?: AgentCaller): boolean {
    if (caller === undefined) return this.inner.hasAgent(agentId);
    return agentSeen(this.registry, this.policy, agentId, caller.principal, caller.surface ?? 'a2a');
  }
}
