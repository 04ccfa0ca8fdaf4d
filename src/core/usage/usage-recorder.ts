/**
 * Usage records of calls that did not create a task (cards, gets, lists, errors, follow-up
 * messages, MCP discovery): queued off the request path and written in batches, bounded. A crash
 * loses what the queue held (at most `flushIntervalMs` of calls): these records are for analytics,
 * not billing — a task, which is billed, is recorded in its own commit (task-usage.ts) — except the
 * runs answered without a task that carry a charge or tokens. When the queue is full, new records
 * are dropped and counted rather than holding memory or the loop; the charged ones are kept.
 *
 * Also runs the hourly rollups and the retention sweep.
 */
import type { SkillCostConfig, UsageConfig } from '../../config/usage-schema.js';
import type { UsageAmend, UsageRecord } from '../../store/usage-record.js';
import type { UsageStore } from '../../store/usage-store.js';
import { uuidv7 } from '../ids/uuid-v7.js';
import { AmendQueue } from './amend-queue.js';
import { copyDraftFields, copyReportedFields, UsageDraft } from './usage-draft.js';
import { tokenCost } from './token-cost.js';

export interface UsageRecorderOptions {
  store: UsageStore;
  replica: string;
  config: UsageConfig;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  now?: () => number;
  /** the configured cost of an agent's skill, for a run that answered without a task */
  cost?: (agentId: string, skill: string | undefined) => SkillCostConfig | undefined;
  /**
   * Whether an agent id names a registered agent: any other is recorded as `other` (issue 25 U1:
   * anonymous callers naming random agents would otherwise grow the usage store without bound).
   */
  isAgent?: (agentId: string) => boolean;
}

/** A record that money or a token budget reads: never dropped for a full queue. */
function isCharged(r: UsageRecord): boolean {
  return r.cost > 0 || r.promptTokens > 0 || r.completionTokens > 0;
}

/** The one value unknown agents and routes are recorded under, as on /metrics. */
export const OTHER = 'other';

/** How the answer went out, as the listener saw it. */
export interface CallEnd {
  /** HTTP status, or the gRPC-equivalent HTTP status */
  status: number;
  /** ms from arrival to the end of the answer */
  latencyMs: number;
  bytesOut?: number;
  /** the answer did not finish (the client went away) */
  aborted?: boolean;
}

/**
 * Told of every call as its answer goes out, whether usage records are on or not: what else
 * follows calls (metrics, the access log) reads the same draft instead of opening its own.
 */
export interface CallObserver {
  callEnded(d: UsageDraft, end: CallEnd): void;
}

const HOUR = 3_600_000;
/** Rows of an hour may still arrive this long after it ends (commits in flight, the queue's delay). */
const ROLLUP_GRACE_MS = 2 * 60_000;
const ROLLUP_EVERY_MS = 5 * 60_000;
/** Rows per store write; see writeInSlices. */
const ROWS_PER_WRITE = 250;
/** While usage writes keep failing, a line with the totals this often. */
const OUTAGE_LOG_EVERY_MS = 60_000;

/** Writes failing since `since`: what they lost. */
interface WriteOutage {
  since: number;
  loggedAt: number;
  batches: number;
  records: number;
  amends: number;
}

function lostSince(o: WriteOutage, now: number) {
  return { failingForMs: now - o.since, lostBatches: o.batches, lostRecords: o.records, lostAmends: o.amends };
}

export class UsageRecorder {
  readonly enabled: boolean;
  private records: UsageRecord[] = [];
  /** in flat columns: an amend per blocking task would otherwise outlive a scavenge or three (ADR 0064) */
  private amends = new AmendQueue();
  /** the queue last written, emptied, for the next swap */
  private spareAmends?: AmendQueue;
  /** records dropped because the queue was full, since start */
  dropped = 0;
  private timer?: NodeJS.Timeout;
  private maintenance?: NodeJS.Timeout;
  private writing?: Promise<void>;
  /** usage writes failing since, and what they lost; undefined while they succeed */
  private outage?: WriteOutage;
  private readonly now: () => number;
  private readonly observers: CallObserver[] = [];

  constructor(private readonly o: UsageRecorderOptions) {
    this.enabled = o.config.enabled;
    this.now = o.now ?? Date.now;
  }

  /** Adds an observer of every call's end; before the listeners start. */
  observe(o: CallObserver): void {
    this.observers.push(o);
  }

  /** Calls are followed (drafts opened): records are on, or something observes calls. */
  get tracking(): boolean {
    return this.enabled || this.observers.length > 0;
  }

  /** A draft for a call arriving now, or undefined when no one follows calls. */
  open(face: string): UsageDraft | undefined {
    return this.tracking ? new UsageDraft(face, this.now()) : undefined;
  }

  /** The answer is out: the observers are told; the call's record, or the timing of the task record it created. */
  finish(d: UsageDraft, end: CallEnd): void {
    if (d.skip) return;
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.callEnded(d, end);
    if (!this.enabled) return;
    if (d.createdTask && d.taskId !== undefined) {
      if (this.isFull()) return;
      this.amends.push(d.taskId, end.latencyMs, d.ttfbMs, d.bytesIn, end.bytesOut);
      return;
    }
    if (d.outcome === undefined) {
      d.outcome = end.aborted ? 'CLIENT_CLOSED' : end.status < 400 ? 'OK' : `HTTP_${end.status}`;
      d.error = end.status >= 400;
    }
    const r: UsageRecord = {
      id: uuidv7(),
      kind: 'call',
      // whole ms: the column is an integer (PostgreSQL refuses a fraction)
      time: Math.round(d.startedAt + end.latencyMs),
      startedAt: d.startedAt,
      final: true,
      replica: this.o.replica,
      face: d.face,
      operation: d.operation ?? 'unknown',
      outcome: d.outcome,
      error: d.error,
      latencyMs: end.latencyMs,
      promptTokens: d.reported?.promptTokens ?? 0,
      completionTokens: d.reported?.completionTokens ?? 0,
      cost: this.costOf(d),
    };
    copyReportedFields(d.reported, r);
    if (d.ttfbMs !== undefined) r.ttfbMs = d.ttfbMs;
    if (end.bytesOut !== undefined) r.bytesOut = end.bytesOut;
    if (d.agent !== undefined) r.agent = !this.o.isAgent || this.o.isAgent(d.agent) ? d.agent : OTHER;
    if (d.taskId !== undefined) r.taskId = d.taskId;
    if (d.contextId !== undefined) r.contextId = d.contextId;
    if (d.subject !== undefined) r.subject = d.subject;
    copyDraftFields(d, r);
    this.enqueue(this.records, r);
  }

  /** A call is charged only when it ran an agent to an answer without a task (a task is charged on its own row). */
  private costOf(d: UsageDraft): number {
    if (!d.answeredWithoutTask || d.agent === undefined) return 0;
    const price = this.o.cost?.(d.agent, d.skill);
    if (!price) return 0;
    return (price.perCall ?? 0) + tokenCost(price, d.reported);
  }

  /**
   * A record that carries a charge or reported tokens is queued even past queueLimit: monthly
   * budgets (quota-engine.ts) and invoices read these rows, so dropping one would serve a call for
   * free and let a budget be overrun. They are few (priced or token-reporting runs answered
   * without a task), and a store that fails its writes discards its slices instead of growing the
   * queue, so the overshoot is bounded by how far the store is behind, not by its outage.
   */
  private enqueue(queue: UsageRecord[], item: UsageRecord): void {
    if (isCharged(item) || !this.isFull()) queue.push(item);
  }

  /** The queue holds queueLimit records and amends: the call is dropped (and counted). */
  private isFull(): boolean {
    if (this.records.length + this.amends.length < this.o.config.queueLimit) return false;
    if (this.dropped++ % 1000 === 0) this.o.log.warn({ dropped: this.dropped }, 'usage queue full: call records dropped (the store is not keeping up)');
    return true;
  }

  /** Starts the periodic write, rollups and retention sweep. */
  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.o.config.flushIntervalMs);
    this.timer.unref();
    this.maintenance = setInterval(() => void this.maintain(), ROLLUP_EVERY_MS);
    this.maintenance.unref();
  }

  /** Writes what is queued; one batch at a time. */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    if (this.records.length === 0 && this.amends.length === 0) return;
    const records = this.records;
    const amends = this.amends;
    this.records = [];
    this.amends = this.spareAmends ?? new AmendQueue();
    this.spareAmends = undefined;
    this.writing = this.writeInSlices(records, amends);
    await this.writing;
    this.writing = undefined;
    amends.clear();
    this.spareAmends = amends;
  }

  /**
   * A second's queue in slices, letting requests in between: on SQLite a write runs on the event
   * loop, and 10,000 amends written at once held every request for 150 ms once a second (the
   * blocking echo's p99, issue 18); a slice of 250 takes about half a millisecond. (Slices of 128
   * were tried for issue 26: each write's wait halved, twice as many requests met one, and the
   * tail did not move; docs/benchmarks.md, tail16.)
   */
  private async writeInSlices(records: UsageRecord[], amends: AmendQueue): Promise<void> {
    for (let i = 0; i < records.length; i += ROWS_PER_WRITE) await this.sliceWritten(this.writeSlice(records.slice(i, i + ROWS_PER_WRITE), []), Math.min(ROWS_PER_WRITE, records.length - i), 0);
    for (let i = 0; i < amends.length; i += ROWS_PER_WRITE) await this.sliceWritten(this.writeSlice([], amends.slice(i, i + ROWS_PER_WRITE)), 0, Math.min(ROWS_PER_WRITE, amends.length - i));
  }

  /**
   * Starts one slice's write (a store that throws at once fails as one that rejects). No async
   * frame holds the slice: 250 amends as objects, ~40 KB, would otherwise stay alive through the
   * store's answer and the pause after it and be copied by every scavenge meanwhile (issue 26, tail21).
   */
  private writeSlice(records: UsageRecord[], amends: UsageAmend[]): Promise<void> {
    try {
      return this.o.store.write(records, amends);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Waits for a slice's write (counted as lost if it fails), then lets requests run before the next. */
  private async sliceWritten(written: Promise<void>, records: number, amends: number): Promise<void> {
    try {
      await written;
      if (this.outage) this.endOutage();
    } catch (err) {
      this.writeFailed(err, records, amends);
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * A store that stays down (a database outage, a stopped commit thread) fails a write every
   * flush: the first failure is logged with its cause, the rest once a minute as totals, and the
   * recovery once with what was lost, instead of a line a second.
   */
  private writeFailed(err: unknown, records: number, amends: number): void {
    const now = this.now();
    if (!this.outage) {
      this.outage = { since: now, loggedAt: now, batches: 1, records, amends };
      this.o.log.error({ err, records, amends }, 'usage records could not be written; this batch is lost');
      return;
    }
    const o = this.outage;
    o.batches++;
    o.records += records;
    o.amends += amends;
    if (now - o.loggedAt < OUTAGE_LOG_EVERY_MS) return;
    o.loggedAt = now;
    this.o.log.error({ err, ...lostSince(o, now) }, 'usage records still cannot be written; these batches are lost');
  }

  private endOutage(): void {
    const o = this.outage!;
    this.outage = undefined;
    this.o.log.warn(lostSince(o, this.now()), 'usage records are written again');
  }

  /** Rolls up closed hours and deletes what is past retention. Every replica may run it: both are idempotent. */
  async maintain(): Promise<void> {
    const now = this.now();
    try {
      await this.o.store.rollup(now - ROLLUP_GRACE_MS);
      await this.o.store.prune(now - this.o.config.retentionDays * 24 * HOUR);
    } catch (err) {
      this.o.log.warn({ err }, 'usage rollup or retention sweep failed; it runs again later');
    }
  }

  /** Stops the timers and writes what is queued. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.maintenance);
    this.timer = undefined;
    await this.flush();
  }
}
