/**
 * The call pipeline: every A2A operation, from every face, passes one list of stages composed
 * once at start (server/start.ts), in the order the list reads. A stage sees each call as
 * `(ctx, call, next)` (Hono's compose, oidc-provider's `use(...)` table): it may fill its own
 * fields of the call's context, in place (ADR 0048), refuse the call by throwing, or run code
 * around the rest of the pipeline. The eleven
 * operations are taken from the one operation table (operations.ts), so no stage forwards them by
 * hand.
 */
import type { A2AHandler, AgentCaller, CallContext, StreamItem } from './a2a-handler.js';
import { OPERATIONS, type Operation } from './operations.js';
import { lazyStream } from './streams/lazy-stream.js';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
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

/** A call as a stage sees it: the operation (its row of the table) and its request. */
export type Call = A2ACall & { operation: Operation };

/** What the rest of the pipeline answers: a promise for a unary operation, an iterable for a stream (`call.operation.stream`). */
export type Answer = Promise<unknown> | AsyncIterable<StreamItem>;

export interface Stage {
  /** for the list in docs/architecture.md and for errors */
  readonly name: string;
  /**
   * Runs the call: `next(ctx)` runs the rest of the pipeline with that context, at most once a
   * call (a call's one `next` walks the list). Throwing refuses the call: a promise operation then
   * rejects, a stream fails on its first `next()` (the bindings peek it before answering).
   */
  call(ctx: CallContext, call: Call, next: (ctx: CallContext) => Answer): Answer;
  /** The tenant lookup passing this stage (A2AHandler.hasAgent); absent: passed on unchanged. */
  hasAgent?(agentId: string, caller: AgentCaller | undefined, next: (agentId: string, caller?: AgentCaller) => boolean): boolean;
}

/** A stage that only changes or checks the context, before the rest runs. */
export function entering(name: string, enter: (ctx: CallContext, call: Call) => CallContext): Stage {
  return { name, call: (ctx, call, next) => next(enter(ctx, call)) };
}

/** The handler that runs `stages` in order in front of `inner` (the task service). */
export function compose(stages: readonly Stage[], inner: A2AHandler): A2AHandler {
  const handler: Record<string, unknown> = {
    agentExtensions: (agentId: string) => inner.agentExtensions(agentId),
    hasAgent: (agentId: string, caller?: AgentCaller) => {
      const at = (i: number, id: string, c?: AgentCaller): boolean => {
        const stage = stages[i];
        if (!stage) return inner.hasAgent(id, c);
        if (!stage.hasAgent) return at(i + 1, id, c);
        return stage.hasAgent(id, c, (nextId, nextCaller) => at(i + 1, nextId, nextCaller));
      };
      return at(0, agentId, caller);
    },
  };
  for (const operation of OPERATIONS) {
    const method = inner[operation.method] as (ctx: CallContext, ...args: unknown[]) => Answer;
    // The request and, for SubscribeToTask, the last event id: named, not a rest list a call.
    handler[operation.method] = (ctx: CallContext, req?: unknown, extra?: unknown) => {
      const call = new PipelineCall(stages, inner, method, operation, req, extra);
      if (operation.stream) return lazyStream(async () => (call.next(ctx) as AsyncIterable<StreamItem>)[Symbol.asyncIterator]());
      // Settled once, around the whole list: a stage's synchronous refusal passes up through the
      // stages before it as any exception does, and becomes the rejection here.
      return settle(ctx, call);
    };
  }
  return handler as unknown as A2AHandler;
}

/**
 * One call on its way through the stages: what a stage sees of it (the operation's row and the
 * request) and the one `next` every stage is handed, which runs the stage after the one that
 * called it (each stage calls `next` at most once, as Stage.call says). One object and one closure
 * a call, where a closure, its scope and a call literal per call and a closure and scope per stage
 * were made (issue 26, bytes allocated a request).
 */
class PipelineCall {
  readonly op: string;
  /** the stage `next` runs next; the inner handler once past the last */
  private at = 0;
  readonly next = (ctx: CallContext): Answer => this.runNext(ctx);

  constructor(
    private readonly stages: readonly Stage[],
    private readonly inner: A2AHandler,
    private readonly method: (ctx: CallContext, ...args: unknown[]) => Answer,
    readonly operation: Operation,
    readonly req: unknown,
    private readonly extra: unknown,
  ) {
    this.op = operation.method;
  }

  private runNext(ctx: CallContext): Answer {
    const stage = this.stages[this.at++];
    if (stage) return stage.call(ctx, this as unknown as Call, this.next);
    // The inner handler gets the arguments the call was made with, no more.
    if (this.extra !== undefined) return this.method.call(this.inner, ctx, this.req, this.extra);
    return this.req === undefined ? this.method.call(this.inner, ctx) : this.method.call(this.inner, ctx, this.req);
  }
}

/**
 * A synchronous refusal becomes a rejected promise, as the bindings expect of every operation. A
 * failure is noted in the call's usage draft (its outcome is the error), whichever face encodes it.
 */
function settle(ctx: CallContext, call: PipelineCall): Promise<unknown> {
  const usage = ctx.usage;
  try {
    const p = call.next(ctx) as Promise<unknown>;
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
