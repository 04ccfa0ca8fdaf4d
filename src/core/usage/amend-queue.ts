/**
 * The amends waiting for the usage recorder's next write (the timing and sizes of the calls that
 * created a task, one per blocking SendMessage), held in flat columns instead of one object each.
 *
 * Issue 26, the p99 at 8 connections (ADR 0064): the queue is written once a second, so each
 * amend (an object, its id string and its numbers, ~150 B) lived through two or three
 * young-generation collections and was then promoted — ~150 of the ~180 bytes a request promoted.
 * Here a call adds its id's characters (ASCII, as every id Agentport mints is) and its numbers to
 * typed arrays (which a scavenge does not copy: their contents are not objects), and the amends
 * are made as objects only when a slice of them is written, where they die young. An id with any
 * other character is kept as the string itself, on the side.
 */
import type { UsageAmend } from '../../store/usage-record.js';

const TTFB = 1;
const BYTES_IN = 2;
const BYTES_OUT = 4;
/** amends and code units a new queue has room for; both double as needed */
const FIRST_AMENDS = 256;
const FIRST_BYTES = FIRST_AMENDS * 36;

export class AmendQueue {
  private n = 0;
  private bytes = 0;
  /** the amend's id is bytes [idEnd[i - 1] (0 for the first), idEnd[i]) of `ids`, in ASCII */
  private idEnd = new Uint32Array(FIRST_AMENDS);
  private ids = Buffer.allocUnsafeSlow(FIRST_BYTES);
  /** ids that are not ASCII, by amend (the amend's bytes in `ids` are then none) */
  private otherIds?: Map<number, string>;
  /** which optional fields the amend has (TTFB, BYTES_IN, BYTES_OUT) */
  private has = new Uint8Array(FIRST_AMENDS);
  private latencyMs = new Float64Array(FIRST_AMENDS);
  private ttfbMs = new Float64Array(FIRST_AMENDS);
  private bytesIn = new Float64Array(FIRST_AMENDS);
  private bytesOut = new Float64Array(FIRST_AMENDS);

  get length(): number {
    return this.n;
  }

  /** Queues the amend of task `id`: its latency, and each of the others that is not undefined. */
  push(id: string, latencyMs: number, ttfbMs: number | undefined, bytesIn: number | undefined, bytesOut: number | undefined): void {
    const i = this.n;
    if (i === this.has.length) this.growAmends();
    const start = this.bytes;
    let end = start + id.length;
    if (end > this.ids.length) this.growBytes(end);
    const ids = this.ids;
    let all = 0;
    for (let k = 0; k < id.length; k++) {
      const c = id.charCodeAt(k);
      all |= c;
      ids[start + k] = c;
    }
    if (all > 0x7f) {
      (this.otherIds ??= new Map()).set(i, id);
      end = start;
    }
    this.bytes = end;
    this.idEnd[i] = end;
    this.latencyMs[i] = latencyMs;
    let has = 0;
    if (ttfbMs !== undefined) {
      has |= TTFB;
      this.ttfbMs[i] = ttfbMs;
    }
    if (bytesIn !== undefined) {
      has |= BYTES_IN;
      this.bytesIn[i] = bytesIn;
    }
    if (bytesOut !== undefined) {
      has |= BYTES_OUT;
      this.bytesOut[i] = bytesOut;
    }
    this.has[i] = has;
    this.n = i + 1;
  }

  /** Amends [from, to) as objects, each with only the fields it was given. */
  slice(from: number, to: number): UsageAmend[] {
    const out: UsageAmend[] = [];
    const stop = Math.min(to, this.n);
    for (let i = from; i < stop; i++) {
      const a: UsageAmend = { id: this.idAt(i), latencyMs: this.latencyMs[i]! };
      const has = this.has[i]!;
      if (has & TTFB) a.ttfbMs = this.ttfbMs[i]!;
      if (has & BYTES_OUT) a.bytesOut = this.bytesOut[i]!;
      if (has & BYTES_IN) a.bytesIn = this.bytesIn[i]!;
      out.push(a);
    }
    return out;
  }

  /** Empties the queue, keeping its room. */
  clear(): void {
    this.n = 0;
    this.bytes = 0;
    this.otherIds = undefined;
  }

  private idAt(i: number): string {
    const other = this.otherIds?.get(i);
    if (other !== undefined) return other;
    return this.ids.toString('latin1', i === 0 ? 0 : this.idEnd[i - 1]!, this.idEnd[i]!);
  }

  private growAmends(): void {
    const size = this.has.length * 2;
    this.idEnd = grown(this.idEnd, new Uint32Array(size));
    this.has = grown(this.has, new Uint8Array(size));
    this.latencyMs = grown(this.latencyMs, new Float64Array(size));
    this.ttfbMs = grown(this.ttfbMs, new Float64Array(size));
    this.bytesIn = grown(this.bytesIn, new Float64Array(size));
    this.bytesOut = grown(this.bytesOut, new Float64Array(size));
  }

  private growBytes(atLeast: number): void {
    let size = this.ids.length * 2;
    while (size < atLeast) size *= 2;
    const ids = Buffer.allocUnsafeSlow(size);
    this.ids.copy(ids, 0, 0, this.bytes);
    this.ids = ids;
  }
}

function grown<T extends Uint8Array | Uint32Array | Float64Array>(old: T, into: T): T {
  into.set(old as never);
  return into;
}
