/**
 * Trace and span ids as numbers from their generation on: what the event loop writes into a
 * batch's Float64Array, formatted as hex on the export thread (packed-spans.ts), and as a string
 * on the loop only when something asks for one (`spanContext()`, a `traceparent`, a log's trace
 * id). Writing a span's three ids as strings cost a rope append each and their characters copied
 * again at `postMessage` (docs/benchmarks.md, trace19, trace21).
 *
 * An id is cut in hex-digit-aligned chunks of at most 28 bits, so each chunk is a small integer
 * (a V8 Smi, stored in an object's field without a boxed heap number): a span id as 7 + 7 + 2 hex
 * digits, a trace id as 7 + 7 + 7 + 7 + 4. Random bits come from one `randomFillSync` a 4 KB block.
 */
import { randomFillSync } from 'node:crypto';

const WORDS = 1024;
const block = new Uint32Array(WORDS);
let at = WORDS;

/** `bits` (≤ 28) random bits. */
export function randomBits(bits: number): number {
  if (at === WORDS) {
    randomFillSync(block);
    at = 0;
  }
  return block[at++]! >>> (32 - bits);
}

/** `v` as `width` lower-case hex digits, zeros in front. */
export function hexDigits(v: number, width: number): string {
  const s = v.toString(16);
  return s.length === width ? s : '0'.repeat(width - s.length) + s;
}

/** A span id's hex (16 digits) from its chunks (7, 7 and 2 digits). */
export function spanIdHex(s0: number, s1: number, s2: number): string {
  return hexDigits(s0, 7) + hexDigits(s1, 7) + hexDigits(s2, 2);
}

/** A trace id's hex (32 digits) from its chunks (7, 7, 7, 7 and 4 digits). */
export function traceIdHex(t0: number, t1: number, t2: number, t3: number, t4: number): string {
  return hexDigits(t0, 7) + hexDigits(t1, 7) + hexDigits(t2, 7) + hexDigits(t3, 7) + hexDigits(t4, 4);
}

/** The chunk of `hex` from digit `from`, `width` digits (lower or upper case; the caller checked the digits). */
export const chunkOf = (hex: string, from: number, width: number): number => Number.parseInt(hex.slice(from, from + width), 16);

/**
 * A trace's id, shared by the trace's spans on this thread (a child takes its parent's object), its
 * hex made once when first asked for — or the hex it was read from, for a remote parent's trace.
 */
export class TraceId {
  #hex: string | undefined;
  constructor(
    readonly t0: number,
    readonly t1: number,
    readonly t2: number,
    readonly t3: number,
    readonly t4: number,
    hex?: string,
  ) {
    this.#hex = hex;
  }

  /** A new random id (never all zero: invalid in W3C trace context). */
  static random(): TraceId {
    for (;;) {
      const t0 = randomBits(28);
      const t1 = randomBits(28);
      const t2 = randomBits(28);
      const t3 = randomBits(28);
      const t4 = randomBits(16);
      if ((t0 | t1 | t2 | t3 | t4) !== 0) return new TraceId(t0, t1, t2, t3, t4);
    }
  }

  /** The id a valid 32-digit hex string names (a remote or foreign parent's). */
  static fromHex(hex: string): TraceId {
    return new TraceId(chunkOf(hex, 0, 7), chunkOf(hex, 7, 7), chunkOf(hex, 14, 7), chunkOf(hex, 21, 7), chunkOf(hex, 28, 4), hex);
  }

  hex(): string {
    return (this.#hex ??= traceIdHex(this.t0, this.t1, this.t2, this.t3, this.t4));
  }
}

/** A new random span id's hex: for a span sampled out, which is only a context. */
export function newSpanId(): string {
  for (;;) {
    const s0 = randomBits(28);
    const s1 = randomBits(28);
    const s2 = randomBits(8);
    if ((s0 | s1 | s2) !== 0) return spanIdHex(s0, s1, s2);
  }
}

/** A new random trace id's hex (32 digits). */
export const newTraceId = (): string => TraceId.random().hex();
