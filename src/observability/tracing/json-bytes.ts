/**
 * JSON written as UTF-8 bytes into one growing buffer, for otlp-json.ts: a string's characters are
 * copied one by one while they are printable ASCII that JSON needs no escape for (the ids, names
 * and attribute keys and values of spans, nearly always), and otherwise the string goes through
 * `JSON.stringify` and Node's UTF-8 encoder, so the bytes are `JSON.stringify`'s. Building the
 * request as JS strings instead cost more than the SDK's object tree did: the concatenations were
 * ropes flattened at the end, and a `JSON.stringify` call per short string (docs/benchmarks.md, otlp33).
 */

export class JsonBytes {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity);
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

  /** Characters of a text known to be ASCII that JSON needs no escape for (`bytes`, one a character), as a JSON string. */
  plainString(bytes: Uint8Array, start: number, length: number): void {
    if (this.pos + length + 2 > this.buf.length) this.#grow(this.pos + length + 2);
    const b = this.buf;
    const p = this.pos + 1 - start;
    b[this.pos] = 34;
    for (let i = start, end = start + length; i < end; i++) b[p + i] = bytes[i]!;
    b[p + start + length] = 34;
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

  /** Bytes of a constant (longer ones copied by the typed array's `set`). */
  constant(c: Uint8Array): void {
    const n = c.length;
    if (this.pos + n > this.buf.length) this.#grow(this.pos + n);
    this.buf.set(c, this.pos);
    this.pos += n;
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
  }
}
