/**
 * Group commit: every commit enqueued in the same tick goes to the store as one transaction, so
 * concurrent requests share one write (and, with synchronous=FULL, one fsync).
 *
 * Batches run one at a time, in enqueue order; commits arriving while a batch is in flight form
 * the next one, so the batch grows with the store's latency. A batch is all or nothing, so when
 * it fails each of its commits is retried alone, in order: a ConcurrentUpdateError then rejects
 * only the commit that caused it.
 */
import type { Store, TaskCommit } from './store.js';

export interface GroupCommitterOptions {
  /** most commits per store transaction; default 64 */
  maxBatch?: number;
}

interface Pending {
  commit: TaskCommit;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommitter {
  private readonly maxBatch: number;
  private queue: Pending[] = [];
  /** the drain loop, while one runs; flush() waits for it */
  private draining: Promise<void> | undefined;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    opts: GroupCommitterOptions = {},
  ) {
    this.maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? 64));
  }

  commit(c: TaskCommit): Promise<void> {
    if (this.closed) return Promise.reject(new Error('group committer is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ commit: c, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every commit enqueued so far is settled (resolved or rejected). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.draining || this.scheduled) {
      if (this.draining) await this.draining;
      else await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Refuses new commits and waits for the queued ones; does not close the store. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /** Drains on the next macrotask, after everything enqueued in this tick. */
  private schedule(): void {
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    setImmediate(this.startDrain);
  }

  private readonly startDrain = (): void => {
    this.scheduled = false;
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // Commits enqueued by callbacks of the last batch, after the loop saw an empty queue.
      if (this.queue.length > 0) this.schedule();
    });
  };

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
      await this.apply(batch);
    }
  }

  private async apply(batch: Pending[]): Promise<void> {
    try {
      await this.store.commit(batch.map((p) => p.commit));
      for (const p of batch) p.resolve();
      return;
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
    }
    for (const p of batch) {
      try {
        await this.store.commit([p.commit]);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
