/**
 * Settles the tasks whose executors this replica stopped because the database stayed unreachable
 * past the commit retry window (issue 19 C2). The tasks are stored and still leased to this replica;
 * without this they would wait for the lease to expire and another replica's sweep. Once the
 * database answers again, each is claimed here (the lease is still ours, or expired and free) and
 * recovered by rule with the reason "storage unavailable": resumed when resumable, else FAILED.
 * A task another replica took meanwhile is left to it.
 */
import type { ClaimedTask, Store } from '../../store/store.js';
import type { ClusterOptions } from './cluster-options.js';
import { RUNNING_STATES } from './orphan-sweeper.js';

export interface OutageSettlerDeps {
  store: Store;
  cluster: ClusterOptions;
  recover: (task: ClaimedTask) => Promise<void>;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

export interface TaskRef {
  agentId: string;
  taskId: string;
}

const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 2_000;

export class OutageSettler {
  private readonly pending = new Map<string, TaskRef>();
  private timer?: NodeJS.Timeout;
  private delay = FIRST_DELAY_MS;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly d: OutageSettlerDeps) {}

  settle(ref: TaskRef): void {
    if (this.stopped) return;
    this.pending.set(ref.taskId, ref);
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass().finally(() => {
        this.running = undefined;
        if (this.pending.size > 0) this.schedule();
      });
    }, this.delay);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    const { replicaId, leaseTtlMs } = this.d.cluster;
    for (const ref of [...this.pending.values()]) {
      if (this.stopped) return;
      const now = Date.now();
      let claimed: ClaimedTask | undefined;
      try {
        claimed = await this.d.store.claimTask(ref.agentId, ref.taskId, replicaId, now, now + leaseTtlMs);
      } catch {
        // Still unreachable: try again later, backing off.
        this.delay = Math.min(MAX_DELAY_MS, this.delay * 2);
        return;
      }
      this.delay = FIRST_DELAY_MS;
      this.pending.delete(ref.taskId);
      if (!claimed) {
        this.d.log.info({ taskId: ref.taskId }, 'a task stopped during a database outage is held by another replica now');
        continue;
      }
      if (!RUNNING_STATES.includes(claimed.task.status.state)) {
        await this.d.store.releaseLease(ref.taskId, replicaId).catch(() => undefined);
        continue;
      }
      try {
        await this.d.recover({ ...claimed, previousLease: { owner: replicaId, expiresAt: now } });
      } catch (err) {
        // Its lease lapses and a sweep (here or on another replica) recovers it instead.
        this.d.log.warn({ err, taskId: ref.taskId }, 'could not recover a task stopped during a database outage');
      }
    }
  }
}
