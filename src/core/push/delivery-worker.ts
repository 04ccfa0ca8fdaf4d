/**
 * Drains the durable push outbox (docs/decisions/0004-push.md). The engine writes outbox rows in
 * the same transaction as the events they carry; this worker claims due rows with a lease, sends
 * them and records the outcome. Delivery is at-least-once: a crash after the POST and before
 * markDelivered sends the row again once its lease expires. Order per push config (what A2A §9
 * needs) comes from the store, which only hands out the oldest pending row of each task's config;
 * different configs and tasks go out concurrently, so a webhook that is down delays only itself.
 */
import type { Metrics } from '../../observability/metrics/index.js';
import { contextWith, failSpan, SpanKind, SpanStatusCode, startTaskSpan, tracingOn, type Context } from '../../observability/tracing/index.js';
import type { Task } from '../../protocol/a2a/types.js';
import type { OutboxEntry, Store } from '../../store/store.js';
import { applyEvent } from '../task-state/task-projection.js';
import { storedBodyVersion, untagged, type LegacyPushBodies, type PushBodyVersion } from './push-body-version.js';
import type { PushJwtSigner } from './push-jwt.js';
import type { SsrfGuard } from '../../net/index.js';
import { sendWebhook, type WebhookResult } from './webhook-sender.js';

/** pino's (obj, msg) call shape, so a pino child logger fits as is. */
export interface PushDeliveryLog {
  debug(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export interface PushDeliveryWorkerOptions {
  store: Store;
  guard: SsrfGuard;
  signer?: PushJwtSigner;
  /** per attempt, connect to end of response; A2A §9 suggests 10–30 s */
  timeoutMs?: number;
  /** attempts before a row is given up */
  maxAttempts?: number;
  backoff?: Partial<BackoffPolicy>;
  /** how often the outbox is polled when nothing kicks the worker */
  pollMs?: number;
  /** claim lease; must outlast an attempt or a slow delivery is sent twice */
  leaseMs?: number;
  /** deliveries in flight at once (each to a different push config) */
  concurrency?: number;
  maxResponseBytes?: number;
  log?: PushDeliveryLog;
  /** in [0, 1); for tests */
  random?: () => number;
  /** bodies for configs registered through a v0.3 or v0.1 binding; without one, they get v1.0 bodies */
  legacyBodies?: LegacyPushBodies;
  /** metrics on: deliveries sent, retried and given up */
  metrics?: Pick<Metrics, 'pushDelivery'>;
}

export const PUSH_DELIVERY_DEFAULTS = {
  timeoutMs: 10_000,
  maxAttempts: 8,
  backoff: { baseMs: 1_000, maxMs: 5 * 60_000 },
  pollMs: 1_000,
  concurrency: 16,
} as const;

const silentLog: PushDeliveryLog = { debug() {}, warn() {}, error() {} };

/**
 * Delay before attempt `attempts + 1`: exponential in the attempts made so far, capped, with the
 * upper half jittered so receivers recovering from an outage are not hit in lockstep.
 */
export function backoffDelay(attempts: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

export class PushDeliveryWorker {
  private readonly store: Store;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly log: PushDeliveryLog;
  private readonly random: () => number;

  private running = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private kickPending = false;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  /** task and config → its delivery in flight; one per config keeps its order even if a lease lapses */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly opts: PushDeliveryWorkerOptions) {
    this.store = opts.store;
    this.timeoutMs = opts.timeoutMs ?? PUSH_DELIVERY_DEFAULTS.timeoutMs;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? PUSH_DELIVERY_DEFAULTS.maxAttempts);
    this.backoff = {
      baseMs: opts.backoff?.baseMs ?? PUSH_DELIVERY_DEFAULTS.backoff.baseMs,
      maxMs: opts.backoff?.maxMs ?? PUSH_DELIVERY_DEFAULTS.backoff.maxMs,
    };
    this.pollMs = opts.pollMs ?? PUSH_DELIVERY_DEFAULTS.pollMs;
    // An attempt takes at most timeoutMs plus two store writes; leave generous room.
    this.leaseMs = opts.leaseMs ?? Math.max(60_000, this.timeoutMs * 3);
    this.concurrency = Math.max(1, opts.concurrency ?? PUSH_DELIVERY_DEFAULTS.concurrency);
    this.log = opts.log ?? silentLog;
    this.random = opts.random ?? Math.random;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.kick();
  }

  /** Looks at the outbox now instead of at the next poll; the engine calls it after a commit with outbox rows. */
  kick(): void {
    if (!this.running || this.kickPending) return;
    this.kickPending = true;
    setImmediate(() => {
      this.kickPending = false;
      void this.claimRound();
    });
  }

  /** Stops claiming and waits for the deliveries in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    while (this.claiming || this.inFlight.size > 0) {
      await Promise.allSettled([this.claiming, ...this.inFlight.values()]);
    }
  }

  private schedulePoll(): void {
    clearTimeout(this.pollTimer);
    if (!this.running) return;
    this.pollTimer = setTimeout(() => void this.claimRound(), this.pollMs);
    this.pollTimer.unref();
  }

  private claimRound(): Promise<void> {
    if (this.claiming) {
      this.claimAgain = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      try {
        do {
          this.claimAgain = false;
          await this.claimOnce();
        } while (this.claimAgain && this.running);
      } finally {
        this.claiming = undefined;
        this.schedulePoll();
      }
    })();
    return this.claiming;
  }

  private async claimOnce(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (!this.running || free <= 0) return;
    let entries: OutboxEntry[];
    try {
      entries = await this.store.claimOutbox(Date.now(), free, this.leaseMs);
    } catch (err) {
      this.log.error({ err }, 'push outbox claim failed');
      return;
    }
    for (const entry of entries) {
      const key = `${entry.taskId}\n${entry.configId}`;
      // Still delivering this config's previous row (its lease lapsed): leave this claim to expire.
      if (this.inFlight.has(key)) continue;
      const delivery = this.deliver(entry).finally(() => {
        this.inFlight.delete(key);
        // The config's next row is claimable now, and a slot is free.
        this.kick();
      });
      this.inFlight.set(key, delivery);
    }
    // A full batch suggests more rows are due.
    if (entries.length === free) this.claimAgain = true;
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    const ctx = { outboxId: entry.id, taskId: entry.taskId, configId: entry.configId, seq: entry.seq };
    try {
      const stored = await this.store.getPushConfig(entry.taskId, entry.configId);
      if (!stored) {
        // §9: nothing more is sent after a delete; the row is done.
        await this.store.markDelivered(entry.id);
        this.log.debug(ctx, 'push config deleted; outbox row dropped');
        return;
      }
      let result: WebhookResult;
      try {
        const version = storedBodyVersion(stored.config);
        const legacy = version === '1.0' ? undefined : this.opts.legacyBodies?.[version];
        const body = legacy ? legacy(await this.taskAt(entry.taskId, entry.seq)) : entry.payload;
        const send = (trace?: Context) =>
          sendWebhook(untagged(stored.config), body as object, {
            trace,
            bodyVersion: legacy ? version : ('1.0' as PushBodyVersion),
            timeoutMs: this.timeoutMs,
            guard: this.opts.guard,
            signer: this.opts.signer,
            maxResponseBytes: this.opts.maxResponseBytes,
          });
        result = tracingOn() ? await this.tracedSend(stored.agentId, entry, send) : await send();
      } catch (err) {
        result = { ok: false, retryable: true, error: err instanceof Error ? err.message : String(err) };
      }
      if (result.ok) {
        await this.store.markDelivered(entry.id);
        this.opts.metrics?.pushDelivery('sent');
        this.log.debug({ ...ctx, status: result.status }, 'push delivered');
        return;
      }
      const attempts = entry.attempts + 1;
      const error = result.error ?? 'delivery failed';
      if (result.detail) this.log.warn({ ...ctx, attempts, reason: result.detail }, 'push notification URL refused by the outbound policy');
      if (!result.retryable || attempts >= this.maxAttempts) {
        await this.store.markFailed(entry.id, attempts, null, error);
        this.opts.metrics?.pushDelivery('given_up');
        this.log.warn({ ...ctx, attempts, status: result.status, error }, 'push delivery given up');
        return;
      }
      const nextAttemptAt = Date.now() + backoffDelay(attempts, this.backoff, this.random);
      await this.store.markFailed(entry.id, attempts, nextAttemptAt, error);
      this.opts.metrics?.pushDelivery('retried');
      this.log.debug({ ...ctx, attempts, status: result.status, error, nextAttemptAt }, 'push delivery will be retried');
    } catch (err) {
      // A store failure: the lease expires and the row is claimed again.
      this.log.error({ ...ctx, err }, 'push delivery bookkeeping failed');
    }
  }

  /**
   * A delivery in the trace its task was created in (the stored `traceparent`), however much later
   * and on whichever replica it runs; the webhook request carries the delivery span's context.
   */
  private async tracedSend(agentId: string, entry: OutboxEntry, send: (trace: Context) => Promise<WebhookResult>): Promise<WebhookResult> {
    const task = await this.store.getTask(agentId, entry.taskId).catch(() => undefined);
    const { span, parent } = startTaskSpan('push.deliver', task?.traceParent, undefined, {
      kind: SpanKind.CLIENT,
      attributes: { 'agentport.task.id': entry.taskId, 'agentport.push.config_id': entry.configId, 'agentport.push.seq': entry.seq, 'agentport.push.attempt': entry.attempts + 1 },
    });
    try {
      const result = await send(contextWith(span, parent));
      if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'delivery failed' });
      return result;
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * The task as it stood right after event `seq`, rebuilt from the log: legacy bodies are whole
   * tasks, and the projection in the store may already be further along.
   */
  private async taskAt(taskId: string, seq: number): Promise<Task> {
    const events = await this.store.readEvents(taskId, 0, seq);
    let task: Task | undefined;
    for (const rec of events) {
      if (rec.seq > seq) break;
      if (task || 'task' in rec.event) task = applyEvent(task ?? ({} as Task), rec.event);
    }
    if (!task) throw new Error(`task ${taskId} has no task event up to seq ${seq}`);
    return task;
  }
}
