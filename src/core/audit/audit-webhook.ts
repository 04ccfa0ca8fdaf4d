/**
 * Forwards stored audit records to an operator's collector (a SIEM): each record is POSTed as one
 * JSON object, through the outbound SSRF guard and the pinned client (src/net), one request at a
 * time so the receiver sees them in seq order. A failed delivery is retried with backoff, then
 * dropped and logged; the forwarder has its own bounded queue, so a slow or dead receiver never
 * holds up the appends (the database stays the record of truth).
 */
import { guardedFetch, SsrfRejectedError, type SsrfGuard } from '../../net/index.js';
import type { AuditRecord } from '../../store/audit-store.js';

export interface AuditWebhookOptions {
  url: string;
  headers?: Record<string, string>;
  guard: SsrfGuard;
  /** records waiting to be sent; beyond it the oldest are dropped (default 10000) */
  queueLimit?: number;
  /** attempts per record before it is dropped (default 5) */
  maxAttempts?: number;
  /** first retry delay, doubled per attempt (default 1000 ms) */
  retryBaseMs?: number;
  /** per request, connect to end of response (default 10000 ms) */
  timeoutMs?: number;
  log?: { warn(obj: object, msg?: string): void };
}

export class AuditWebhookForwarder {
  private readonly queue: AuditRecord[] = [];
  private running: Promise<void> | undefined;
  private closed = false;
  private wake: (() => void) | undefined;
  /** records given up (attempts exhausted, refused by the guard, or pushed out of a full queue) */
  dropped = 0;
  /** records the receiver accepted */
  delivered = 0;
  private readonly fetch: ReturnType<typeof guardedFetch>;

  constructor(private readonly opts: AuditWebhookOptions) {
    this.fetch = guardedFetch(opts.guard);
  }

  enqueue(records: readonly AuditRecord[]): void {
    if (this.closed) return;
    const limit = this.opts.queueLimit ?? 10_000;
    for (const r of records) {
      if (this.queue.length >= limit) {
        this.queue.shift();
        this.dropped++;
      }
      this.queue.push(r);
    }
    this.running ??= this.run().finally(() => (this.running = undefined));
  }

  /** Stops after the record in flight; what is still queued is not sent (it is in the database). */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.running;
  }

  /** Resolves when the queue is empty (every record delivered or dropped); for tests and shutdown. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const record = this.queue[0];
      if (!record) return;
      await this.deliver(record);
      this.queue.shift();
    }
  }

  private async deliver(record: AuditRecord): Promise<void> {
    const maxAttempts = this.opts.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const error = await this.send(record);
      if (error === undefined) {
        this.delivered++;
        return;
      }
      if (!error.retryable || attempt >= maxAttempts || this.closed) {
        this.dropped++;
        this.opts.log?.warn({ seq: record.seq, attempts: attempt, error: error.reason }, 'audit webhook: record not delivered');
        return;
      }
      await this.sleep((this.opts.retryBaseMs ?? 1000) * 2 ** (attempt - 1));
    }
  }

  private async send(record: AuditRecord): Promise<{ reason: string; retryable: boolean } | undefined> {
    try {
      const res = await this.fetch(this.opts.url, {
        method: 'POST',
        headers: { ...this.opts.headers, 'content-type': 'application/json', 'user-agent': 'agentport-audit' },
        body: JSON.stringify(record),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      // The body is never used; read it so the connection is released.
      await res.arrayBuffer().catch(() => {});
      if (res.ok) return undefined;
      return { reason: `HTTP ${res.status}`, retryable: res.status >= 500 || res.status === 408 || res.status === 429 };
    } catch (err) {
      if (err instanceof SsrfRejectedError) return { reason: err.reason, retryable: err.retryable };
      return { reason: err instanceof Error ? err.message : String(err), retryable: true };
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      t.unref();
      function done() {
        resolve();
      }
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
}
