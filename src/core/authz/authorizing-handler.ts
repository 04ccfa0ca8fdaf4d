/**
 * The A2A operations behind the authorization policy: every binding (JSON-RPC, HTTP+JSON, gRPC,
 * v0.3, MCP) calls this handler, so each operation is authorized once, in the core, before the
 * task service looks anything up. Owner scoping (a caller sees only its own tasks) stays in the
 * task directory, where it is applied before any task is read.
 */
import type { A2AHandler, AgentCaller, CallContext, StreamItem } from '../a2a-handler.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { lazyStream } from '../events/lazy-stream.js';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushConfigRef,
  TaskPushNotificationConfig,
} from '../../protocol/a2a/types.js';
import { AccessDenied } from './access-denied.js';
import type { Action, AuthorizationPolicy } from './policy.js';
import { unknownTenant } from './unknown-agent.js';

export interface AuthorizingHandlerOptions {
  /** the RFC 9728 metadata URL named in challenges for an agent's endpoints */
  resourceMetadataUrl?: (agentId: string, surface: 'a2a' | 'mcp') => string;
}

export class AuthorizingA2AHandler implements A2AHandler {
  constructor(
    private readonly inner: A2AHandler,
    private readonly policy: AuthorizationPolicy,
    private readonly registry: AgentRegistry,
    private readonly o: AuthorizingHandlerOptions = {},
  ) {}

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

  sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse> {
    return run(() => this.inner.sendMessage(this.check(ctx, 'send-message', this.skillsOf(ctx.agentId, req)), req));
  }

  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem> {
    return lazyStream(async () => this.inner.sendStreamingMessage(this.check(ctx, 'send-message', this.skillsOf(ctx.agentId, req)), req)[Symbol.asyncIterator]());
  }

  getTask(ctx: CallContext, req: GetTaskRequest): Promise<Task> {
    return run(() => this.inner.getTask(this.check(ctx, 'read-tasks'), req));
  }

  listTasks(ctx: CallContext, req: ListTasksRequest): Promise<ListTasksResponse> {
    return run(() => this.inner.listTasks(this.check(ctx, 'read-tasks'), req));
  }

  cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    return run(() => this.inner.cancelTask(this.check(ctx, 'cancel-task'), req));
  }

  subscribeToTask(ctx: CallContext, req: SubscribeToTaskRequest, lastEventId?: number): AsyncIterable<StreamItem> {
    return lazyStream(async () => this.inner.subscribeToTask(this.check(ctx, 'read-tasks'), req, lastEventId)[Symbol.asyncIterator]());
  }

  createTaskPushNotificationConfig(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return run(() => this.inner.createTaskPushNotificationConfig(this.check(ctx, 'manage-push-configs'), config));
  }

  getTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig> {
    return run(() => this.inner.getTaskPushNotificationConfig(this.check(ctx, 'manage-push-configs'), ref));
  }

  listTaskPushNotificationConfigs(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return run(() => this.inner.listTaskPushNotificationConfigs(this.check(ctx, 'manage-push-configs'), req));
  }

  deleteTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<void> {
    return run(() => this.inner.deleteTaskPushNotificationConfig(this.check(ctx, 'manage-push-configs'), ref));
  }

  getExtendedAgentCard(ctx: CallContext): Promise<AgentCard> {
    return run(() => this.inner.getExtendedAgentCard(this.check(ctx, 'read-extended-card')));
  }

  agentExtensions(agentId: string) {
    return this.inner.agentExtensions(agentId);
  }

  hasAgent(agentId: string, caller?: AgentCaller): boolean {
    if (!this.inner.hasAgent(agentId)) return false;
    return caller === undefined || this.policy.canSeeAgent(caller.principal, agentId, caller.surface ?? 'a2a');
  }
}

/** A synchronous refusal becomes a rejected promise, as the bindings expect of every operation. */
function run<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (e) {
    return Promise.reject(e);
  }
}
