/**
 * The quota engine: for one call, the quotas that apply to its dimensions, and the decision.
 * Monthly budgets are checked first (against usage already recorded, through MonthlySpend), then
 * every request window and concurrent-task slot the call touches is taken in one atomic step of the
 * counters (src/bus/quota-counters.ts), so a refused call consumes nothing. A refusal is a
 * QuotaExceededError naming the quota and when to retry, and an audit event.
 */
import type { Metrics } from '../../observability/metrics/index.js';
import { randomUUID } from 'node:crypto';
import type { QuotaCounters, SlotCounter, WindowCounter } from '../../bus/quota-counters.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { QuotaExceededError, type QuotaKind, type QuotaPolicy } from '../../protocol/a2a/quota-exceeded.js';
import { NO_AUDIT, type AuditSink } from '../audit/audit-event.js';
import type { Principal } from '../authz/principal.js';
import type { MonthlySpend } from './monthly-spend.js';
import type { QuotaBook } from './quota-book.js';
import { applies, bucketDimensions, bucketKey, monthBounds, principalDimensions, type CallDimensions, type Quota } from './quota.js';

/** A concurrent-task slot held by a call; released once, when its task settles. */
export interface TaskSlot {
  release(): void;
}

export interface QuotaCall {
  dims: CallDimensions;
  /** SendMessage / SendStreamingMessage: concurrent tasks and budgets apply too */
  sends: boolean;
  principal: Principal;
  /** the A2A operation, for the audit record */
  operation: string;
}

/** What remains of one quota for a caller (the usage API reports it). */
export interface QuotaRemaining {
  quotaId: string;
  kind: QuotaKind;
  limit: number;
  remaining: number;
  /** ISO time when it is replenished; absent for concurrent tasks, and for a window not open */
  resetAt?: string;
}

/** What the core's A2A layer asks (src/core/stages/quota-handler.ts). */
export interface QuotaGate {
  /** true: no quota can apply to any call now, skip the gate */
  readonly idle: boolean;
  /** Throws QuotaExceededError; returns the slot to release when the call took one. */
  admit(call: QuotaCall): Promise<TaskSlot | undefined>;
}

export interface QuotaEngineOptions {
  book: QuotaBook;
  counters: QuotaCounters;
  /** absent: monthly budgets are not enforced (and are reported as not known) */
  spend?: MonthlySpend;
  audit?: AuditSink;
  /** a slot of a replica that died is freed after this long (renewed every third of it while held) */
  leaseMs?: number;
  now?: () => number;
  log?: { warn(obj: object, msg?: string): void };
  /** metrics on: refusals counted by quota kind and agent */
  metrics?: Pick<Metrics, 'quotaRefused'>;
}

/** A slot may free at any moment: the client is told to come back soon. */
const SLOT_RETRY_SECONDS = 1;

export class QuotaEngine implements QuotaGate {
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly audit: AuditSink;

  constructor(private readonly o: QuotaEngineOptions) {
    this.leaseMs = o.leaseMs ?? 30_000;
    this.now = o.now ?? Date.now;
    this.audit = o.audit ?? NO_AUDIT;
  }

  get idle(): boolean {
    return this.o.book.empty;
  }

  async admit(call: QuotaCall): Promise<TaskSlot | undefined> {
    const quotas = (await this.o.book.list()).filter((q) => applies(q, call.dims));
    if (quotas.length === 0) return undefined;
    try {
      if (call.sends) await this.checkBudgets(quotas, call.dims);
      return await this.take(quotas, call);
    } catch (e) {
      if (e instanceof QuotaExceededError) this.refused(call, e);
      throw e;
    }
  }

  /** Each quota that applies to this principal's own calls (any agent, any skill unless given). */
  async remaining(principal: Principal, extra: CallDimensions = {}): Promise<QuotaRemaining[]> {
    const dims = { ...principalDimensions(principal), ...extra };
    const out: QuotaRemaining[] = [];
    const now = this.now();
    for (const q of await this.o.book.list()) {
      if (!applies(q, dims)) continue;
      const key = bucketKey(q, dims);
      if (q.requests) {
        const w = await this.o.counters.peekWindow(windowKey(key, q.requests.window));
        out.push({
          quotaId: q.id,
          kind: 'requests',
          limit: q.requests.limit,
          remaining: Math.max(0, q.requests.limit - w.count),
          ...(w.count > 0 ? { resetAt: new Date(now + w.resetMs).toISOString() } : {}),
        });
      }
      if (q.concurrentTasks !== undefined) {
        const held = await this.o.counters.peekSlots(slotKey(key));
        out.push({ quotaId: q.id, kind: 'concurrentTasks', limit: q.concurrentTasks, remaining: Math.max(0, q.concurrentTasks - held) });
      }
      if ((q.monthlyTokens !== undefined || q.monthlyCost !== undefined) && this.o.spend) {
        const month = monthBounds(now);
        const spent = await this.o.spend.spent(bucketDimensions(q, dims), month.start);
        const resetAt = new Date(month.next).toISOString();
        if (q.monthlyTokens !== undefined) out.push({ quotaId: q.id, kind: 'monthlyTokens', limit: q.monthlyTokens, remaining: Math.max(0, q.monthlyTokens - spent.tokens), resetAt });
        if (q.monthlyCost !== undefined) out.push({ quotaId: q.id, kind: 'monthlyCost', limit: q.monthlyCost, remaining: Math.max(0, q.monthlyCost - spent.cost), resetAt });
      }
    }
    return out;
  }

  private async checkBudgets(quotas: readonly Quota[], dims: CallDimensions): Promise<void> {
    const spend = this.o.spend;
    if (!spend) return;
    const now = this.now();
    const month = monthBounds(now);
    const untilNextMonth = Math.ceil((month.next - now) / 1000);
    for (const q of quotas) {
      if (q.monthlyTokens === undefined && q.monthlyCost === undefined) continue;
      const spent = await spend.spent(bucketDimensions(q, dims), month.start);
      if (q.monthlyTokens !== undefined && spent.tokens >= q.monthlyTokens) throw new QuotaExceededError({ id: q.id, kind: 'monthlyTokens', limit: q.monthlyTokens }, untilNextMonth);
      if (q.monthlyCost !== undefined && spent.cost >= q.monthlyCost) throw new QuotaExceededError({ id: q.id, kind: 'monthlyCost', limit: q.monthlyCost }, untilNextMonth);
    }
  }

  private async take(quotas: readonly Quota[], call: QuotaCall): Promise<TaskSlot | undefined> {
    const windows: WindowCounter[] = [];
    const windowOf: Quota[] = [];
    const slots: SlotCounter[] = [];
    const slotOf: Quota[] = [];
    for (const q of quotas) {
      const key = bucketKey(q, call.dims);
      if (q.requests) {
        windows.push({ key: windowKey(key, q.requests.window), limit: q.requests.limit, windowMs: q.requests.window });
        windowOf.push(q);
      }
      if (call.sends && q.concurrentTasks !== undefined) {
        slots.push({ key: slotKey(key), limit: q.concurrentTasks, leaseMs: this.leaseMs });
        slotOf.push(q);
      }
    }
    if (windows.length === 0 && slots.length === 0) return undefined;
    const leaseId = randomUUID();
    const r = await this.o.counters.take(windows, slots, leaseId).catch((err: unknown) => {
      // A quota that cannot be checked is not skipped: the caller is told to retry shortly.
      this.o.log?.warn({ err }, 'quotas: the counters cannot be reached');
      throw new A2AError('Unavailable', 'Quotas cannot be checked right now; retry shortly');
    });
    if (!r.ok) {
      if (r.index < windows.length) {
        const q = windowOf[r.index]!;
        // Whole seconds, rounded up: after waiting them the window has reset.
        throw new QuotaExceededError(requestsPolicy(q), Math.max(1, Math.ceil(r.retryMs / 1000)));
      }
      const q = slotOf[r.index - windows.length]!;
      throw new QuotaExceededError({ id: q.id, kind: 'concurrentTasks', limit: q.concurrentTasks! }, SLOT_RETRY_SECONDS);
    }
    return slots.length
      ? this.hold(
          slots.map((s) => s.key),
          leaseId,
        )
      : undefined;
  }

  private hold(keys: string[], leaseId: string): TaskSlot {
    const counters = this.o.counters;
    const renew = setInterval(
      () => {
        counters.renew(keys, leaseId, this.leaseMs).catch((err: unknown) => this.o.log?.warn({ err }, 'quotas: could not renew a task slot'));
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        // A release that fails leaves the lease to expire by itself.
        counters.release(keys, leaseId).catch((err: unknown) => this.o.log?.warn({ err }, 'quotas: could not release a task slot'));
      },
    };
  }

  private refused(call: QuotaCall, e: QuotaExceededError): void {
    this.o.metrics?.quotaRefused(e.policy.kind, call.dims.agent);
    const p = call.principal;
    const actorClient = p.keyId ?? p.clientId;
    this.audit.record({
      action: 'quota.refused',
      outcome: 'denied',
      actor: p.subject,
      ...(actorClient !== undefined ? { actorClient } : {}),
      ...(call.dims.agent !== undefined ? { target: `agent:${call.dims.agent}` } : {}),
      details: { quotaId: e.policy.id, kind: e.policy.kind, limit: e.policy.limit, retryAfterSeconds: e.retryAfterSeconds, operation: call.operation },
    });
  }
}

function requestsPolicy(q: Quota): QuotaPolicy {
  return { id: q.id, kind: 'requests', limit: q.requests!.limit, windowSeconds: Math.ceil(q.requests!.window / 1000) };
}

/** The window length is part of the key: a quota whose window changes starts a fresh count. */
function windowKey(bucket: string, windowMs: number): string {
  return `r/${windowMs}/${bucket}`;
}

function slotKey(bucket: string): string {
  return `c/${bucket}`;
}
