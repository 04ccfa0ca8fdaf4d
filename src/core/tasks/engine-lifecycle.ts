/**
 * The task engine's start and end: start-up recovery of tasks a crash cut off, and shutdown, which
 * stops accepting work, ends or hands over running tasks, flushes commits and ends open streams.
 */
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import { isoTimestamp } from '../iso-timestamp.js';
import type { Message } from '../../protocol/a2a/types.js';
import type { GroupCommitter } from '../../store/group-commit.js';
import type { Store, TaskPosition } from '../../store/store.js';
import type { ClusterOptions } from '../cluster/cluster-options.js';
import type { ClusterRouter } from '../cluster/cluster-router.js';
import type { RunSupervisor } from '../execution/run-supervisor.js';
import type { LiveTasks } from '../task-state/live-tasks.js';
import type { OpenStreams } from './open-streams.js';
import type { TaskLog } from '../task-state/task-log.js';

/** Cut-off tasks read from the store at a time during start-up recovery. */
export const RECOVERY_PAGE = 200;

export interface EngineLifecycleDeps {
  store: Store;
  committer: GroupCommitter;
  /** tasks with activity in this process */
  live: LiveTasks;
  taskLog: TaskLog;
  supervisor: RunSupervisor;
  router: ClusterRouter;
  streams: OpenStreams;
  cluster?: ClusterOptions;
  /** whether an agent's cut-off tasks are resumed instead of failed (AgentDefinition.resumable) */
  resumable(agentId: string): boolean;
}

export class EngineLifecycle {
  private isClosed = false;

  constructor(private readonly d: EngineLifecycleDeps) {}

  /** true once close() began: no new work is accepted */
  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Start-up recovery for a store this process owns alone: no executor survives a restart, so a
   * task left SUBMITTED or WORKING by a crash is resumed when its agent is resumable (it runs again
   * from its log, as after a lost replica), else ended FAILED with a reason, never left running.
   * Called once the agents are registered. Returns how many were recovered.
   */
  async recoverOrphanedTasks(): Promise<number> {
    let n = 0;
    // Resumed runs keep their tasks WORKING, so the pages are read after the last task seen, not
    // again from the start (which, with a full page of resumed tasks, would never reach the rest).
    let after: TaskPosition | undefined;
    for (;;) {
      const batch = await this.d.store.findTasksInStates(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'], RECOVERY_PAGE, after);
      if (batch.length === 0) return n;
      const last = batch[batch.length - 1]!;
      after = { createdAt: last.createdAt, id: last.task.id };
      for (const s of batch) {
        // Running here already: a sub-task a resumed run started (an LLM agent's tool call).
        if (this.d.live.has(s.task.id)) continue;
        if (this.d.resumable(s.agentId) && s.task.history?.some((m) => m.role === 'ROLE_USER')) {
          await this.d.router.recoverOrphan(s);
          n++;
          continue;
        }
        const live = await this.d.live.adoptStored(s);
        const message: Message = {
          messageId: randomUUID(),
          role: 'ROLE_AGENT',
          parts: [{ text: 'The server restarted while this task was running; send the request again.' }],
          contextId: s.task.contextId,
          taskId: s.task.id,
        };
        await this.d.taskLog.append(live, [{ statusUpdate: { taskId: s.task.id, contextId: s.task.contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: isoTimestamp() } } }]);
        n++;
      }
    }
  }

  /** Stops accepting work, cancels running executors and flushes pending commits. */
  async close(): Promise<void> {
    this.isClosed = true;
    await this.d.router.stop();
    const handOver: Promise<void>[] = [];
    for (const run of this.d.supervisor.current()) {
      const live = this.d.live.get(run.taskId);
      if (this.d.cluster && run.definition.resumable && run.hasTask && !run.finished && live?.committed) {
        // A rolling restart: another replica resumes the task as soon as this lease is released.
        run.finished = true;
        run.cancel();
        handOver.push(this.d.router.handOver(live));
        continue;
      }
      // A task cut off by shutdown must not stay WORKING: it ends FAILED with a reason.
      if (run.hasTask && !run.finished) {
        this.d.supervisor.onAgentEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: 'The server stopped while this task was running; send the request again.' });
      }
      run.cancel();
    }
    await Promise.all([...this.d.live.values()].map((l) => l.lastCommit?.catch(() => {})));
    await this.d.committer.flush();
    await Promise.all(handOver);
    this.d.streams.endAll();
  }
}
