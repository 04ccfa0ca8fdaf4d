/**
 * Quotas on the A2A operations, once per operation, behind the authorization layer (which composes
 * it: core/authz/authorizing-handler.ts), so every binding and every MCP tool call passes it and a
 * refused caller never reaches the task service. Every operation counts against request windows;
 * SendMessage and SendStreamingMessage also against budgets and concurrent tasks.
 *
 * A concurrent-task slot is held until the task the call started is terminal or interrupted: a
 * blocking send or a stream usually ends there; a task still running when the answer is given
 * (returnImmediately, a stream the client left) is watched through SubscribeToTask until it does.
 */
import type { A2AHandler, AgentCaller, CallContext, StreamItem } from '../a2a-handler.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { lazyStream } from '../streams/lazy-stream.js';
import {
  isInterrupted,
  isTerminal,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushConfigRef,
  type TaskPushNotificationConfig,
  type TaskState,
} from '../../protocol/a2a/types.js';
import type { QuotaGate, TaskSlot } from './quota-engine.js';
import { callDimensions } from './quota.js';

/** The request metadata key an MCP tool call names its skill with (bindings/mcp/agent-tools.ts). */
const SKILL_METADATA_KEY = 'agentport/skill';

export class QuotaA2AHandler implements A2AHandler {
  constructor(
    private readonly inner: A2AHandler,
    private readonly gate: QuotaGate,
    private readonly registry: AgentRegistry,
  ) {}

  sendMessage(ctx: CallContext, req: SendMessageRequest): Promise<SendMessageResponse> {
    if (this.gate.idle) return this.inner.sendMessage(ctx, req);
    return (async () => {
      const slot = await this.admit(ctx, 'SendMessage', req);
      if (!slot) return this.inner.sendMessage(ctx, req);
      let r: SendMessageResponse;
      try {
        r = await this.inner.sendMessage(ctx, req);
      } catch (e) {
        slot.release();
        throw e;
      }
      if ('task' in r) this.holdUntilSettled(slot, ctx, r.task.id, r.task.status.state);
      else slot.release();
      return r;
    })();
  }

  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest): AsyncIterable<StreamItem> {
    if (this.gate.idle) return this.inner.sendStreamingMessage(ctx, req);
    return lazyStream(async () => {
      const slot = await this.admit(ctx, 'SendStreamingMessage', req);
      const it = this.inner.sendStreamingMessage(ctx, req)[Symbol.asyncIterator]();
      return slot ? this.watchStream(slot, ctx, it) : it;
    });
  }

  getTask(ctx: CallContext, req: GetTaskRequest): Promise<Task> {
    return this.counted(ctx, 'GetTask', () => this.inner.getTask(ctx, req));
  }

  listTasks(ctx: CallContext, req: ListTasksRequest): Promise<ListTasksResponse> {
    return this.counted(ctx, 'ListTasks', () => this.inner.listTasks(ctx, req));
  }

  cancelTask(ctx: CallContext, req: CancelTaskRequest): Promise<Task> {
    return this.counted(ctx, 'CancelTask', () => this.inner.cancelTask(ctx, req));
  }

  subscribeToTask(ctx: CallContext, req: SubscribeToTaskRequest, lastEventId?: number): AsyncIterable<StreamItem> {
    if (this.gate.idle) return this.inner.subscribeToTask(ctx, req, lastEventId);
    return lazyStream(async () => {
      await this.admit(ctx, 'SubscribeToTask');
      return this.inner.subscribeToTask(ctx, req, lastEventId)[Symbol.asyncIterator]();
    });
  }

  createTaskPushNotificationConfig(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return this.counted(ctx, 'CreateTaskPushNotificationConfig', () => this.inner.createTaskPushNotificationConfig(ctx, config));
  }

  getTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig> {
    return this.counted(ctx, 'GetTaskPushNotificationConfig', () => this.inner.getTaskPushNotificationConfig(ctx, ref));
  }

  listTaskPushNotificationConfigs(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.counted(ctx, 'ListTaskPushNotificationConfigs', () => this.inner.listTaskPushNotificationConfigs(ctx, req));
  }

  deleteTaskPushNotificationConfig(ctx: CallContext, ref: TaskPushConfigRef): Promise<void> {
    return this.counted(ctx, 'DeleteTaskPushNotificationConfig', () => this.inner.deleteTaskPushNotificationConfig(ctx, ref));
  }

  getExtendedAgentCard(ctx: CallContext): Promise<AgentCard> {
    return this.counted(ctx, 'GetExtendedAgentCard', () => this.inner.getExtendedAgentCard(ctx));
  }

  agentExtensions(agentId: string): ReturnType<A2AHandler['agentExtensions']> {
    return this.inner.agentExtensions(agentId);
  }

  hasAgent(agentId: string, caller?: AgentCaller): boolean {
    return this.inner.hasAgent(agentId, caller);
  }

  /** An operation that counts against request windows only. */
  private counted<T>(ctx: CallContext, operation: string, run: () => Promise<T>): Promise<T> {
    if (this.gate.idle || ctx.partOfCall) return run();
    return this.admit(ctx, operation).then(run);
  }

  private admit(ctx: CallContext, operation: string, send?: SendMessageRequest): Promise<TaskSlot | undefined> {
    const skill = send ? this.skillOf(ctx.agentId, send) : undefined;
    return this.gate.admit({ dims: callDimensions(ctx, skill), sends: send !== undefined, principal: ctx.principal, operation });
  }

  /** The one skill a message is for, when the agent or the MCP tool says; undefined: no skill dimension. */
  private skillOf(agentId: string, req: SendMessageRequest): string | undefined {
    const named = this.registry.get(agentId)?.definition.skillOf?.(req.message);
    if (named !== undefined) return named;
    const hinted = req.metadata?.[SKILL_METADATA_KEY];
    return typeof hinted === 'string' && hinted !== '' ? hinted : undefined;
  }

  /** Passes a stream through, releasing the slot once its task settles (or watching it when the stream ends first). */
  private watchStream(slot: TaskSlot, ctx: CallContext, it: AsyncIterator<StreamItem>): AsyncIterator<StreamItem> {
    let taskId: string | undefined;
    let state: TaskState | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (taskId) this.holdUntilSettled(slot, ctx, taskId, state);
      else slot.release();
    };
    return {
      next: async () => {
        let r: IteratorResult<StreamItem>;
        try {
          r = await it.next();
        } catch (e) {
          finish();
          throw e;
        }
        if (r.done) finish();
        else {
          const seen = taskOf(r.value.response);
          if (seen) {
            taskId = seen.taskId;
            if (seen.state) state = seen.state;
          }
        }
        return r;
      },
      return: async () => {
        try {
          return (await it.return?.()) ?? { value: undefined, done: true };
        } finally {
          finish();
        }
      },
    };
  }

  /** Releases the slot once the task is terminal or interrupted; watches it from here when not yet. */
  private holdUntilSettled(slot: TaskSlot, ctx: CallContext, taskId: string, state: TaskState | undefined): void {
    if (state !== undefined && settled(state)) {
      slot.release();
      return;
    }
    const watchCtx: CallContext = { agentId: ctx.agentId, principal: ctx.principal, requestedExtensions: [], ...(ctx.usecases ? { usecases: ctx.usecases } : {}), ...(ctx.surface ? { surface: ctx.surface } : {}) };
    void (async () => {
      try {
        for await (const item of this.inner.subscribeToTask(watchCtx, { id: taskId })) {
          const s = taskOf(item.response)?.state;
          if (s !== undefined && settled(s)) break;
        }
      } catch {
        // The task is gone or already settled (SubscribeToTask refuses a terminal task): the slot is free.
      } finally {
        slot.release();
      }
    })();
  }
}

function settled(s: TaskState): boolean {
  return isTerminal(s) || isInterrupted(s);
}

function taskOf(r: StreamResponse): { taskId: string; state?: TaskState } | undefined {
  if ('task' in r) return { taskId: r.task.id, state: r.task.status.state };
  if ('statusUpdate' in r) return { taskId: r.statusUpdate.taskId, state: r.statusUpdate.status.state };
  if ('artifactUpdate' in r) return { taskId: r.artifactUpdate.taskId };
  return undefined;
}
