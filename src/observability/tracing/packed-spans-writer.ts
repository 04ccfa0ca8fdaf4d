/**
 * Where the event loop writes ended spans (packed-spans.ts has the layout and the reader): every
 * string appended to one string, every number — and each string's length — to one growable
 * Float64Array. A batch then crosses to the export thread as one string and one transferred
 * buffer: `postMessage` copies a single string and moves the numbers without a copy, where a flat
 * array of ~110 values a request cost a structured-clone step per value (docs/benchmarks.md,
 * *Tracing cost, round 5*).
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

export class PackedSpansWriter {
  /** every string written, one after the other */
  text = '';
  numbers: Float64Array<ArrayBuffer>;
  /** numbers written */
  length = 0;
  /** attribute values that are arrays, in the order written */
  readonly others: AttributeValue[] = [];

  constructor(capacity = INITIAL_NUMBERS) {
    this.numbers = new Float64Array(capacity);
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

  #grow(): void {
    const bigger = new Float64Array(this.numbers.length * 2);
    bigger.set(this.numbers);
    this.numbers = bigger;
  }
}
