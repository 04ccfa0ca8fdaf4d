/**
 * Finds tasks whose executor's replica stopped renewing its lease (it died, or lost the database
 * for longer than the TTL) and hands them to `recover`, which resumes or fails them by the rule in
 * docs/deploy.md. Replicas sweep concurrently; the store's claim makes each task go to one of them.
 */
import type { TaskState } from '../../protocol/a2a/types.js';
import type { ClaimedTask, Store } from '../../store/store.js';
import type { ClusterOptions } from './cluster-options.js';

/** States in which a task is owed progress by an executor; INPUT_REQUIRED waits for the client instead. */
export const RUNNING_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED'];

const BATCH = 20;

export interface OrphanSweeperDeps {
  store: Store;
  cluster: ClusterOptions;
  recover: (task: ClaimedTask) => Promise<void>;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export class OrphanSweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly d: OrphanSweeperDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running)
        this.running = this.sweep()
          .then(
            () => {},
            () => {},
          )
          .finally(() => (this.running = undefined));
    }, this.d.cluster.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: claims and recovers orphans until none is left. Returns how many were recovered. */
  async sweep(): Promise<number> {
    let n = 0;
    while (!this.stopped) {
      const { replicaId, leaseTtlMs } = this.d.cluster;
      const now = Date.now();
      let batch: ClaimedTask[];
      try {
        batch = await this.d.store.claimOrphanedTasks(RUNNING_STATES, replicaId, now, now + leaseTtlMs, BATCH);
      } catch (err) {
        this.d.log.warn({ err }, 'orphaned-task sweep could not reach the store');
        return n;
      }
      for (const task of batch) {
        try {
          await this.d.recover(task);
          n++;
        } catch (err) {
          // Its lease will lapse again and a later sweep (here or elsewhere) retries it.
          this.d.log.error({ err, taskId: task.task.id }, 'could not recover an orphaned task');
        }
      }
      if (batch.length < BATCH) return n;
    }
    return n;
  }
}
