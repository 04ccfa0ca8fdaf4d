/**
 * The counters behind quotas (src/core/quotas): request windows and concurrent-task slots, in one
 * process (embedded mode) or in Redis, shared by every replica (distributed mode). One `take`
 * checks every counter a call touches and takes from all of them or from none, atomically, so two
 * replicas can never both admit the last request of a window.
 *
 * Windows are fixed and start at their first request: the first `take` of a window key opens it for
 * `windowMs`, later ones count into it, and it resets when it expires. A window never straddles a
 * calendar boundary a client cannot see, and its Retry-After is exact: the time left until it
 * expires (docs/usage.md explains the choice against sliding windows).
 *
 * A slot is a lease: it expires `leaseMs` after it was taken or last renewed, so a replica that dies
 * while holding one frees it by itself.
 */

export interface WindowCounter {
  key: string;
  limit: number;
  windowMs: number;
}

export interface SlotCounter {
  key: string;
  limit: number;
  leaseMs: number;
}

export type TakeResult =
  /** taken; for each window in order, the count after this call and the ms until it resets */
  | { ok: true; windows: Array<{ count: number; resetMs: number }> }
  /** nothing taken: counter `index` (windows first, then slots) is full; `retryMs`: until it has room (windows: exact) */
  | { ok: false; index: number; retryMs: number };

export interface QuotaCounters {
  /** Takes one request from each window and a slot `leaseId` in each slot counter, or nothing. */
  take(windows: readonly WindowCounter[], slots: readonly SlotCounter[], leaseId: string): Promise<TakeResult>;
  /** Extends the lease `leaseId` in these slot counters by `leaseMs` from now. */
  renew(slotKeys: readonly string[], leaseId: string, leaseMs: number): Promise<void>;
  release(slotKeys: readonly string[], leaseId: string): Promise<void>;
  /** For reporting what remains: a window's count and ms until it resets (0, 0 when not open). */
  peekWindow(key: string): Promise<{ count: number; resetMs: number }>;
  /** Live leases in a slot counter. */
  peekSlots(key: string): Promise<number>;
}
