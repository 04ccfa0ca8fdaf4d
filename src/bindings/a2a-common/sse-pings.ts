/**
 * The `: ping` comments of every open SSE response, from one timer per keep-alive interval instead
 * of one per stream (ten thousand idle streams held ten thousand timers: docs/benchmarks.md,
 * "Leaner stream path"). The interval is cut into slots; a response joins the slot the sweep is in
 * when it opens and is pinged each time the sweep comes round to that slot again, every `everyMs`
 * as before. Spread over the slots, a sweep never writes to all the streams in one go, which would
 * stall the event loop once per interval.
 */
import type { ServerResponse } from 'node:http';

const SLOTS = 32;
/** a finer timer would cost more wake-ups than it spreads writes */
const MIN_SLOT_MS = 10;

/** What a sweep pings, and the slot it sits in. */
export interface Pinged {
  readonly res: ServerResponse;
  pingSlot: number;
}

class PingSweep {
  private readonly slots: Set<Pinged>[];
  private readonly slotMs: number;
  private current = 0;
  private open = 0;
  private timer?: NodeJS.Timeout | undefined;

  constructor(everyMs: number) {
    const n = Math.max(1, Math.min(SLOTS, Math.floor(everyMs / MIN_SLOT_MS)));
    this.slots = Array.from({ length: n }, () => new Set<Pinged>());
    this.slotMs = everyMs / n;
  }

  add(p: Pinged): void {
    // The slot the sweep just pinged is next pinged a whole round from now.
    p.pingSlot = this.current;
    this.slots[this.current]!.add(p);
    if (this.open++ === 0) {
      this.timer = setInterval(() => this.tick(), this.slotMs);
      this.timer.unref();
    }
  }

  delete(p: Pinged): void {
    if (!this.slots[p.pingSlot]!.delete(p)) return;
    if (--this.open === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    this.current = (this.current + 1) % this.slots.length;
    for (const p of this.slots[this.current]!) p.res.write(': ping\n\n');
  }
}

const sweeps = new Map<number, PingSweep>();

/** Pings `p.res` every `everyMs` until `stopPings`. */
export function startPings(p: Pinged, everyMs: number): void {
  let sweep = sweeps.get(everyMs);
  if (!sweep) {
    sweep = new PingSweep(everyMs);
    sweeps.set(everyMs, sweep);
  }
  sweep.add(p);
}

export function stopPings(p: Pinged, everyMs: number): void {
  sweeps.get(everyMs)?.delete(p);
}
