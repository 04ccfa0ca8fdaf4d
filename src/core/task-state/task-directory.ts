/**
 * Finding the tasks a caller may see: the live working copies of tasks with activity in this
 * process, loaded once from the store, with agent and owner scoping applied before anything else
 * (what the caller may not see does not exist).
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import type { Task } from '../../protocol/a2a/types.js';
import type { Store } from '../../store/store.js';
import type { CallContext } from '../a2a-handler.js';
import type { AgentRegistry, RegisteredAgent } from '../agents/agent-registry.js';
import type { LiveTask } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import { viewTask } from './task-projection.js';

export class TaskDirectory {
  constructor(
    /** tasks with activity in this process: a running executor or commits in flight */
    readonly live: LiveTasks,
    private readonly registry: AgentRegistry,
    private readonly store: Store,
    private readonly maxHistory: number,
  ) {}

  agent(ctx: CallContext): RegisteredAgent {
    // Resolved once per call by the pipeline's resolve stage; the registry only for calls made inside the core.
    const a = ctx.agent ?? this.registry.get(ctx.agentId);
    if (!a) throw new A2AError('TaskNotFound', `No agent '${ctx.agentId}' here`);
    return a;
  }

  viewFull(t: Task): Task {
    return viewTask(t, { maxHistory: this.maxHistory });
  }

  /** Owner and agent scoping happen before anything else: what the caller may not see does not exist. */
  async visibleStored(ctx: CallContext, taskId: string) {
    const s = await this.store.getTask(ctx.agentId, taskId);
    return s && s.owner === ctx.principal.subject && s.agentId === ctx.agentId ? s : undefined;
  }

  async visibleTask(ctx: CallContext, taskId: string): Promise<Task> {
    return (await this.visibleTaskWithSeq(ctx, taskId)).task;
  }

  async visibleTaskWithSeq(ctx: CallContext, taskId: string): Promise<{ task: Task; seq: number; traceParent?: string | undefined }> {
    this.agent(ctx);
    const l = this.live.get(taskId);
    if (l) {
      if (l.owner !== ctx.principal.subject || l.agentId !== ctx.agentId) throw new A2AError('TaskNotFound', `Task ${taskId} was not found`);
      // Nothing appended since the last commit landed: the copy is what the store holds.
      if (l.durable && l.durableSeq === l.seq) return { task: l.durable, seq: l.durableSeq, traceParent: l.traceParent };
      // A commit in flight: the store answers, as it does on every other replica. The copy here
      // would run ahead of them (a state told, then taken back if the commit fails), and the copy
      // as last acknowledged may lag them (the commit landed, its acknowledgement not yet read):
      // either way one replica answered FAILED while the next still answered WORKING.
    }
    const s = await this.visibleStored(ctx, taskId);
    if (!s) throw new A2AError('TaskNotFound', `Task ${taskId} was not found`);
    return { task: s.task, seq: s.seq, traceParent: s.traceParent };
  }

  /** The live copy of a task the caller can see, loading it from the store once. */
  async getLive(ctx: CallContext, taskId: string): Promise<LiveTask | undefined> {
    const l = await this.live.load(ctx.agentId, taskId);
    if (!l || l.owner !== ctx.principal.subject || l.agentId !== ctx.agentId) return undefined;
    return l;
  }
}
