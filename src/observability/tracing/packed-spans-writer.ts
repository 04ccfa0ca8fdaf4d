/**
 * Where the event loop writes ended spans (packed-spans.ts has the layout and the reader): every
 * string appended to one string, every number — and each string's length — to one growable
 * Float64Array. A batch then crosses to the export thread as one string and one transferred
 * buffer: `postMessage` copies a single string and moves the numbers without a copy, where a flat
 * array of ~110 values a request cost a structured-clone step per value (docs/benchmarks.md,
 * *Tracing cost, round 5*).
 *
 * An id the recorder made (span-ids.ts) is written as a reference into one of the random blocks
 * posted with the part (`blocks`), in place of its length, and adds no text (`head`).
 *
 * An attribute value is written as one tag: a string's length (≥ 0), or one of the negative tags
 * below, a number followed by its value, an array (rare) as a reference into `others`.
 */
import type { AttributeValue } from '@opentelemetry/api';
import { ID_BLOCK_BYTES, idBlock } from './span-ids.js';

export const VALUE_NUMBER = -1;
export const VALUE_FALSE = -2;
export const VALUE_TRUE = -3;
export const VALUE_OTHER = -4;

/** A batch's room for numbers when it starts: about 40 spans; it doubles as needed, and a batch starts as large as the last one grew. */
const INITIAL_NUMBERS = 1024;

/** The numbers a span's fixed head takes (`head`). */
const HEAD_NUMBERS = 13;

/**
 * Room for `n` numbers, not zeroed: only the numbers written are read (a part crosses as
 * `subarray(0, length)`). A zeroed buffer is a calloc and a memset of the whole room each part,
 * ~32 KB every ~13 requests (1.3 k instructions a request under callgrind, all of it memset).
 */
function room(n: number): Float64Array<ArrayBuffer> {
  // allocUnsafeSlow: a buffer of its own, not a slice of the shared pool, so it can be transferred
  const bytes = Buffer.allocUnsafeSlow(n * Float64Array.BYTES_PER_ELEMENT);
  return new Float64Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, n);
}

export class PackedSpansWriter {
  /** every string written, one after the other */
  text = '';
  numbers: Float64Array<ArrayBuffer>;
  /** numbers written */
  length = 0;
  /** attribute values that are arrays, in the order written */
  readonly others: AttributeValue[] = [];
  /** the random blocks (span-ids.ts) the ids written by position lie in, in the order first used */
  readonly blocks: Buffer[] = [];
  /** each of `blocks`' sequence number */
  readonly #seqs: number[] = [];
  /**
   * The block the last id referenced (its sequence number) and what turns a position in it into its
   * reference's magnitude less one (its index in `blocks` × ID_BLOCK_BYTES − its first position):
   * a span's three ids nearly always lie in it, and `head` then answers without a call to `#ref`
   * (three calls a span, none inlined: ~0.7 k instructions a request, trace37's profile).
   */
  #lastSeq = -1;
  #lastBase = 0;

  constructor(capacity = INITIAL_NUMBERS) {
    this.numbers = room(capacity);
  }

  num(v: number): void {
    if (this.length === this.numbers.length) this.#grow();
    this.numbers[this.length++] = v;
  }

  str(s: string): void {
    this.num(s.length);
    // '' (no trace state, no parent, no status message) adds nothing to the text: no call to join it
    if (s.length !== 0) this.text += s;
  }

  /**
   * A span's fixed head (packed-spans.ts's layout, name to status message) in one call, with one
   * room check: written value by value, `end` made ~20 calls a span, and V8's inlining budget for
   * `end` ran out after the first few, leaving ~125 out-of-line calls a request (trace32's
   * profile: `num` and `str` 6.4 k instructions a request of their own). Empty strings add no text.
   */
  head(
    name: string,
    kind: number,
    traceId: string,
    spanId: string,
    traceState: string,
    parentSpanId: string,
    parentRemote: number,
    scope: number,
    start: number,
    end: number,
    status: number,
    message: string,
    traceAt = -1,
    spanAt = -1,
    parentAt = -1,
  ): void {
    // an id with a position (≥ 0) whose block is still kept goes as a reference to it, not as text
    const traceRef = traceAt < 0 ? 0 : Math.floor(traceAt / ID_BLOCK_BYTES) === this.#lastSeq ? -1 - (this.#lastBase + traceAt) : this.#ref(traceAt);
    const spanRef = spanAt < 0 ? 0 : Math.floor(spanAt / ID_BLOCK_BYTES) === this.#lastSeq ? -1 - (this.#lastBase + spanAt) : this.#ref(spanAt);
    const parentRef = parentAt < 0 ? 0 : Math.floor(parentAt / ID_BLOCK_BYTES) === this.#lastSeq ? -1 - (this.#lastBase + parentAt) : this.#ref(parentAt);
    let i = this.length;
    if (i + HEAD_NUMBERS > this.numbers.length) this.#grow();
    const n = this.numbers;
    n[i++] = name.length;
    n[i++] = kind;
    n[i++] = traceRef < 0 ? traceRef : traceId.length;
    n[i++] = spanRef < 0 ? spanRef : spanId.length;
    n[i++] = 1;
    n[i++] = traceState.length;
    n[i++] = parentRef < 0 ? parentRef : parentSpanId.length;
    n[i++] = parentRemote;
    n[i++] = scope;
    n[i++] = start;
    n[i++] = end;
    n[i++] = status;
    n[i++] = message.length;
    this.length = i;
    let t = this.text + name;
    if (traceRef === 0) t += traceId;
    if (spanRef === 0) t += spanId;
    if (traceState.length !== 0) t += traceState;
    if (parentRef === 0 && parentSpanId.length !== 0) t += parentSpanId;
    if (message.length !== 0) t += message;
    this.text = t;
  }

  /** An attribute's key and its value (already checked: isAttributeValue), with one room check. */
  pair(k: string, v: AttributeValue): void {
    let i = this.length;
    if (i + 3 > this.numbers.length) this.#grow();
    const n = this.numbers;
    n[i++] = k.length;
    if (typeof v === 'string') {
      n[i++] = v.length;
      this.text = v.length !== 0 ? this.text + k + v : this.text + k;
    } else {
      if (k.length !== 0) this.text += k;
      if (typeof v === 'number') {
        n[i++] = VALUE_NUMBER;
        n[i++] = v;
      } else if (typeof v === 'boolean') n[i++] = v ? VALUE_TRUE : VALUE_FALSE;
      else {
        n[i++] = VALUE_OTHER;
        this.others.push(v);
      }
    }
    this.length = i;
  }

  /** A place for a count known only later (`fill`). */
  slot(): number {
    this.num(0);
    return this.length - 1;
  }

  fill(at: number, v: number): void {
    this.numbers[at] = v;
  }

  /** An attribute value already checked (isAttributeValue). */
  value(v: AttributeValue): void {
    if (typeof v === 'string') this.str(v);
    else if (typeof v === 'number') {
      this.num(VALUE_NUMBER);
      this.num(v);
    } else if (typeof v === 'boolean') this.num(v ? VALUE_TRUE : VALUE_FALSE);
    else {
      this.num(VALUE_OTHER);
      this.others.push(v);
    }
  }

  /**
   * An id's reference, from its position (span-ids.ts): −1 − (its block's index in `blocks` ×
   * ID_BLOCK_BYTES + its offset in the block); 0 when the block is no longer kept (the id then goes as text).
   */
  #ref(position: number): number {
    const s = Math.floor(position / ID_BLOCK_BYTES);
    const seqs = this.#seqs;
    // a part's ids lie in one or two blocks, nearly always the last one used
    let j = seqs.length - 1;
    while (j >= 0 && seqs[j] !== s) j--;
    if (j < 0) {
      const block = idBlock(position);
      if (!block) return 0;
      j = this.blocks.push(block) - 1;
      seqs.push(s);
    }
    this.#lastSeq = s;
    this.#lastBase = (j - s) * ID_BLOCK_BYTES;
    return -1 - (this.#lastBase + position);
  }

  /** Doubles the room, to 32 numbers at least: past any full buffer, room for a head (13) or a pair (3). */
  #grow(): void {
    const bigger = room(Math.max(this.numbers.length, 16) * 2);
    bigger.set(this.numbers);
    this.numbers = bigger;
  }
}
