/**
 * Whether anyone but this replica listens to the events channel, so a replica running alone skips
 * its PUBLISHes (issue 26): with one replica every task's PUBLISH went to Redis and came straight
 * back to this replica's own subscriber, to be dropped there as its own echo.
 *
 * The check is PUBSUB NUMSUB of the events channel, asked every `pollMs` while subscribed: 1 is
 * this replica's own subscription, anything more (another replica, of any version, or any other
 * subscriber) means publishing. A replica that joins is counted from its SUBSCRIBE on; it reads
 * the event log for everything committed before that (its streams start from a snapshot or a
 * Last-Event-ID and catch up from the log), so what it can miss is only what this replica skipped
 * after the last NUMSUB that found it alone was sent. Those records are remembered, the last one
 * per task, and republished when a check finds a listener; a subscriber that receives such a tail
 * sees the gap before it and fills it from the log, as after a dropped PUBLISH. Remembered records
 * older than the last check that found this replica alone are let go: nobody could need them.
 * A replica of this build that subscribes also greets the others (RedisEventBus), which makes them
 * publish at once instead of at their next check; it waits for their answers before it opens.
 *
 * Anything uncertain (the subscriber connection down, a check that failed) counts as not alone.
 */
import type { TaskEventRecord } from '../../store/task-event-record.js';

export interface LonePublisherOptions {
  /** PUBSUB NUMSUB of the events channel */
  countListeners: () => Promise<number>;
  /** PUBLISHes records that were skipped, the last of each task */
  republish: (records: TaskEventRecord[]) => void;
  /** how often the listeners are counted while subscribed; default 500 ms */
  pollMs?: number;
}

export class LonePublisher {
  private lone = false;
  /** bumped whenever a count in flight must not count any more (subscriber down, closed) */
  private epoch = 0;
  private inFlight = false;
  private timer: NodeJS.Timeout | undefined;
  /** per task, the last record skipped since the check in flight was sent */
  private skipped = new Map<string, TaskEventRecord>();
  /** per task, the last record skipped before the check in flight was sent */
  private skippedBeforeCheck = new Map<string, TaskEventRecord>();
  private readonly pollMs: number;

  constructor(private readonly opts: LonePublisherOptions) {
    this.pollMs = opts.pollMs ?? 500;
  }

  /** No other listener was counted since the last check was sent: PUBLISH may be skipped. */
  get alone(): boolean {
    return this.lone;
  }

  /** A task's records not published because this replica is alone: the last is kept for a republish. */
  skip(last: TaskEventRecord): void {
    this.skipped.set(last.taskId, last);
  }

  /** Subscribed (again): counting starts now and repeats every pollMs. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.pollMs);
    this.timer.unref();
    void this.check();
  }

  /** Another replica said it listens now (its greeting): publish from here on, skipped tails first. */
  heard(): void {
    // A count on its way may have been taken before that replica subscribed.
    this.epoch++;
    this.publishAgain();
  }

  /** The subscriber connection is down: nothing is known, so everything is published, skipped tails first. */
  stop(): void {
    this.epoch++;
    clearInterval(this.timer);
    this.timer = undefined;
    this.publishAgain();
  }

  /** The bus closes: nothing more is published. */
  close(): void {
    this.epoch++;
    clearInterval(this.timer);
    this.timer = undefined;
    this.lone = false;
    this.skipped.clear();
    this.skippedBeforeCheck.clear();
  }

  private async check(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    const epoch = this.epoch;
    // Skipped from here on may be needed by a replica that subscribes while the count is on its way.
    for (const [taskId, record] of this.skipped) this.skippedBeforeCheck.set(taskId, record);
    this.skipped = new Map();
    let listeners: number | undefined;
    try {
      listeners = await this.opts.countListeners();
    } catch {
      listeners = undefined;
    } finally {
      this.inFlight = false;
    }
    if (epoch !== this.epoch) return;
    if (listeners === 1) {
      this.lone = true;
      this.skippedBeforeCheck.clear();
      return;
    }
    this.publishAgain();
  }

  private publishAgain(): void {
    this.lone = false;
    if (this.skipped.size === 0 && this.skippedBeforeCheck.size === 0) return;
    const tails = this.skippedBeforeCheck;
    for (const [taskId, record] of this.skipped) {
      tails.delete(taskId);
      tails.set(taskId, record);
    }
    this.skipped = new Map();
    this.skippedBeforeCheck = new Map();
    this.opts.republish(Array.from(tails.values()));
  }
}
