/**
 * One subscriber's view of one task on a distributed bus: exactly the records after the last one
 * it was given, in seq order, without duplicates or gaps.
 *
 * Live records can arrive twice (a replay), out of order (two replicas publishing one task around a
 * lease hand-over) or not at all (a PUBLISH dropped while Redis was down). The event log has every
 * committed record and a record is published only after its commit, so whenever a live record is
 * ahead of the next expected seq, the missing range is already in the log and is read from there.
 */
import type { TaskEventListener } from '../event-bus.js';
import type { TaskEventRecord } from '../../store/task-event-record.js';

/** `Store.readEvents`: records with seq > afterSeq, in order. */
export type EventLogReader = (taskId: string, afterSeq: number, limit: number) => Promise<TaskEventRecord[]>;

export interface OrderedSubscriptionOptions {
  taskId: string;
  listener: TaskEventListener;
  readEvents: EventLogReader;
  /** the subscriber already has everything up to here; absent: the first record delivered sets it */
  afterSeq?: number;
  /** wait before reading again when the log failed or did not yet have the missing records */
  retryDelayMs: number;
  onListenerError: (err: unknown) => void;
  onReadError: (err: unknown) => void;
}

const PAGE = 500;
/** Live records buffered during a fill beyond this are dropped: the next read finds them in the log. */
const MAX_BUFFERED = 10_000;

const bySeq = (a: TaskEventRecord, b: TaskEventRecord): number => a.seq - b.seq;

export class OrderedSubscription {
  private last: number | undefined;
  /** live records that arrived while a fill ran or waited to retry */
  private buffered: TaskEventRecord[] = [];
  private filling = false;
  /** set during a fill when the log may have grown since the fill's last read */
  private readAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: OrderedSubscriptionOptions) {
    this.last = opts.afterSeq;
  }

  get taskId(): string {
    return this.opts.taskId;
  }

  /** Live records of this task, in the order they arrived. Delivered synchronously unless a gap needs the log. */
  offer(records: readonly TaskEventRecord[]): void {
    if (this.closed) return;
    if (this.filling || this.retryTimer) {
      this.buffer(records);
      return;
    }
    const rest = this.deliverContiguous(records);
    if (rest.length > 0) {
      this.buffer(rest);
      void this.fill();
    }
  }

  /**
   * Reads whatever the log holds past the last delivered record: right after subscribing with
   * `afterSeq`, while Redis is down, and when it is back. Without a baseline there is no position
   * to read from, so it does nothing until the first record has been delivered.
   */
  catchUp(): void {
    if (this.closed || this.last === undefined) return;
    if (this.filling) {
      this.readAgain = true;
      return;
    }
    this.cancelRetry();
    void this.fill();
  }

  close(): void {
    this.closed = true;
    this.cancelRetry();
    this.buffered = [];
  }

  /** Delivers up to the first gap; returns the records from the gap on. */
  private deliverContiguous(records: readonly TaskEventRecord[]): TaskEventRecord[] {
    for (let i = 0; i < records.length; i++) {
      if (this.closed) return [];
      const r = records[i]!;
      if (this.last === undefined || r.seq === this.last + 1) this.deliver(r);
      else if (r.seq > this.last) return records.slice(i);
    }
    return [];
  }

  private deliver(record: TaskEventRecord): void {
    // Before the call: a listener that publishes to this task re-enters offer() and must see it.
    this.last = record.seq;
    try {
      this.opts.listener(record);
    } catch (err) {
      this.opts.onListenerError(err);
    }
  }

  private buffer(records: readonly TaskEventRecord[]): void {
    const room = MAX_BUFFERED - this.buffered.length;
    if (room >= records.length) {
      this.buffered.push(...records);
      return;
    }
    this.buffered.push(...records.slice(0, Math.max(0, room)));
    // What was dropped may have been committed after the running read looked; look once more.
    this.readAgain = true;
  }

  /** One at a time (guarded by `filling`): reads the log past `last`, then drains the buffer. */
  private async fill(): Promise<void> {
    this.filling = true;
    try {
      for (;;) {
        this.readAgain = false;
        const before = this.last;
        await this.readLog();
        if (this.closed) return;
        const gapRemains = this.drainBuffered();
        if (this.closed || (!gapRemains && !this.readAgain)) return;
        if (gapRemains && this.last === before && !this.readAgain) {
          // The log does not have them yet (a lagging read replica): not worth a hot loop.
          this.scheduleRetry();
          return;
        }
      }
    } catch (err) {
      if (this.closed) return;
      this.opts.onReadError(err);
      this.scheduleRetry();
    } finally {
      this.filling = false;
    }
  }

  private async readLog(): Promise<void> {
    for (;;) {
      const after = this.last as number;
      const page = await this.opts.readEvents(this.opts.taskId, after, PAGE);
      // The log is gapless, so everything it returns past `last` is delivered as it comes.
      for (const r of page) {
        if (this.closed) return;
        if (r.seq > (this.last as number)) this.deliver(r);
      }
      if (this.closed || page.length < PAGE) return;
    }
  }

  /** Returns true when the buffer still starts past a gap. */
  private drainBuffered(): boolean {
    while (this.buffered.length > 0) {
      const batch = this.buffered.sort(bySeq);
      this.buffered = [];
      const rest = this.deliverContiguous(batch);
      if (rest.length > 0) {
        // Records buffered by listeners re-entering during delivery go after the rest.
        this.buffered = rest.concat(this.buffered);
        return true;
      }
    }
    return false;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.fill();
    }, this.opts.retryDelayMs);
    this.retryTimer.unref();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
