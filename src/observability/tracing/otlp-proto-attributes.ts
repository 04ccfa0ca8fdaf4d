/**
 * A span's (event's, link's) attributes as OTLP protobuf KeyValues, read from a packed part
 * (otlp-proto-reader.ts) and written as the SDK's `ProtobufTraceSerializer` writes the attributes
 * its span keeps: valid keys, the last value of a key set twice in the place of its first, at most
 * the count limit, array-index keys first (the order `for…in` lists an object's keys in), string
 * values cut at the length limit. The spans' writer (otlp-proto.ts) extends it.
 */
import { diag, type AttributeValue } from '@opentelemetry/api';
import { VALUE_FALSE, VALUE_NUMBER, VALUE_OTHER, VALUE_TRUE } from './packed-spans-writer.js';
import { KeptKeys, LINEAR_KEYS } from './attribute-keys.js';
import { truncated } from './otlp-json-values.js';
import { PackedProtoReader } from './otlp-proto-reader.js';
import { anyValueProto, T } from './otlp-proto-values.js';
import { copyWords, type ProtoBytes } from './proto-bytes.js';

export class ProtoAttributesWriter extends PackedProtoReader {
  // a span's (event's, link's) attributes kept: each key's place in the text, and its value's tag (a string's length), number (a string's start) and array
  /** the general path's kept keys */
  readonly #kept = new KeptKeys();
  // the as-read path's keys: each one's place in the text, length and last four bytes
  readonly #keyAt: number[] = [];
  readonly #keyLength: number[] = [];
  readonly #keyEnd: number[] = [];
  readonly #tags: number[] = [];
  readonly #nums: number[] = [];
  readonly #objects: AttributeValue[] = [];
  /** the keys over the count limit in the last attributes written */
  protected dropped = 0;

  /**
   * The attributes as the SDK's span keeps them — valid keys, the last value of a key set twice in
   * the place of its first, at most `limit` keys, array-index keys first — each a KeyValue under
   * `tag`; the keys over the limit in `dropped`. No writer: read past (a dropped event or link).
   */
  protected attributes(w: ProtoBytes | undefined, limit: number, tag: number): void {
    const n = this.int();
    this.dropped = 0;
    if (n === 0) return;
    if (w !== undefined && n <= limit && n <= LINEAR_KEYS && this.ascii && this.#asRead(w, n, tag)) return;
    const kept = this.#kept;
    kept.start(this.text);
    for (let k = 0; k < n; k++) {
      const length = this.int();
      const at = this.skip(length);
      if (length === 0) {
        diag.warn('Invalid attribute key: ');
        this.#value(kept.count);
        continue;
      }
      const found = w === undefined ? 0 : kept.find(at, length);
      if (found >= 0) {
        this.#value(found);
        continue;
      }
      if (kept.count >= limit) {
        this.dropped++;
        this.#value(kept.count);
        continue;
      }
      const slot = kept.count;
      kept.add(at, length);
      this.#value(slot);
    }
    if (w === undefined) return;
    const order = kept.order();
    if (order === undefined) for (let j = 0; j < kept.count; j++) this.#keyValue(w, j, tag);
    else for (const j of order) this.#keyValue(w, j, tag);
  }

  /** Reads a value's tag and what follows it into slot `at`. */
  #value(at: number): void {
    const tag = this.int();
    this.#tags[at] = tag;
    if (tag >= 0) this.#nums[at] = this.skip(tag);
    else if (tag === VALUE_NUMBER) this.#nums[at] = this.num();
    else if (tag === VALUE_OTHER) this.#objects[at] = this.others[this.other++]!;
  }

  #same(a: number, b: number, length: number): boolean {
    const text = this.text;
    for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
    return true;
  }

  /**
   * The attributes written as they are read, when that is what the SDK keeps: no more than the limit
   * and LINEAR_KEYS keys, none set twice, none an array index (which `for…in` lists first), in an
   * ASCII text. A KeyValue under 128 bytes with a string, a boolean or an integer below 2^14 (the
   * echo's every attribute) has its tags and one-byte lengths written as words, not a byte a call
   * with each length written back (`begin`/`end`). Anything else goes through `#keyValueOf`. When
   * a key does not fit, everything written is put back and the answer is false, nothing read.
   *
   * The part's position, numbers and text are locals, written back once (through `int()` and
   * `skip()` each read loaded and stored a field); a key is found again by its last four bytes
   * (`#keyEnd`, a key under four bytes has 0), its characters compared only when those match.
   */
  #asRead(w: ProtoBytes, n: number, tag: number): boolean {
    const from = w.pos;
    const other = this.other;
    const numbers = this.numbers;
    const text = this.view;
    const keyAt = this.#keyAt;
    const keyLength = this.#keyLength;
    const keyEnd = this.#keyEnd;
    const limit = this.limits.attributeValueLengthLimit;
    let i = this.i;
    let at = this.at;
    for (let k = 0; k < n; k++) {
      const length = numbers[i++]! | 0;
      const key = at;
      at += length;
      const c = length > 0 ? text.getUint8(key) : 48;
      let fits = c < 48 || c > 57;
      const end = length >= 4 ? text.getInt32(at - 4, true) : 0;
      for (let j = 0; fits && j < k; j++) if (keyEnd[j] === end && keyLength[j] === length && this.#same(keyAt[j]!, key, length)) fits = false;
      if (!fits) {
        w.pos = from;
        this.other = other;
        return false;
      }
      keyAt[k] = key;
      keyLength[k] = length;
      keyEnd[k] = end;
      const t = numbers[i++]! | 0;
      // the AnyValue's own bytes after its tag: a string's length byte and text, an integer's varint, a boolean's byte
      let value = -1;
      let start = 0;
      let int = 0;
      if (t >= 0) {
        start = at;
        at += t;
        // `| 0`: the cut a small integer (the limit is a double, Infinity when unset), not a double that makes every position after it one
        value = (Math.min(t, limit) | 0) + 1;
      } else if (t === VALUE_TRUE || t === VALUE_FALSE) value = 1;
      else if (t === VALUE_NUMBER) {
        int = numbers[i++]!;
        if (int >= 0 && int < 0x4000 && Number.isInteger(int)) value = int < 0x80 ? 1 : 2;
      }
      // KeyValue: tag, length, KEY, key length, key; VALUE, AnyValue length, the value's tag, its bytes
      const kv = length + value + 5;
      if (value < 0 || kv >= 0x80) {
        this.#keyValueOf(w, tag, key, length, t, t >= 0 ? start : int, t === VALUE_OTHER ? this.others[this.other++]! : undefined);
        continue;
      }
      // the KeyValue and up to three bytes past it (the words' last store)
      w.room(kv + 5);
      const v = w.view;
      let p = w.pos;
      v.setInt32(p, tag | (kv << 8) | (T.KEY << 16) | (length << 24), true);
      copyWords(v, p + 4, text, key, length);
      p += 4 + length;
      if (t >= 0) {
        v.setInt32(p, T.VALUE | ((value + 1) << 8) | (T.STRING_VALUE << 16) | ((value - 1) << 24), true);
        copyWords(v, p + 4, text, start, value - 1);
      } else if (t === VALUE_NUMBER) {
        if (int < 0x80) v.setInt32(p, T.VALUE | ((value + 1) << 8) | (T.INT_VALUE << 16) | (int << 24), true);
        else {
          v.setInt32(p, T.VALUE | ((value + 1) << 8) | (T.INT_VALUE << 16) | (((int & 0x7f) | 0x80) << 24), true);
          v.setUint8(p + 4, int >>> 7);
        }
      } else v.setInt32(p, T.VALUE | ((value + 1) << 8) | (T.BOOL_VALUE << 16) | ((t === VALUE_TRUE ? 1 : 0) << 24), true);
      w.pos = p + 3 + value;
    }
    this.i = i;
    this.at = at;
    return true;
  }

  /** Slot `j` as a KeyValue. */
  #keyValue(w: ProtoBytes, j: number, tag: number): void {
    this.#keyValueOf(w, tag, this.#kept.at[j]!, this.#kept.length[j]!, this.#tags[j]!, this.#nums[j]!, this.#objects[j]);
  }

  /** A KeyValue: the key, then the value as an AnyValue, from its tag (a string's length), its number (a string's start) and its array. */
  #keyValueOf(w: ProtoBytes, tag: number, keyAt: number, keyLength: number, t: number, num: number, object: AttributeValue | undefined): void {
    w.varint(tag);
    const kv = w.begin();
    w.byte(T.KEY);
    this.string(w, keyAt, keyLength);
    w.byte(T.VALUE);
    const value = w.begin();
    if (t >= 0) {
      w.byte(T.STRING_VALUE);
      this.string(w, num, Math.min(t, this.limits.attributeValueLengthLimit) | 0);
    } else if (t === VALUE_TRUE || t === VALUE_FALSE) w.field(T.BOOL_VALUE, t === VALUE_TRUE ? 1 : 0);
    else if (t === VALUE_NUMBER) anyValueProto(w, num);
    else anyValueProto(w, truncated(object!, this.limits.attributeValueLengthLimit));
    w.end(value);
    w.end(kv);
  }
}
