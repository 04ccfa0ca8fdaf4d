/**
 * Keeps this replica's leases on the tasks it runs alive. Every commit already extends the lease of
 * its task; the keeper covers executors that are quiet for longer than the TTL (a long tool call, a
 * task waiting in AUTH_REQUIRED). A lease found lost means another replica took the task (cancel,
 * or recovery after this replica stalled past the TTL): the local executor must stop.
 */
import type { Store } from '../../store/store.js';
import type { ClusterOptions } from './cluster-options.js';

export interface LeaseKeeperDeps {
  store: Store;
  cluster: ClusterOptions;
  /** ids of the tasks this replica runs and has committed at least once */
  held: () => string[];
  onLost: (taskId: string) => void;
  log: { warn(obj: object, msg?: string): void };
}

export class LeaseKeeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly d: LeaseKeeperDeps) {}

  start(): void {
    // A third of the TTL: two renewals may fail (a slow database) before a lease can lapse.
    const every = Math.max(100, Math.floor(this.d.cluster.leaseTtlMs / 3));
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.renew().finally(() => (this.running = undefined));
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async renew(): Promise<void> {
    const ids = this.d.held();
    if (ids.length === 0) return;
    const { replicaId, leaseTtlMs } = this.d.cluster;
    let kept: string[];
    try {
      kept = await this.d.store.renewLeases(replicaId, ids, Date.now() + leaseTtlMs);
    } catch (err) {
      // The store is unreachable: executors keep going; their commits will tell if they lost the task.
      this.d.log.warn({ err, tasks: ids.length }, 'could not renew task leases');
      return;
    }
    if (kept.length === ids.length) return;
    const still = new Set(kept);
    for (const id of ids) if (!still.has(id)) this.d.onLost(id);
  }
}
