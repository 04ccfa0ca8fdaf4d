/**
 * How the protobuf encoder (otlp-proto.ts) reads a packed part (packed-spans.ts): the part's numbers
 * one after the other, its text by position, the text's UTF-8 kept in a buffer when it is ASCII (so
 * a string is copied four bytes a store, `ProtoBytes.words`), and the random blocks its ids by
 * reference lie in. The attributes' writer (otlp-proto-attributes.ts) and the spans' writer
 * (otlp-proto.ts) extend it, so every read is a field of the one encoder object (no reader object
 * to load on each read, and each method's receiver is of one shape).
 */
import type { AttributeValue } from '@opentelemetry/api';
import type { PackedPart, SpanLimits } from './packed-spans.js';
import type { ProtoBytes } from './proto-bytes.js';

export class PackedProtoReader {
  protected limits!: SpanLimits;
  protected text = '';
  /** the text's UTF-8 when it is all ASCII (one byte a character), kept from part to part */
  #scratch = Buffer.allocUnsafe(0);
  protected view = new DataView(this.#scratch.buffer, 0, 0);
  protected ascii = false;
  protected numbers!: Float64Array;
  protected others: AttributeValue[] = [];
  protected blockViews: DataView[] = [];
  /** the next number's index, the next string's place in the text, the next array value's index in `others` */
  protected i = 0;
  protected at = 0;
  protected other = 0;

  /** Reads `p` from its start. */
  protected read(p: PackedPart): void {
    this.text = p.text;
    const n = p.text.length;
    if (this.#scratch.length < n + 4) {
      this.#scratch = Buffer.allocUnsafe(n + 4 + (n >> 2));
      this.view = new DataView(this.#scratch.buffer, this.#scratch.byteOffset, this.#scratch.length);
    }
    // written as UTF-8, an ASCII text takes one byte a character (a text that is not fills more)
    this.ascii = this.#scratch.write(p.text, 0, 'utf8') === n;
    this.numbers = p.numbers;
    this.others = p.others;
    this.blockViews = (p.blocks ?? []).map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength));
    this.i = 0;
    this.at = 0;
    this.other = 0;
  }

  protected num(): number {
    return this.numbers[this.i++]!;
  }

  /**
   * A length, a count, a value's tag or an id's reference: an integer well inside ±2^31, read as
   * one (`| 0`) so that the positions computed from it stay small integers. Read as the double the
   * array holds, every position was a double: the writer's and the text's positions stored as heap
   * numbers, each of the string copy's loads and stores converting its offset back (docs/benchmarks.md, trace39).
   */
  protected int(): number {
    return this.numbers[this.i++]! | 0;
  }

  protected skip(length: number): number {
    const at = this.at;
    this.at = at + length;
    return at;
  }

  protected str(): string {
    const n = this.int();
    return this.text.slice(this.at, (this.at += n));
  }

  /** `length` characters of the text at `start`, as a length and their UTF-8 bytes. */
  protected string(w: ProtoBytes, start: number, length: number): void {
    if (this.ascii) {
      w.varint(length);
      w.words(this.view, start, length);
    } else w.utf8(this.text.slice(start, start + length));
  }
}
