/**
 * The OTLP/HTTP binary protobuf request body of a packed batch (packed-spans.ts), written straight
 * from the packed strings and numbers (proto-bytes.ts): the bytes the SDK's `ProtobufTraceSerializer`
 * writes for the same spans (the fields in its order, canonical lengths), without ReadableSpans
 * (ADR 0086). Against the JSON request (otlp-json.ts) there is nothing to escape and no digit to
 * write: ids are their 16 and 8 bytes copied from the random blocks, times two 32-bit words, field
 * names one tag byte; and the body is less than half the JSON's, which the HTTP send copies.
 *
 * What the SDK does and this does too: attributes in the order of the span's attribute object
 * (integer-like keys first, as `for…in` lists them), the last value of a key set twice in its first
 * place, the count, length, event and link limits as unpackSpans applies them, spans grouped by
 * their scope object in order of first appearance, the span flags with the has-is-remote bit.
 */
import { diag, type AttributeValue } from '@opentelemetry/api';
import type { PackedPart, PackedSpans, SpanLimits, TraceStateParser } from './packed-spans.js';
import { VALUE_FALSE, VALUE_NUMBER, VALUE_OTHER, VALUE_TRUE } from './packed-spans-writer.js';
import { flags, isArrayIndex, truncated } from './otlp-json-values.js';
import { ProtoFrame } from './otlp-proto-frame.js';
import { anyValueProto, hexBytes, T } from './otlp-proto-values.js';
import { ProtoBytes } from './proto-bytes.js';
import { ID_BLOCK_BYTES } from './span-ids.js';

export { resourceProto } from './otlp-proto-values.js';

/** The request body for a batch: the spans of its `earlier` parts, in order, then those of `last`. */
export function otlpProtoRequest(last: PackedSpans, earlier: readonly PackedPart[], resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): { body: Buffer; spans: number } {
  const e = (encoder ??= new SpanProtoEncoder());
  e.start(last, resource, parse, limits);
  for (const part of earlier) e.part(part);
  e.part(last);
  return { body: e.request(), spans: e.spans };
}

let encoder: SpanProtoEncoder | undefined;

/** Keys compared one by one up to this many; past it a map finds a key set again. */
const LINEAR_KEYS = 16;

class SpanProtoEncoder {
  spans = 0;
  #w = new ProtoBytes(1024);
  /** a span's links, read before its events and written after them */
  readonly #links = new ProtoBytes(1024);
  readonly #frame = new ProtoFrame();
  #parse!: TraceStateParser;
  #limits!: SpanLimits;
  #originS = 0;
  #originNs = 0;
  #text = '';
  /** the text's UTF-8 when it is all ASCII (one byte a character), kept from part to part */
  #scratch = Buffer.allocUnsafe(0);
  #view = new DataView(this.#scratch.buffer, 0, 0);
  #ascii = false;
  #numbers!: Float64Array;
  #others: AttributeValue[] = [];
  #blocks: readonly Uint8Array[] = [];
  #blockViews: DataView[] = [];
  #i = 0;
  #at = 0;
  #other = 0;
  // a span's (event's, link's) attributes kept: each key's place in the text, and its value's tag (a string's length), number (a string's start) and array
  readonly #keyAt: number[] = [];
  readonly #keyLength: number[] = [];
  readonly #tags: number[] = [];
  readonly #nums: number[] = [];
  readonly #objects: AttributeValue[] = [];
  #dropped = 0;
  #s = 0;
  #ns = 0;

  start(last: PackedSpans, resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): void {
    this.spans = 0;
    this.#parse = parse;
    this.#limits = limits;
    this.#w = this.#frame.start(last.scopes, resource);
    const s = Math.trunc(last.origin / 1000);
    this.#originS = s;
    this.#originNs = Math.round((last.origin / 1000 - s) * 1e9);
  }

  part(p: PackedPart): void {
    this.#text = p.text;
    const n = p.text.length;
    if (this.#scratch.length < n + 4) {
      this.#scratch = Buffer.allocUnsafe(n + 4 + (n >> 2));
      this.#view = new DataView(this.#scratch.buffer, this.#scratch.byteOffset, this.#scratch.length);
    }
    // written as UTF-8, an ASCII text takes one byte a character (a text that is not fills more)
    this.#ascii = this.#scratch.write(p.text, 0, 'utf8') === n;
    this.#numbers = p.numbers;
    this.#others = p.others;
    this.#blocks = p.blocks ?? [];
    this.#blockViews = this.#blocks.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength));
    this.#i = 0;
    this.#at = 0;
    this.#other = 0;
    while (this.#i < this.#numbers.length) this.#span();
  }

  request(): Buffer {
    return this.#frame.request(this.#w);
  }

  #num(): number {
    return this.#numbers[this.#i++]!;
  }

  #skip(length: number): number {
    const at = this.#at;
    this.#at = at + length;
    return at;
  }

  #str(): string {
    const n = this.#num();
    return this.#text.slice(this.#at, (this.#at += n));
  }

  /** `length` characters of the text at `start`, as a length and their UTF-8 bytes. */
  #string(w: ProtoBytes, start: number, length: number): void {
    if (this.#ascii) {
      w.varint(length);
      w.words(this.#view, start, length);
    } else w.utf8(this.#text.slice(start, start + length));
  }

  /** An id's field, tag first: its bytes from its hex text, or from the random block its reference names. */
  #id(w: ProtoBytes, tag: number, length: number, at: number, bytes: number): void {
    if (length >= 0) {
      w.byte(tag);
      hexBytes(w, this.#text, at, length);
      return;
    }
    // 16 or 8 bytes at an offset a multiple of 8 in a 4 KB block: whole words after the tag and length
    const r = -1 - length;
    w.room(2);
    w.buf[w.pos] = tag;
    w.buf[w.pos + 1] = bytes;
    w.pos += 2;
    w.words(this.#blockViews[Math.floor(r / ID_BLOCK_BYTES)]!, r % ID_BLOCK_BYTES, bytes);
  }

  /** A field with a one-byte tag and a varint, written in place when both are one byte (a call to `field` each was ~90 instructions, out of line). */
  #small(w: ProtoBytes, tag: number, v: number): void {
    if (v < 0 || v >= 0x80) {
      w.field(tag, v);
      return;
    }
    w.room(2);
    w.buf[w.pos] = tag;
    w.buf[w.pos + 1] = v;
    w.pos += 2;
  }

  #span(): void {
    const w = this.#w;
    const nameLength = this.#num();
    const name = this.#skip(nameLength);
    const kind = this.#num();
    const traceIdLength = this.#num();
    const traceId = traceIdLength > 0 ? this.#skip(traceIdLength) : 0;
    const spanIdLength = this.#num();
    const spanId = spanIdLength > 0 ? this.#skip(spanIdLength) : 0;
    const traceFlags = this.#num();
    const traceState = this.#str();
    const parentLength = this.#num();
    const parent = parentLength > 0 ? this.#skip(parentLength) : 0;
    const parentRemote = this.#num() === 1;
    const scope = this.#num();
    this.#time(this.#num());
    const startS = this.#s;
    const startNs = this.#ns;
    this.#time(this.#num());
    // an end before the start: the span ends when it started (unpackSpans's negative duration)
    const before = this.#s - startS - (this.#ns - startNs < 0 ? 1 : 0) < 0;
    const code = this.#num();
    const messageLength = this.#num();
    const message = this.#skip(messageLength);

    // the span's tag, two bytes kept for its length
    w.room(3);
    const from = w.pos;
    w.buf[from] = T.SCOPE_SPAN;
    w.pos = from + 3;
    const at = from + 1;
    this.#id(w, T.TRACE_ID, traceIdLength, traceId, 16);
    this.#id(w, T.SPAN_ID, spanIdLength, spanId, 8);
    if (traceState) this.#traceState(w, traceState, T.TRACE_STATE);
    if (parentLength !== 0) this.#id(w, T.PARENT_SPAN_ID, parentLength, parent, 8);
    if (this.#ascii && nameLength < 0x80) {
      this.#small(w, T.NAME, nameLength);
      w.words(this.#view, name, nameLength);
    } else {
      w.byte(T.NAME);
      this.#string(w, name, nameLength);
    }
    // the kind (1 to 5 on the wire), then the start time's tag
    this.#small(w, T.KIND, kind + 1);
    w.byte(T.START_TIME);
    w.nanos(startS, startNs);
    w.byte(T.END_TIME);
    if (before) w.nanos(startS, startNs);
    else w.nanos(this.#s, this.#ns);
    this.#attributes(w, this.#limits.attributeCountLimit, T.ATTRIBUTES);
    this.#small(w, T.DROPPED_ATTRIBUTES, this.#dropped);
    const droppedLinks = this.#linksAside();
    this.#events(w);
    if (this.#links.pos > 0) w.copy(this.#links.buf, 0, this.#links.pos);
    this.#small(w, T.DROPPED_LINKS, droppedLinks);
    if (messageLength > 0 || code < 0 || code >= 0x80) {
      w.byte(T.STATUS);
      const status = w.begin();
      if (messageLength > 0) {
        w.byte(T.STATUS_MESSAGE);
        this.#string(w, message, messageLength);
      }
      w.field(T.STATUS_CODE, code);
      w.end(status);
    } else {
      // a status without a message: its tag, length 2, the code's tag and the code (0 to 2): one word
      w.room(4);
      w.view.setInt32(w.pos, T.STATUS | (2 << 8) | (T.STATUS_CODE << 16) | (code << 24), true);
      w.pos += 4;
    }
    w.varint(T.FLAGS);
    w.fixed32(flags(traceFlags, parentLength !== 0 && parentRemote));
    w.end(at, 2);
    this.#frame.span(scope, from, w.pos);
    this.spans++;
  }

  /** A trace state as the SDK's parser serializes it, when that is not empty. */
  #traceState(w: ProtoBytes, traceState: string, tag: number): void {
    const serialized = this.#parse(traceState).serialize();
    if (!serialized) return;
    w.varint(tag);
    w.utf8(serialized);
  }

  /** The span's links into `#links` (the last `linkCountLimit` of them); answers how many were dropped. */
  #linksAside(): number {
    const l = this.#links;
    l.pos = 0;
    const n = this.#num();
    const dropped = Math.max(0, n - this.#limits.linkCountLimit);
    for (let k = 0; k < n; k++) {
      const traceIdLength = this.#num();
      const traceId = this.#skip(traceIdLength);
      const spanIdLength = this.#num();
      const spanId = this.#skip(spanIdLength);
      const traceFlags = this.#num();
      const traceState = this.#str();
      const remote = this.#num() === 1;
      if (k < dropped) {
        this.#attributes(undefined, 0, 0);
        continue;
      }
      l.byte(T.LINK);
      const at = l.begin();
      l.byte(T.LINK_TRACE_ID);
      hexBytes(l, this.#text, traceId, traceIdLength);
      l.byte(T.LINK_SPAN_ID);
      hexBytes(l, this.#text, spanId, spanIdLength);
      if (traceState) this.#traceState(l, traceState, T.LINK_TRACE_STATE);
      this.#attributes(l, this.#limits.attributePerLinkCountLimit, T.LINK_ATTRIBUTES);
      l.field(T.LINK_DROPPED_ATTRIBUTES, this.#dropped);
      l.byte(T.LINK_FLAGS);
      l.fixed32(flags(traceFlags, remote));
      l.end(at);
    }
    return dropped;
  }

  /** The span's events (the last `eventCountLimit` of them), then their dropped count. */
  #events(w: ProtoBytes): void {
    const n = this.#num();
    const dropped = Math.max(0, n - this.#limits.eventCountLimit);
    for (let k = 0; k < n; k++) {
      const nameLength = this.#num();
      const name = this.#skip(nameLength);
      const perfMs = this.#num();
      if (k < dropped) {
        this.#attributes(undefined, 0, 0);
        continue;
      }
      this.#time(perfMs);
      w.byte(T.EVENT);
      const at = w.begin();
      w.byte(T.EVENT_TIME);
      w.nanos(this.#s, this.#ns);
      w.byte(T.EVENT_NAME);
      this.#string(w, name, nameLength);
      this.#attributes(w, this.#limits.attributePerEventCountLimit, T.EVENT_ATTRIBUTES);
      w.field(T.EVENT_DROPPED_ATTRIBUTES, this.#dropped);
      w.end(at);
    }
    this.#small(w, T.DROPPED_EVENTS, dropped);
  }

  /**
   * The attributes as the SDK's span keeps them — valid keys, the last value of a key set twice in
   * the place of its first, at most `limit` keys, array-index keys first — each a KeyValue under
   * `tag`; the keys over the limit in `#dropped`. No writer: read past (a dropped event or link).
   */
  #attributes(w: ProtoBytes | undefined, limit: number, tag: number): void {
    const n = this.#num();
    this.#dropped = 0;
    if (n === 0) return;
    if (w !== undefined && n <= limit && n <= LINEAR_KEYS && this.#ascii && this.#asRead(w, n, tag)) return;
    const keyAt = this.#keyAt;
    const keyLength = this.#keyLength;
    const text = this.#text;
    let count = 0;
    let digit = false;
    let index: Map<string, number> | undefined;
    for (let k = 0; k < n; k++) {
      const length = this.#num();
      const at = this.#skip(length);
      if (length === 0) {
        diag.warn('Invalid attribute key: ');
        this.#value(count);
        continue;
      }
      let found = -1;
      if (w === undefined) found = 0;
      else if (index) found = index.get(text.slice(at, at + length)) ?? -1;
      else
        for (let j = 0; j < count; j++)
          if (keyLength[j] === length && this.#same(keyAt[j]!, at, length)) {
            found = j;
            break;
          }
      if (found >= 0) {
        this.#value(found);
        continue;
      }
      if (count >= limit) {
        this.#dropped++;
        this.#value(count);
        continue;
      }
      keyAt[count] = at;
      keyLength[count] = length;
      this.#value(count);
      const c = text.charCodeAt(at);
      if (c >= 48 && c <= 57) digit = true;
      if (index) index.set(text.slice(at, at + length), count);
      else if (count === LINEAR_KEYS) {
        // past 16 keys a map finds a key set again, not a search
        index = new Map();
        for (let j = 0; j <= count; j++) index.set(text.slice(keyAt[j]!, keyAt[j]! + keyLength[j]!), j);
      }
      count++;
    }
    if (w === undefined) return;
    if (!digit) {
      for (let j = 0; j < count; j++) this.#keyValue(w, j, tag);
      return;
    }
    // an object lists its array-index keys first, ascending, then the others as set
    const keys = Array.from({ length: count }, (_, j) => text.slice(keyAt[j]!, keyAt[j]! + keyLength[j]!));
    const order = keys.flatMap((key, j) => (isArrayIndex(key) ? [j] : []));
    order.sort((a, b) => Number(keys[a]) - Number(keys[b]));
    for (let j = 0; j < count; j++) if (!isArrayIndex(keys[j]!)) order.push(j);
    for (const j of order) this.#keyValue(w, j, tag);
  }

  /** Reads a value's tag and what follows it into slot `at`. */
  #value(at: number): void {
    const tag = this.#num();
    this.#tags[at] = tag;
    if (tag >= 0) this.#nums[at] = this.#skip(tag);
    else if (tag === VALUE_NUMBER) this.#nums[at] = this.#num();
    else if (tag === VALUE_OTHER) this.#objects[at] = this.#others[this.#other++]!;
  }

  #same(a: number, b: number, length: number): boolean {
    const text = this.#text;
    for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
    return true;
  }

  /**
   * The attributes written as they are read, when that is what the SDK keeps: no more than the limit
   * and LINEAR_KEYS keys, none set twice, none an array index (which `for…in` lists first), in an
   * ASCII text. A KeyValue under 128 bytes with a string, a boolean or an integer below 2^14 (the
   * echo's every attribute) has its tags and one-byte lengths written as words, not a byte a call
   * with each length written back (`begin`/`end`). Anything else goes through `#keyValueOf`. When
   * a key does not fit, everything read and written is put back and the answer is false.
   */
  #asRead(w: ProtoBytes, n: number, tag: number): boolean {
    const from = w.pos;
    const i = this.#i;
    const at = this.#at;
    const other = this.#other;
    const keyAt = this.#keyAt;
    const keyLength = this.#keyLength;
    const text = this.#view;
    for (let k = 0; k < n; k++) {
      const length = this.#num();
      const key = this.#skip(length);
      const c = length > 0 ? this.#text.charCodeAt(key) : 48;
      let fits = c < 48 || c > 57;
      for (let j = 0; fits && j < k; j++) if (keyLength[j] === length && this.#same(keyAt[j]!, key, length)) fits = false;
      if (!fits) {
        w.pos = from;
        this.#i = i;
        this.#at = at;
        this.#other = other;
        return false;
      }
      keyAt[k] = key;
      keyLength[k] = length;
      const t = this.#num();
      // the AnyValue's own bytes after its tag: a string's length byte and text, an integer's varint, a boolean's byte
      let value = -1;
      let start = 0;
      let int = 0;
      if (t >= 0) {
        start = this.#skip(t);
        value = Math.min(t, this.#limits.attributeValueLengthLimit) + 1;
      } else if (t === VALUE_TRUE || t === VALUE_FALSE) value = 1;
      else if (t === VALUE_NUMBER) {
        int = this.#num();
        if (int >= 0 && int < 0x4000 && Number.isInteger(int)) value = int < 0x80 ? 1 : 2;
      }
      // KeyValue: tag, length, KEY, key length, key; VALUE, AnyValue length, the value's tag, its bytes
      const kv = length + value + 5;
      if (value < 0 || kv >= 0x80) {
        this.#keyValueOf(w, tag, key, length, t, t >= 0 ? start : int, t === VALUE_OTHER ? this.#others[this.#other++]! : undefined);
        continue;
      }
      w.room(kv + 2);
      w.view.setInt32(w.pos, tag | (kv << 8) | (T.KEY << 16) | (length << 24), true);
      w.pos += 4;
      w.words(text, key, length);
      if (t >= 0) {
        w.view.setInt32(w.pos, T.VALUE | ((value + 1) << 8) | (T.STRING_VALUE << 16) | ((value - 1) << 24), true);
        w.pos += 4;
        w.words(text, start, value - 1);
      } else {
        const b = w.buf;
        let p = w.pos;
        b[p] = T.VALUE;
        b[p + 1] = value + 1;
        if (t === VALUE_NUMBER) {
          b[p + 2] = T.INT_VALUE;
          if (int < 0x80) b[p + 3] = int;
          else {
            b[p + 3] = (int & 0x7f) | 0x80;
            b[p + 4] = int >>> 7;
          }
        } else {
          b[p + 2] = T.BOOL_VALUE;
          b[p + 3] = t === VALUE_TRUE ? 1 : 0;
        }
        p += 3 + value;
        w.pos = p;
      }
    }
    return true;
  }

  /** Slot `j` as a KeyValue. */
  #keyValue(w: ProtoBytes, j: number, tag: number): void {
    this.#keyValueOf(w, tag, this.#keyAt[j]!, this.#keyLength[j]!, this.#tags[j]!, this.#nums[j]!, this.#objects[j]);
  }

  /** A KeyValue: the key, then the value as an AnyValue, from its tag (a string's length), its number (a string's start) and its array. */
  #keyValueOf(w: ProtoBytes, tag: number, keyAt: number, keyLength: number, t: number, num: number, object: AttributeValue | undefined): void {
    w.varint(tag);
    const kv = w.begin();
    w.byte(T.KEY);
    this.#string(w, keyAt, keyLength);
    w.byte(T.VALUE);
    const value = w.begin();
    if (t >= 0) {
      w.byte(T.STRING_VALUE);
      this.#string(w, num, Math.min(t, this.#limits.attributeValueLengthLimit));
    } else if (t === VALUE_TRUE || t === VALUE_FALSE) w.field(T.BOOL_VALUE, t === VALUE_TRUE ? 1 : 0);
    else if (t === VALUE_NUMBER) anyValueProto(w, num);
    else anyValueProto(w, truncated(object!, this.#limits.attributeValueLengthLimit));
    w.end(value);
    w.end(kv);
  }

  /** A recorded `performance.now()` reading as seconds and nanoseconds (`#s`, `#ns`), as unpackSpans computes it (ProtoBytes.nanos takes the parts as they come). */
  #time(perfMs: number): void {
    const s = Math.trunc(perfMs / 1000);
    this.#s = this.#originS + s;
    this.#ns = this.#originNs + Math.round((perfMs / 1000 - s) * 1e9);
    if (this.#ns >= 1e9) {
      this.#s += 1;
      this.#ns -= 1e9;
    }
  }
}
