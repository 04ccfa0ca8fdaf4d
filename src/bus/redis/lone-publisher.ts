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
 *
 * A record is remembered by its task id and seq only, and read back from the event log to be
 * republished (issue 26, ADR 0091): it was committed before it was skipped, so the log has it. Kept
 * whole, a lone replica's last ~0.5 s of records (five or six small objects each, ~340 bytes)
 * outlived the next young-generation collection, which copied them and often promoted them; a
 * republish is rare (a replica joins, or the subscriber connection drops) and may read for it.
 * A replica of this build that subscribes also greets the others (RedisEventBus), which makes them
 * publish at once instead of at their next check; it waits for their answers before it opens.
 *
 * Anything uncertain (the subscriber connection down, a check that failed) counts as not alone.
 */
import type { TaskEventRecord } from '../../store/task-event-record.js';
import type { EventLogReader } from './ordered-subscription.js';

/** The last skipped record of a task, by position: its record is read back from the log (republishFromLog). */
export interface SkippedTail {
  taskId: string;
  seq: number;
}

export interface LonePublisherOptions {
  /** PUBSUB NUMSUB of the events channel */
  countListeners: () => Promise<number>;
  /** PUBLISHes again the last skipped record of each task */
  republish: (tails: SkippedTail[]) => void;
  /** how often the listeners are counted while subscribed; default 500 ms */
  pollMs?: number;
}

export class LonePublisher {
  private lone = false;
  /** spells of being alone begun so far: each time a check finds this replica alone after it was not */
  private spells = 0;
  /** bumped whenever a count in flight must not count any more (subscriber down, closed) */
  private epoch = 0;
  private inFlight = false;
  private timer: NodeJS.Timeout | undefined;
  /** per task, the seq of the last record skipped since the check in flight was sent */
  private skipped = new Map<string, number>();
  /** per task, the seq of the last record skipped before the check in flight was sent */
  private skippedBeforeCheck = new Map<string, number>();
  private readonly pollMs: number;

  constructor(private readonly opts: LonePublisherOptions) {
    this.pollMs = opts.pollMs ?? 500;
  }

  /** No other listener was counted since the last check was sent: PUBLISH may be skipped. */
  get alone(): boolean {
    return this.lone;
  }

  /**
   * The number of the present spell of being alone, undefined while not alone. A new number means
   * this replica was not alone at some moment since the last (ADR 0095: what others wrote then).
   */
  get spell(): number | undefined {
    return this.lone ? this.spells : undefined;
  }

  /** A task's records not published because this replica is alone: the last one's seq is kept for a republish. */
  skip(last: TaskEventRecord): void {
    this.skipped.set(last.taskId, last.seq);
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
    for (const [taskId, seq] of this.skipped) this.skippedBeforeCheck.set(taskId, seq);
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
      if (!this.lone) this.spells++;
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
    for (const [taskId, seq] of this.skipped) {
      tails.delete(taskId);
      tails.set(taskId, seq);
    }
    this.skipped = new Map();
    this.skippedBeforeCheck = new Map();
    this.opts.republish(Array.from(tails, ([taskId, seq]) => ({ taskId, seq })));
  }
}

/** Log reads in flight at once for a republish: it can name every task of the last second, and the store's pool serves requests too. */
const READS_IN_FLIGHT = 4;

export interface RepublishFromLogOptions {
  readEvents: EventLogReader;
  /** PUBLISHes one task's record */
  publish: (record: TaskEventRecord) => void;
  /** wait before reading a tail again after a failed read */
  retryMs: number;
  /** the bus closed: stop */
  closed: () => boolean;
  /** the first failed read of this republish */
  onReadError: (err: unknown) => void;
}

/**
 * Publishes each tail's record as the log holds it. A read that fails is tried again every
 * `retryMs` until the bus closes: a listener on another replica that waits for that task has no
 * other way to learn of its tail, and the log it would fill a gap from is the same store. A tail
 * the log no longer has (the task deleted since) is left out: there is nothing left to tell.
 * Records published here may follow newer ones of the same task; a subscriber drops a record it
 * is past (OrderedSubscription).
 */
export async function republishFromLog(tails: readonly SkippedTail[], o: RepublishFromLogOptions): Promise<void> {
  let next = 0;
  let logged = false;
  const readTail = async ({ taskId, seq }: SkippedTail): Promise<TaskEventRecord | undefined> => {
    for (;;) {
      if (o.closed()) return undefined;
      try {
        return (await o.readEvents(taskId, seq - 1, 1))[0];
      } catch (err) {
        if (!logged) o.onReadError(err);
        logged = true;
        // Unref'd: a retry waiting out a store outage must not hold a process that is shutting down.
        await new Promise((resolve) => setTimeout(resolve, o.retryMs).unref());
      }
    }
  };
  const reader = async (): Promise<void> => {
    while (next < tails.length) {
      const record = await readTail(tails[next++]!);
      if (record && !o.closed()) o.publish(record);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, tails.length) }, reader));
}
