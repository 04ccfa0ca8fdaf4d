/**
 * Where the event loop writes ended spans (packed-spans.ts has the layout and the reader): every
 * string's UTF-16 code units copied into one growable Uint16Array, every number — and each
 * string's length — into one growable Float64Array. A part then crosses to the export thread as
 * two transferred buffers, moved without a copy: no string is cloned. (Before trace20 the strings
 * were appended to one string: each append made a cons string in the young generation, ~49 a
 * request, and `postMessage` flattened and copied the rope, ~5 k instructions a request on the
 * loop — docs/benchmarks.md, trace19 and trace20.)
 *
 * An attribute value is written as one tag: a string's length (≥ 0), or one of the negative tags
 * below, a number followed by its value, an array (rare) as a reference into `others`.
 */
import type { AttributeValue } from '@opentelemetry/api';

export const VALUE_NUMBER = -1;
export const VALUE_FALSE = -2;
export const VALUE_TRUE = -3;
export const VALUE_OTHER = -4;

/** A batch's room for numbers when it starts: about 40 spans; it doubles as needed, and a batch starts as large as the last one grew. */
const INITIAL_NUMBERS = 1024;
/** Room for strings' code units when it starts: about 40 of the echo's spans (~170 units a span). */
const INITIAL_CHARS = 8192;

export class PackedSpansWriter {
  /** every string written, one after the other, as UTF-16 code units */
  chars: Uint16Array<ArrayBuffer>;
  /** code units written */
  charLength = 0;
  numbers: Float64Array<ArrayBuffer>;
  /** numbers written */
  length = 0;
  /** attribute values that are arrays, in the order written */
  readonly others: AttributeValue[] = [];

  constructor(capacity = INITIAL_NUMBERS, charCapacity = INITIAL_CHARS) {
    this.numbers = new Float64Array(capacity);
    this.chars = new Uint16Array(charCapacity);
  }

  num(v: number): void {
    if (this.length === this.numbers.length) this.#grow();
    this.numbers[this.length++] = v;
  }

  str(s: string): void {
    const n = s.length;
    this.num(n);
    if (n === 0) return;
    let at = this.charLength;
    if (at + n > this.chars.length) this.#growChars(at + n);
    // code units as they are (a lone surrogate included): the reader rebuilds the same string
    const c = this.chars;
    for (let i = 0; i < n; i++) c[at++] = s.charCodeAt(i);
    this.charLength = at;
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

  #growChars(needed: number): void {
    let size = this.chars.length * 2;
    while (size < needed) size *= 2;
    const bigger = new Uint16Array(size);
    bigger.set(this.chars.subarray(0, this.charLength));
    this.chars = bigger;
  }

  #grow(): void {
    const bigger = new Float64Array(this.numbers.length * 2);
    bigger.set(this.numbers);
    this.numbers = bigger;
  }
}
