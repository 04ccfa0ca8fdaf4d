/**
 * A handler that stands in front of another and forwards every A2A operation to it once `enter`
 * has seen the call: a layer (authorization, the surface a call came from) writes what it does to
 * a call in one place instead of forwarding the thirteen operations by hand.
 */
import type { A2AHandler, AgentCaller, CallContext, StreamItem } from './a2a-handler.js';
import { lazyStream } from './streams/lazy-stream.js';
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
} from '../protocol/a2a/types.js';

/** An operation that runs for a caller, with its request. */
export type A2ACall =
  | { op: 'sendMessage' | 'sendStreamingMessage'; req: SendMessageRequest }
  | { op: 'getTask'; req: GetTaskRequest }
  | { op: 'listTasks'; req: ListTasksRequest }
  | { op: 'cancelTask'; req: CancelTaskRequest }
  | { op: 'subscribeToTask'; req: SubscribeToTaskRequest }
  | { op: 'createTaskPushNotificationConfig'; req: TaskPushNotificationConfig }
  | { op: 'getTaskPushNotificationConfig' | 'deleteTaskPushNotificationConfig'; req: TaskPushConfigRef }
  | { op: 'listTaskPushNotificationConfigs'; req: ListTaskPushNotificationConfigsRequest }
  | { op: 'getExtendedAgentCard' };

export abstract class ForwardingA2AHandler implements A2AHandler {
  constructor(protected readonly inner: A2AHandler) {}

  /**
   * The context the inner handler runs `call` with. Throwing refuses the call: a promise operation
   * then rejects, a stream fails on its first `next()` (the bindings peek it before answering).
   */
  protected abstract enter(ctx: CallContext, call: A2ACall): CallContext;

  sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse> {
    return settle(ctx, () => this.inner.sendMessage(this.enter(ctx, { op: 'sendMessage', req }), req));
  }

  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem> {
    return lazyStream(async () => this.inner.sendStreamingMessage(this.enter(ctx, { op: 'sendStreamingMessage', req }), req)[Symbol.asyncIterator]());
  }

  getTask(ctx: CallContext, req: GetTaskRequest): Promise<Task> {
    return settle(ctx, () => this.inner.getTask(this.enter(ctx, { op: 'getTask', req }), req));
  }

  listTasks(ctx: CallContext, req: ListTasksRequest): Promise<ListTasksResponse> {
    return settle(ctx, () => this.inner.listTasks(this.enter(ctx, { op: 'listTasks', req }), req));
  }

  cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    return settle(ctx, () => this.inner.cancelTask(this.enter(ctx, { op: 'cancelTask', req }), req));
  }

  subscribeToTask(ctx: CallContext, req: SubscribeToTaskRequest, lastEventId?: number): AsyncIterable<StreamItem> {
    return lazyStream(async () => this.inner.subscribeToTask(this.enter(ctx, { op: 'subscribeToTask', req }), req, lastEventId)[Symbol.asyncIterator]());
  }

  createTaskPushNotificationConfig(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return settle(ctx, () => this.inner.createTaskPushNotificationConfig(this.enter(ctx, { op: 'createTaskPushNotificationConfig', req: config }), config));
  }

  getTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig> {
    return settle(ctx, () => this.inner.getTaskPushNotificationConfig(this.enter(ctx, { op: 'getTaskPushNotificationConfig', req: ref }), ref));
  }

  listTaskPushNotificationConfigs(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return settle(ctx, () => this.inner.listTaskPushNotificationConfigs(this.enter(ctx, { op: 'listTaskPushNotificationConfigs', req }), req));
  }

  deleteTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<void> {
    return settle(ctx, () => this.inner.deleteTaskPushNotificationConfig(this.enter(ctx, { op: 'deleteTaskPushNotificationConfig', req: ref }), ref));
  }

  getExtendedAgentCard(ctx: CallContext): Promise<AgentCard> {
    return settle(ctx, () => this.inner.getExtendedAgentCard(this.enter(ctx, { op: 'getExtendedAgentCard' })));
  }

  agentExtensions(agentId: string): ReturnType<A2AHandler['agentExtensions']> {
    return this.inner.agentExtensions(agentId);
  }

  hasAgent(agentId: string, caller?: AgentCaller): boolean {
    return this.inner.hasAgent(agentId, caller);
  }
}

/**
 * A synchronous refusal becomes a rejected promise, as the bindings expect of every operation. A
 * failure is noted in the call's usage draft (its outcome is the error), whichever face encodes it.
 */
function settle<T>(ctx: CallContext, f: () => Promise<T>): Promise<T> {
  const usage = ctx.usage;
  try {
    const p = f();
    if (!usage) return p;
    return p.then(undefined, (e: unknown) => {
      usage.noteError(e);
      throw e;
    });
  } catch (e) {
    usage?.noteError(e);
    return Promise.reject(e);
  }
}
