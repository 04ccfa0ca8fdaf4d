/**
 * Group commit: every commit enqueued in the same tick goes to the store as one transaction, so
 * concurrent requests share one write (and, with synchronous=FULL, one fsync).
 *
 * Commits arriving while batches are in flight form the next one, so the batch grows with the
 * store's latency. A batch is all or nothing, so when it fails each of its commits is retried
 * alone, in order: a ConcurrentUpdateError then rejects only the commit that caused it.
 *
 * Pipelining (issue 18): up to `maxInFlight` batches run at once (the store's commitConcurrency:
 * 2 for SQLite's commit thread, which runs them in turn (ADR 0078), else 1; the pool size less one
 * for PostgreSQL, whose commits wait on the network and the WAL flush, not on this process). A
 * task's commits never reorder: a commit whose task is in a batch still in flight stays queued, in
 * order, until that batch settles (its retries included), so batches in flight at the same time
 * touch disjoint tasks. Commits of different tasks carry no order between them (each task's log
 * and projection are separate rows).
 *
 * Distributed mode (issue 19 C2): a batch that fails because the database is unreachable is tried
 * again, in order, with backoff, for up to `retryUnavailableMs`; commits enqueued meanwhile wait in
 * memory behind it (at most `maxQueued`), so a database restart of a second or two costs running
 * executors nothing but latency. Past the window every waiting commit fails with
 * StorageUnavailableError and the task service stops their executors.
 */
import { performance } from 'node:perf_hooks';
import { TransientMap } from '../memory/transient-map.js';
import type { Metrics } from '../observability/metrics/index.js';
import { ConcurrentUpdateError, StoreUnavailableError, type Store, type TaskCommit } from './store.js';

export interface GroupCommitterOptions {
  /** most commits per store transaction; default 64 */
  maxBatch?: number;
  /** most store transactions in flight at once; default the store's commitConcurrency, else 1 */
  maxInFlight?: number;
  /** how long a batch is retried while the database is unreachable; default 0 (not retried) */
  retryUnavailableMs?: number;
  /** which errors mean "unreachable, try again" (driver errors are not typed) */
  isUnavailable?: (err: unknown) => boolean;
  /** most commits held in memory while retrying; beyond it new commits fail at once; default 10,000 */
  maxQueued?: number;
  /** first retry delay, doubling up to 1 s; default 50 ms */
  retryDelayMs?: number;
  log?: { warn(obj: object, msg?: string): void };
  /** metrics on: each store transaction's latency and batch size */
  metrics?: Pick<Metrics, 'storeCommit'>;
}

/** The database stayed unreachable for longer than the retry window: the commit was not stored. */
export class StorageUnavailableError extends StoreUnavailableError {
  constructor(windowMs: number, options?: { cause?: unknown }) {
    super(`storage unavailable: the database could not be reached for ${windowMs} ms`, options);
    this.name = 'StorageUnavailableError';
  }
}

interface Pending {
  commit: TaskCommit;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const commitOf = (p: Pending): TaskCommit => p.commit;

export class GroupCommitter {
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly retryMs: number;
  private readonly maxQueued: number;
  private queue: Pending[] = [];
  /** batches handed to the store and not yet settled (an array and a TransientMap, not a Set: ADR 0047) */
  private readonly inFlight: Promise<void>[] = [];
  /** ids of the tasks in those batches: their next commits wait until the batch settles */
  private readonly busyTasks = new TransientMap<true>();
  private scheduled = false;
  private closed = false;
  /** batches now retrying through an outage; the outage began when the first of them failed */
  private retryingBatches = 0;
  private outageSince: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: GroupCommitterOptions = {},
  ) {
    this.maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? 64));
    this.maxInFlight = Math.max(1, Math.floor(opts.maxInFlight ?? store.commitConcurrency ?? 1));
    this.retryMs = Math.max(0, opts.retryUnavailableMs ?? 0);
    this.maxQueued = Math.max(1, opts.maxQueued ?? 10_000);
  }

  /** true while the database is unreachable and commits wait for it */
  get retrying(): boolean {
    return this.outageSince !== undefined;
  }

  commit(c: TaskCommit): Promise<void> {
    if (this.closed) return Promise.reject(new Error('group committer is closed'));
    if (this.outageSince !== undefined && this.queue.length >= this.maxQueued) {
      // Memory stays bounded during an outage: the newest work is refused, the oldest kept.
      return Promise.reject(new StorageUnavailableError(Date.now() - this.outageSince));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ commit: c, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every commit enqueued so far is settled (resolved or rejected). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.length > 0 || this.scheduled) {
      if (this.inFlight.length > 0) await Promise.race(this.inFlight);
      else await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Refuses new commits and waits for the queued ones; does not close the store. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /** Dispatches on the next macrotask, after everything enqueued in this tick. */
  private schedule(): void {
    if (this.scheduled || this.inFlight.length >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(this.dispatch);
  }

  private readonly dispatch = (): void => {
    this.scheduled = false;
    // While the database is unreachable the batches already out retry in order; new ones would
    // only fail beside them, so the queue waits in memory (bounded by maxQueued).
    while (this.inFlight.length < this.maxInFlight && this.outageSince === undefined) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      // Indexed loops on the path of every batch: a `for…of` not yet optimised allocates its
      // iterator and a result a step (issue 26).
      for (let i = 0; i < batch.length; i++) this.busyTasks.set(batch[i]!.commit.task.id, true);
      // The batch, not an array of its ids: `apply` keeps it until it settles anyway.
      const run: Promise<void> = this.apply(batch).finally(() => {
        const at = this.inFlight.indexOf(run);
        if (at >= 0) this.inFlight.splice(at, 1);
        for (let i = 0; i < batch.length; i++) this.busyTasks.delete(batch[i]!.commit.task.id);
        // Commits enqueued meanwhile, or held back behind this batch's tasks.
        if (this.queue.length > 0) this.schedule();
      });
      this.inFlight.push(run);
    }
  };

  /**
   * The next batch: queued commits in order, up to maxBatch, skipping those whose task is in a
   * batch in flight. A skipped task stays busy for the rest of the scan, so its later commits
   * are skipped too and keep their order in the queue.
   */
  private takeBatch(): Pending[] {
    if (this.busyTasks.size === 0 && this.queue.length <= this.maxBatch) {
      const all = this.queue;
      this.queue = [];
      return all;
    }
    const batch: Pending[] = [];
    const held: Pending[] = [];
    let i = 0;
    for (; i < this.queue.length && batch.length < this.maxBatch; i++) {
      const p = this.queue[i]!;
      if (this.busyTasks.has(p.commit.task.id)) held.push(p);
      else batch.push(p);
    }
    this.queue = i === this.queue.length ? held : held.concat(this.queue.slice(i));
    return batch;
  }

  private async apply(batch: Pending[]): Promise<void> {
    let failure: unknown;
    try {
      const metrics = this.opts.metrics;
      const t0 = metrics ? performance.now() : 0;
      await this.store.commit(batch.map(commitOf));
      metrics?.storeCommit(batch.length, performance.now() - t0);
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve();
      return;
    } catch (err) {
      failure = err;
    }
    let ambiguous = false;
    if (this.retryMs > 0 && this.opts.isUnavailable?.(failure)) {
      const outcome = await this.retryThroughOutage(batch, failure);
      if (outcome === 'done') return;
      // The database answers again but refused the batch: a commit may have reached it before the
      // connection dropped (its acknowledgement lost), and now conflicts with itself.
      ambiguous = true;
    }
    if (batch.length === 1 && !ambiguous) {
      batch[0]!.reject(failure);
      return;
    }
    for (const p of batch) {
      try {
        await this.store.commit([p.commit]);
        p.resolve();
      } catch (err) {
        if (ambiguous && err instanceof ConcurrentUpdateError && (await this.alreadyApplied(p.commit))) p.resolve();
        else p.reject(err);
      }
    }
  }

  /**
   * Retries the batch while the database is unreachable, up to the window. 'done': committed, or
   * given up (everything waiting rejected); 'refused': the database answered with another error.
   */
  private async retryThroughOutage(batch: Pending[], first: unknown): Promise<'done' | 'refused'> {
    const since = Date.now();
    this.outageSince ??= since;
    this.retryingBatches++;
    this.opts.log?.warn({ err: first, commits: batch.length }, 'the database is unreachable: holding commits and retrying');
    let delay = this.opts.retryDelayMs ?? 50;
    let last = first;
    try {
      while (Date.now() - since < this.retryMs) {
        await new Promise((r) => setTimeout(r, Math.max(1, Math.min(delay, since + this.retryMs - Date.now()))));
        delay = Math.min(1_000, delay * 2);
        try {
          await this.store.commit(batch.map(commitOf));
          for (const p of batch) p.resolve();
          this.opts.log?.warn({ outageMs: Date.now() - since, waiting: this.queue.length }, 'the database is reachable again: held commits are being written');
          return 'done';
        } catch (err) {
          last = err;
          if (!this.opts.isUnavailable?.(err)) return 'refused';
        }
      }
    } finally {
      if (--this.retryingBatches === 0) {
        this.outageSince = undefined;
        if (this.queue.length > 0) this.schedule();
      }
    }
    // Past the window nothing waiting here can be stored in time: each task service stops the
    // executors behind these commits, and recovery takes over once the database is back.
    const gaveUp = new StorageUnavailableError(this.retryMs, { cause: last });
    this.opts.log?.warn({ commits: batch.length + this.queue.length, windowMs: this.retryMs }, 'the database stayed unreachable: giving up on held commits');
    const waiting = this.queue;
    this.queue = [];
    for (const p of batch) p.reject(gaveUp);
    for (const p of waiting) p.reject(gaveUp);
    return 'done';
  }

  /** Whether a commit whose acknowledgement was lost is in the store: its version and last seq are. */
  private async alreadyApplied(c: TaskCommit): Promise<boolean> {
    try {
      const s = await this.store.getTask(c.agentId, c.task.id);
      return s !== undefined && s.version === c.expectedVersion + 1 && s.seq === c.seq;
    } catch {
      return false;
    }
  }
}
