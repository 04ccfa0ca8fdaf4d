/**
 * The audit log: the AuditSink the producers call. record() only queues; a writer appends the
 * queue to the store in batches (whatever arrived while the previous batch was being written goes
 * in the next one, so a burst costs one transaction per batch, not per event), and hands every
 * stored record to the webhook forwarder, if any.
 *
 * What is lost, and when: records still queued when the process dies (kill -9, crash) were never
 * stored; a graceful close() writes them first. A queue over `queueLimit` (the store has been down
 * for long) drops new records, counted in `dropped` and logged. A failed write keeps its batch at the
 * head of the queue and retries with backoff, so the chain keeps the order of record() calls.
 */
import type { AuditAppend, AuditStore } from '../../store/audit-store.js';
import type { AuditEvent, AuditSink } from './audit-event.js';
import type { AuditWebhookForwarder } from './audit-webhook.js';

export interface AuditLogLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface AuditLogOptions {
  store: AuditStore;
  /** this replica's id, written into every record */
  replica: string;
  webhook?: AuditWebhookForwarder;
  log?: AuditLogLogger;
  /** records waiting to be written; beyond it new ones are dropped (default 10000) */
  queueLimit?: number;
  /** records per append transaction (default 500) */
  maxBatch?: number;
  /** first retry delay after a failed write, doubled up to 30 s (default 500 ms) */
  retryBaseMs?: number;
  now?: () => number;
}

const silent: AuditLogLogger = { warn() {}, error() {} };
const MAX_RETRY_MS = 30_000;

interface Queued {
  event: AuditEvent;
  time: number;
}

export class AuditLog implements AuditSink {
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  /** records dropped because the queue was full */
  dropped = 0;
  private readonly queueLimit: number;
  private readonly maxBatch: number;
  private readonly retryBaseMs: number;
  private readonly log: AuditLogLogger;
  private readonly now: () => number;

  constructor(private readonly opts: AuditLogOptions) {
    this.queueLimit = opts.queueLimit ?? 10_000;
    this.maxBatch = opts.maxBatch ?? 500;
    this.retryBaseMs = opts.retryBaseMs ?? 500;
    this.log = opts.log ?? silent;
    this.now = opts.now ?? Date.now;
  }

  record(event: AuditEvent): void {
    try {
      if (this.closed) return;
      if (this.queue.length >= this.queueLimit) {
        // Logged on the first drop and every 1000th after, so a long outage does not flood the log.
        if (this.dropped++ % 1000 === 0) this.log.error({ dropped: this.dropped, action: event.action }, 'audit log queue full: records are being dropped');
        return;
      }
      this.queue.push({ event, time: this.now() });
      this.schedule();
    } catch {
      // record() never throws into a producer's request path.
    }
  }

  /** Resolves once everything recorded before the call is written (or its write failed). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queue.length > 0) {
      this.clearRetry();
      await this.startWrite();
    }
  }

  /** Writes what is queued, stops accepting records and drains the webhook (bounded). */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    this.closed = true;
    this.clearRetry();
    await this.opts.webhook?.close();
  }

  private schedule(): void {
    if (this.writing || this.retryTimer) return;
    // On the next turn, so every record() of the current one joins the batch.
    this.writing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write());
  }

  private startWrite(): Promise<void> {
    this.writing = this.write();
    return this.writing;
  }

  private async write(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.slice(0, this.maxBatch);
        try {
          const stored = await this.opts.store.append(batch.map((q) => toAppend(q, this.opts.replica)));
          this.queue.splice(0, batch.length);
          this.failures = 0;
          this.opts.webhook?.enqueue(stored);
        } catch (err) {
          this.failures++;
          const delay = Math.min(MAX_RETRY_MS, this.retryBaseMs * 2 ** (this.failures - 1));
          this.log.warn({ err, queued: this.queue.length, retryInMs: delay }, 'audit log write failed; retrying');
          if (!this.closed) {
            this.retryTimer = setTimeout(() => {
              this.retryTimer = undefined;
              this.schedule();
            }, delay);
            this.retryTimer.unref();
          }
          return;
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}

function toAppend(q: Queued, replica: string): AuditAppend {
  const e = q.event;
  return {
    time: q.time,
    replica,
    action: e.action,
    outcome: e.outcome,
    actor: e.actor,
    ...(e.actorClient !== undefined ? { actorClient: e.actorClient } : {}),
    ...(e.target !== undefined ? { target: e.target } : {}),
    ...(e.clientAddress !== undefined ? { clientAddress: e.clientAddress } : {}),
    ...(e.userAgent !== undefined ? { userAgent: e.userAgent } : {}),
    ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
  };
}
