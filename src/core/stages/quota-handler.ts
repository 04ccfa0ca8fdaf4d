/**
 * Quotas on the A2A operations, once per operation, the stage after authorization in the call
 * pipeline (core/pipeline.ts, composed in server/start.ts): every binding and every MCP tool call
 * passes it, an unauthorized call is refused as such and counts against nothing, and a refused
 * caller never reaches the task service. Every operation counts against request windows;
 * SendMessage and SendStreamingMessage also against budgets and concurrent tasks.
 *
 * A concurrent-task slot is held until the task the call started is terminal or interrupted: a
 * blocking send or a stream usually ends there; a task still running when the answer is given
 * (returnImmediately, a stream the client left) is watched through SubscribeToTask until it does.
 */
import { type A2AHandler, CallContext, type StreamItem } from '../a2a-handler.js';
import type { Stage } from '../pipeline.js';
import { lazyStream } from '../streams/lazy-stream.js';
import { isInterrupted, isTerminal, type SendMessageResponse, type StreamResponse, type TaskState } from '../../protocol/a2a/types.js';
import type { QuotaGate, TaskSlot } from '../quotas/quota-engine.js';
import { callDimensions } from '../quotas/quota.js';
import type { Operation } from '../operations.js';

/**
 * The quota stage. `tasks` is the task service: a task still running when the call's answer is
 * given is watched there (SubscribeToTask) until it settles, outside the pipeline (the watch is
 * the server's, not a call of the caller's).
 */
export function quotaStage(gate: QuotaGate, tasks: A2AHandler): Stage {
  const q = new QuotaHold(gate, tasks);
  return {
    name: 'quota',
    call(ctx, call, next) {
      if (gate.idle) return next(ctx);
      const operation = call.operation;
      if (operation.createsTask && !operation.stream) {
        return (async () => {
          const slot = await q.admit(ctx, operation);
          if (!slot) return next(ctx);
          let r: SendMessageResponse;
          try {
            r = (await next(ctx)) as SendMessageResponse;
          } catch (e) {
            slot.release();
            throw e;
          }
          if ('task' in r) q.holdUntilSettled(slot, ctx, r.task.id, r.task.status.state);
          else slot.release();
          return r;
        })();
      }
      if (operation.stream) {
        return lazyStream(async () => {
          const slot = await q.admit(ctx, operation);
          const it = (next(ctx) as AsyncIterable<StreamItem>)[Symbol.asyncIterator]();
          return slot ? q.watchStream(slot, ctx, it) : it;
        });
      }
      // An operation that counts against request windows only; a face's read or cancel that
      // finishes a call it already made is not counted again.
      if (ctx.partOfCall) return next(ctx);
      return q.admit(ctx, operation).then(() => next(ctx) as Promise<unknown>);
    },
  };
}

class QuotaHold {
  constructor(
    private readonly gate: QuotaGate,
    private readonly tasks: A2AHandler,
  ) {}

  admit(ctx: CallContext, operation: Operation): Promise<TaskSlot | undefined> {
    // The skill dimension: the one skill the resolve stage found the message is for, if any.
    const skill = operation.createsTask ? ctx.skill : undefined;
    return this.gate.admit({ dims: callDimensions(ctx, skill), sends: operation.createsTask, principal: ctx.principal, operation: operation.name });
  }

  /** Passes a stream through, releasing the slot once its task settles (or watching it when the stream ends first). */
  watchStream(slot: TaskSlot, ctx: CallContext, it: AsyncIterator<StreamItem>): AsyncIterator<StreamItem> {
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
  holdUntilSettled(slot: TaskSlot, ctx: CallContext, taskId: string, state: TaskState | undefined): void {
    if (state !== undefined && settled(state)) {
      slot.release();
      return;
    }
    const watchCtx = CallContext.of(ctx.agentId, ctx.principal, { usecases: ctx.usecases, surface: ctx.surface });
    void (async () => {
      try {
        for await (const item of this.tasks.subscribeToTask(watchCtx, { id: taskId })) {
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
