/**
 * Protocol Buffers wire format written into one growing buffer, for otlp-proto.ts: tags and varints,
 * fixed-width numbers, bytes copied in, and a message's length written in front of it once the
 * message is written (one byte kept for it, the message moved up when its length takes more), which
 * makes the bytes the SDK's `ProtobufWriter` makes: canonical varints, no padding.
 */

/** The wire types a tag carries. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH = 2;
export const FIXED32 = 5;

/** A field's tag as its one or two varint bytes (field numbers ≤ 2,047). */
export function tagOf(field: number, wire: number): number {
  return (field << 3) | wire;
}

/**
 * `n` bytes of `from` at `at` into `to` at `p`, four bytes a store, up to three bytes past both ends
 * read and written: `ProtoBytes.words` without its room check, for a writer that made room for
 * several fields at once.
 */
export function copyWords(to: DataView, p: number, from: DataView, at: number, n: number): void {
  for (let i = 0; i < n; i += 4) to.setInt32(p + i, from.getInt32(at + i, true), true);
}

/**
 * Seconds and nanoseconds as the fixed64 count of nanoseconds at `p` (room made by the caller).
 * `s × 10^9` is past 2^53: the seconds are split at 2^16 so that every product is exact, then
 * carried into two 32-bit halves.
 */
export function nanosAt(to: DataView, p: number, s: number, ns: number): void {
  if (ns >= 0 && ns < 1e9 && s >= 0 && s < 0x100000000 && Number.isInteger(s) && Number.isInteger(ns)) {
    // the same words in integer steps (every time a recorded span has): the seconds' halves by
    // shift and mask, the low word by `>>> 0`, where the general way below takes two
    // floating-point remainders (each a call out of the compiled code)
    const high = (s >>> 16) * 1e9;
    const highTop = Math.floor(high / 0x10000);
    const low = (high - highTop * 0x10000) * 0x10000 + (s & 0xffff) * 1e9 + ns;
    to.setUint32(p, low >>> 0, true);
    to.setUint32(p + 4, (highTop + Math.floor(low / 0x100000000)) >>> 0, true);
    return;
  }
  // the parts of a time before the recording thread's clock started are negative
  while (ns < 0) {
    s -= 1;
    ns += 1e9;
  }
  while (ns >= 1e9) {
    s += 1;
    ns -= 1e9;
  }
  const sLow = s % 0x10000;
  const high = ((s - sLow) / 0x10000) * 1e9; // < 2^53 for any time before the year 2^16 × 2^32 s
  const highTop = Math.floor(high / 0x10000);
  const low = (high - highTop * 0x10000) * 0x10000 + sLow * 1e9 + ns;
  const lowWord = low % 0x100000000;
  to.setUint32(p, lowWord >>> 0, true);
  to.setUint32(p + 4, (highTop + (low - lowWord) / 0x100000000) >>> 0, true);
}

export class ProtoBytes {
  buf: Buffer;
  view: DataView;
  pos = 0;

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Room for `n` more bytes. */
  room(n: number): void {
    if (this.pos + n > this.buf.length) this.#grow(this.pos + n);
  }

  /** A one-byte tag (a field number below 16) or varint (below 128). */
  byte(v: number): void {
    if (this.pos + 1 > this.buf.length) this.#grow(this.pos + 1);
    this.buf[this.pos++] = v;
  }

  /**
   * `n` bytes of `from` (as `view`, with four bytes to spare past them) at `at`, four bytes a store:
   * a byte loop cost ~10 instructions a byte, the most of the encoder (docs/benchmarks.md, trace36).
   * Up to three bytes past the end are written and left past `pos`.
   */
  words(view: DataView, at: number, n: number): void {
    this.room(n + 4);
    const p = this.pos;
    copyWords(this.view, p, view, at, n);
    this.pos = p + n;
  }

  /** A tag (`tagOf`) or any varint below 2^32. */
  varint(v: number): void {
    this.room(5);
    const b = this.buf;
    let p = this.pos;
    v >>>= 0;
    while (v > 0x7f) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[p++] = v;
    this.pos = p;
  }

  /** A one-byte tag and a varint below 2^32. */
  field(tag: number, v: number): void {
    if (v < 0x80 && tag < 0x80) {
      this.room(2);
      this.buf[this.pos] = tag;
      this.buf[this.pos + 1] = v;
      this.pos += 2;
      return;
    }
    this.varint(tag);
    this.varint(v);
  }

  /**
   * An int64 as a varint (ten bytes for a negative one, two's complement), for an integer within
   * ±2^63 as the SDK's `writeVarint` writes it.
   */
  int64(v: number): void {
    if (v >= 0 && v <= 0xffffffff) {
      this.varint(v);
      return;
    }
    const abs = Math.abs(v);
    let low = abs >>> 0;
    let high = (abs / 0x100000000) >>> 0;
    if (v < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    this.room(10);
    const b = this.buf;
    let p = this.pos;
    while (high > 0 || low > 0x7f) {
      b[p++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    b[p++] = low & 0x7f;
    this.pos = p;
  }

  fixed32(v: number): void {
    this.room(4);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }

  double(v: number): void {
    this.room(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Seconds and nanoseconds as the fixed64 count of nanoseconds (`nanosAt`). */
  nanos(s: number, ns: number): void {
    this.room(8);
    nanosAt(this.view, this.pos, s, ns);
    this.pos += 8;
  }

  /** `n` bytes of `from` at `at`, as they are. */
  copy(from: Uint8Array, at: number, n: number): void {
    this.room(n);
    const b = this.buf;
    const p = this.pos;
    if (n < 32) for (let i = 0; i < n; i++) b[p + i] = from[at + i]!;
    else b.set(from.subarray(at, at + n), p);
    this.pos = p + n;
  }

  /** A string as its UTF-8 bytes, with their length before them. */
  utf8(s: string): void {
    const at = this.begin();
    this.room(3 * s.length);
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.end(at);
  }

  /**
   * Keeps `reserve` bytes for the length of the message that follows (one for most; two for a span,
   * which is 128 bytes or more when it has attributes); answers where (for `end`).
   */
  begin(reserve = 1): number {
    this.room(reserve);
    const at = this.pos;
    this.pos += reserve;
    return at;
  }

  /** Writes the length of the message since `begin(reserve)` (`at`) in front of it, moving the message when the length takes more or fewer bytes. */
  end(at: number, reserve = 1): void {
    const n = this.pos - at - reserve;
    if (n < 0x80 && reserve === 1) {
      this.buf[at] = n;
      return;
    }
    const size = n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
    if (size !== reserve) {
      this.room(size - reserve);
      this.buf.copyWithin(at + size, at + reserve, this.pos);
      this.pos += size - reserve;
    }
    const b = this.buf;
    let v = n;
    let p = at;
    while (v > 0x7f) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[p] = v;
  }

  #grow(min: number): void {
    const next = Buffer.allocUnsafe(Math.max(min, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }
}
