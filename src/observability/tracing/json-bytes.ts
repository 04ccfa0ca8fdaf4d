/**
 * JSON written as UTF-8 bytes into one growing buffer, for otlp-json.ts: a string's characters are
 * copied one by one while they are printable ASCII that JSON needs no escape for (the ids, names
 * and attribute keys and values of spans, nearly always), and otherwise the string goes through
 * `JSON.stringify` and Node's UTF-8 encoder, so the bytes are `JSON.stringify`'s. Building the
 * request as JS strings instead cost more than the SDK's object tree did: the concatenations were
 * ropes flattened at the end, and a `JSON.stringify` call per short string (docs/benchmarks.md, otlp33).
 */

/**
 * Constant bytes as little-endian 32-bit words, written four bytes a store through a DataView
 * (half the time of the typed array's `set` or a byte loop for the 8–30 bytes of a JSON key,
 * docs/benchmarks.md, traceexp34); a length that is not a multiple of four ends with the word of
 * its last four bytes, overlapping the one before.
 */
export interface Constant {
  readonly length: number;
  readonly words: Int32Array;
  /** the last four bytes as a word */
  readonly last: number;
  /** the bytes, for a constant shorter than a word */
  readonly bytes: Uint8Array;
}

export function constantOf(s: string): Constant {
  const bytes = new Uint8Array(Buffer.from(s, 'latin1'));
  const view = new DataView(bytes.buffer);
  const n = bytes.length;
  const words = new Int32Array(n >> 2);
  for (let i = 0; i < words.length; i++) words[i] = view.getInt32(4 * i, true);
  return { length: n, words, last: n >= 4 ? view.getInt32(n - 4, true) : 0, bytes };
}

/** Whether an ASCII text's `n` bytes (`view`, with four to spare) hold a control character, which JSON escapes. */
export function hasControl(view: DataView, n: number): boolean {
  // a byte below 0x20 in a word of ASCII bytes sets that byte's top bit in (w − 0x20202020) & ~w
  let any = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const w = view.getInt32(i, true);
    any |= (w - 0x20202020) & ~w;
  }
  for (; i < n; i++) if (view.getUint8(i) < 0x20) return true;
  return (any & 0x80808080) !== 0;
}

/** The hex digits' bytes, lowercase as Buffer's 'hex' (which made the ids' text). */
const HEX_DIGITS = new Uint8Array(Buffer.from('0123456789abcdef', 'latin1'));

export class JsonBytes {
  buf: Buffer;
  /** `buf` as a DataView, for writes of four bytes */
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

  /** ASCII text that needs no escaping (JSON punctuation, field names). */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.#grow(this.pos + n);
    const b = this.buf;
    const p = this.pos;
    for (let i = 0; i < n; i++) b[p + i] = s.charCodeAt(i);
    this.pos = p + n;
  }

  /** One byte (an ASCII character's code). */
  byte(c: number): void {
    if (this.pos + 1 > this.buf.length) this.#grow(this.pos + 1);
    this.buf[this.pos++] = c;
  }

  /** A non-negative integer below 2^53, in decimal. */
  uint(v: number): void {
    if (v >= 0x7fffffff) {
      this.ascii(String(v));
      return;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
    if (this.pos + digits > this.buf.length) this.#grow(this.pos + digits);
    const b = this.buf;
    let p = this.pos + digits;
    this.pos = p;
    let x = v | 0;
    do {
      const q = (x / 10) | 0;
      b[--p] = 48 + x - q * 10;
      x = q;
    } while (x > 0);
  }

  /** `n` bytes of `bytes` from `at` as a JSON string of lowercase hex digits (an id, as the SDK writes it), quotes included. */
  hexString(bytes: Uint8Array, at: number, n: number): void {
    if (this.pos + 2 * n + 2 > this.buf.length) this.#grow(this.pos + 2 * n + 2);
    const b = this.buf;
    let p = this.pos;
    b[p++] = 34;
    for (let i = at; i < at + n; i++) {
      const c = bytes[i]!;
      b[p++] = HEX_DIGITS[c >> 4]!;
      b[p++] = HEX_DIGITS[c & 15]!;
    }
    b[p++] = 34;
    this.pos = p;
  }

  /** A number below 10^9 in nine digits, zeros first. */
  nineDigits(v: number): void {
    if (this.pos + 9 > this.buf.length) this.#grow(this.pos + 9);
    const b = this.buf;
    let x = v | 0;
    for (let p = this.pos + 8; p >= this.pos; p--) {
      const q = (x / 10) | 0;
      b[p] = 48 + x - q * 10;
      x = q;
    }
    this.pos += 9;
  }

  /**
   * Characters of a text whose bytes (`bytes`, one a character: the text is ASCII) are at hand, as
   * a JSON string: copied as bytes unless one needs escaping.
   */
  asciiString(bytes: Uint8Array, s: string, start: number, length: number): void {
    if (this.pos + length + 2 > this.buf.length) this.#grow(this.pos + length + 2);
    const b = this.buf;
    const from = this.pos;
    let p = from;
    b[p++] = 34;
    const end = start + length;
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c < 0x20 || c === 34 || c === 92) {
        this.pos = from;
        this.#escaped(s.slice(start, end));
        return;
      }
      b[p++] = c;
    }
    b[p++] = 34;
    this.pos = p;
  }

  /** `s`'s characters `start` to `start + length` as a JSON string, quotes included. */
  string(s: string, start: number, length: number): void {
    if (this.pos + length + 2 > this.buf.length) this.#grow(this.pos + length + 2);
    const b = this.buf;
    const from = this.pos;
    let p = from;
    b[p++] = 34;
    const end = start + length;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === 34 || c === 92 || c >= 0x80) {
        this.pos = from;
        this.#escaped(s.slice(start, end));
        return;
      }
      b[p++] = c;
    }
    b[p++] = 34;
    this.pos = p;
  }

  /**
   * Characters of a text known to be ASCII that JSON needs no escape for (`bytes`, one a
   * character, and `from` over them), as a JSON string: copied four bytes at a time.
   */
  plainString(bytes: Uint8Array, from: DataView, start: number, length: number): void {
    if (this.pos + length + 2 > this.buf.length) this.#grow(this.pos + length + 2);
    const b = this.buf;
    const p = this.pos + 1;
    b[this.pos] = 34;
    if (length >= 4) {
      const to = this.view;
      for (let i = 0; i + 4 < length; i += 4) to.setInt32(p + i, from.getInt32(start + i, true), true);
      to.setInt32(p + length - 4, from.getInt32(start + length - 4, true), true);
    } else for (let i = 0; i < length; i++) b[p + i] = bytes[start + i]!;
    b[p + length] = 34;
    this.pos += length + 2;
  }

  /** A whole string as a JSON string. */
  text(s: string): void {
    this.string(s, 0, s.length);
  }

  /** Bytes written elsewhere, copied. */
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Text that is JSON already (any characters), as UTF-8. */
  utf8(json: string): void {
    this.room(json.length * 3);
    this.pos += this.buf.write(json, this.pos, 'utf8');
  }

  /** Bytes of a constant, a word at a time. */
  constant(c: Constant): void {
    const n = c.length;
    if (this.pos + n > this.buf.length) this.#grow(this.pos + n);
    const p = this.pos;
    if (n >= 4) {
      const v = this.view;
      const words = c.words;
      for (let i = 0; i < words.length; i++) v.setInt32(p + 4 * i, words[i]!, true);
      if (n & 3) v.setInt32(p + n - 4, c.last, true);
    } else this.buf.set(c.bytes, p);
    this.pos = p + n;
  }

  /** What another writer wrote. */
  copy(from: JsonBytes): void {
    this.room(from.pos);
    from.buf.copy(this.buf, this.pos, 0, from.pos);
    this.pos += from.pos;
  }

  #escaped(s: string): void {
    const json = JSON.stringify(s);
    // at most three UTF-8 bytes a UTF-16 code unit (a surrogate pair: two units, four bytes)
    this.room(json.length * 3);
    this.pos += this.buf.write(json, this.pos, 'utf8');
  }

  #grow(need: number): void {
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.length);
  }
}
