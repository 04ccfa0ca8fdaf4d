/**
 * Quota counters of one process (embedded mode): the same semantics as the Redis counters
 * (quota-counters.ts), with expired windows and leases swept as they are met and once a minute,
 * so a map keyed by every caller seen does not grow without end.
 */
import type { QuotaCounters, SlotCounter, TakeResult, WindowCounter } from './quota-counters.js';

interface Window {
  count: number;
  /** epoch ms */
  resetAt: number;
}

const SWEEP_EVERY_MS = 60_000;

export class LocalQuotaCounters implements QuotaCounters {
  private readonly windows = new Map<string, Window>();
  /** slot key → lease id → expiry (epoch ms) */
  private readonly slots = new Map<string, Map<string, number>>();
  private nextSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.nextSweep = now() + SWEEP_EVERY_MS;
  }

  async take(windows: readonly WindowCounter[], slots: readonly SlotCounter[], leaseId: string): Promise<TakeResult> {
    const now = this.now();
    this.sweep(now);
    for (const [i, w] of windows.entries()) {
      const open = this.openWindow(w.key, now);
      if (open && open.count >= w.limit) return { ok: false, index: i, retryMs: open.resetAt - now };
    }
    for (const [j, s] of slots.entries()) {
      const leases = this.liveLeases(s.key, now);
      if (leases && !leases.has(leaseId) && leases.size >= s.limit) {
        return { ok: false, index: windows.length + j, retryMs: Math.min(...leases.values()) - now };
      }
    }
    const out: Array<{ count: number; resetMs: number }> = [];
    for (const w of windows) {
      let open = this.openWindow(w.key, now);
      if (!open) this.windows.set(w.key, (open = { count: 0, resetAt: now + w.windowMs }));
      open.count += 1;
      out.push({ count: open.count, resetMs: open.resetAt - now });
    }
    for (const s of slots) {
      let leases = this.slots.get(s.key);
      if (!leases) this.slots.set(s.key, (leases = new Map()));
      leases.set(leaseId, now + s.leaseMs);
    }
    return { ok: true, windows: out };
  }

  async renew(slotKeys: readonly string[], leaseId: string, leaseMs: number): Promise<void> {
    const now = this.now();
    for (const key of slotKeys) {
      const leases = this.slots.get(key);
      const expiry = leases?.get(leaseId);
      // an expired lease stays expired (its slot is already free), as in Redis
      if (expiry !== undefined && expiry > now) leases!.set(leaseId, now + leaseMs);
    }
  }

  async release(slotKeys: readonly string[], leaseId: string): Promise<void> {
    for (const key of slotKeys) {
      const leases = this.slots.get(key);
      leases?.delete(leaseId);
      if (leases?.size === 0) this.slots.delete(key);
    }
  }

  async peekWindow(key: string): Promise<{ count: number; resetMs: number }> {
    const now = this.now();
    const open = this.openWindow(key, now);
    return open ? { count: open.count, resetMs: open.resetAt - now } : { count: 0, resetMs: 0 };
  }

  async peekSlots(key: string): Promise<number> {
    return this.liveLeases(key, this.now())?.size ?? 0;
  }

  private openWindow(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && w.resetAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private liveLeases(key: string, now: number): Map<string, number> | undefined {
    const leases = this.slots.get(key);
    if (!leases) return undefined;
    for (const [id, expiry] of leases) if (expiry <= now) leases.delete(id);
    return leases;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
    for (const [key] of this.slots) if (this.liveLeases(key, now)?.size === 0) this.slots.delete(key);
  }
}
