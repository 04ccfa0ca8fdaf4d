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
 * The part is read by otlp-proto-reader.ts, the attributes written by otlp-proto-attributes.ts.
 */
import type { PackedPart, PackedSpans, SpanLimits, TraceStateParser } from './packed-spans.js';
import { flags } from './otlp-json-values.js';
import { ProtoAttributesWriter } from './otlp-proto-attributes.js';
import { ProtoFrame } from './otlp-proto-frame.js';
import { hexBytes, T } from './otlp-proto-values.js';
import { copyWords, nanosAt, ProtoBytes } from './proto-bytes.js';
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

class SpanProtoEncoder extends ProtoAttributesWriter {
  spans = 0;
  #w = new ProtoBytes(1024);
  /** a span's links, read before its events and written after them */
  readonly #links = new ProtoBytes(1024);
  readonly #frame = new ProtoFrame();
  #parse!: TraceStateParser;
  #originS = 0;
  #originNs = 0;
  #s = 0;
  #ns = 0;

  start(last: PackedSpans, resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): void {
    this.spans = 0;
    this.#parse = parse;
    this.limits = limits;
    this.#w = this.#frame.start(last.scopes, resource);
    const s = Math.trunc(last.origin / 1000);
    this.#originS = s;
    this.#originNs = Math.round((last.origin / 1000 - s) * 1e9);
  }

  part(p: PackedPart): void {
    this.read(p);
    while (this.i < this.numbers.length) this.#span();
  }

  request(): Buffer {
    return this.#frame.request(this.#w);
  }

  /** An id's field, tag first: its bytes from its hex text, or from the random block its reference names. */
  #id(w: ProtoBytes, tag: number, length: number, at: number, bytes: number): void {
    if (length >= 0) {
      w.byte(tag);
      hexBytes(w, this.text, at, length);
      return;
    }
    // 16 or 8 bytes at an offset a multiple of 8 in a 4 KB block: whole words after the tag and length
    const r = -1 - length;
    w.room(2);
    w.buf[w.pos] = tag;
    w.buf[w.pos + 1] = bytes;
    w.pos += 2;
    w.words(this.blockViews[Math.floor(r / ID_BLOCK_BYTES)]!, r % ID_BLOCK_BYTES, bytes);
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

  /**
   * One span. Its head's 13 numbers are read as locals: through `int()`, `num()` and `skip()` each
   * read loaded and stored `this.i` or `this.at`, and V8 left `int` out of line (1.5 k instructions a
   * request, docs/benchmarks.md, enc40). The usual span — ids by reference, no trace state, a short
   * ASCII name, then no link, no event and a status without a message — is written with one room
   * check for its head and one for its tail (`#head`, `#tail`); any other field goes the general way.
   */
  #span(): void {
    const w = this.#w;
    const numbers = this.numbers;
    const i = this.i;
    let at = this.at;
    const nameLength = numbers[i]! | 0;
    const name = at;
    at += nameLength;
    const kind = numbers[i + 1]!;
    const traceIdLength = numbers[i + 2]! | 0;
    const traceId = at;
    if (traceIdLength > 0) at += traceIdLength;
    const spanIdLength = numbers[i + 3]! | 0;
    const spanId = at;
    if (spanIdLength > 0) at += spanIdLength;
    const traceFlags = numbers[i + 4]!;
    const traceStateLength = numbers[i + 5]! | 0;
    const traceState = at;
    at += traceStateLength;
    const parentLength = numbers[i + 6]! | 0;
    const parent = at;
    if (parentLength > 0) at += parentLength;
    const parentRemote = numbers[i + 7] === 1;
    const scope = numbers[i + 8]!;
    this.#time(numbers[i + 9]!);
    const startS = this.#s;
    const startNs = this.#ns;
    this.#time(numbers[i + 10]!);
    // an end before the start: the span ends when it started (unpackSpans's negative duration)
    const before = this.#s - startS - (this.#ns - startNs < 0 ? 1 : 0) < 0;
    const endS = before ? startS : this.#s;
    const endNs = before ? startNs : this.#ns;
    const code = numbers[i + 11]!;
    const messageLength = numbers[i + 12]! | 0;
    const message = at;
    this.i = i + 13;
    this.at = at + messageLength;

    // the span's tag, two bytes kept for its length
    const from = w.pos;
    if (traceIdLength < 0 && spanIdLength < 0 && parentLength <= 0 && traceStateLength === 0 && this.ascii && nameLength < 0x80 && kind >= 0 && kind < 0x7f)
      this.#head(w, traceIdLength, spanIdLength, parentLength, name, nameLength, kind + 1, startS, startNs, endS, endNs);
    else {
      w.room(3);
      w.buf[from] = T.SCOPE_SPAN;
      w.pos = from + 3;
      this.#id(w, T.TRACE_ID, traceIdLength, traceId, 16);
      this.#id(w, T.SPAN_ID, spanIdLength, spanId, 8);
      if (traceStateLength > 0) this.#traceState(w, this.text.slice(traceState, traceState + traceStateLength), T.TRACE_STATE);
      if (parentLength !== 0) this.#id(w, T.PARENT_SPAN_ID, parentLength, parent, 8);
      if (this.ascii && nameLength < 0x80) {
        this.#small(w, T.NAME, nameLength);
        w.words(this.view, name, nameLength);
      } else {
        w.byte(T.NAME);
        this.string(w, name, nameLength);
      }
      // the kind (1 to 5 on the wire), then the start time's tag
      this.#small(w, T.KIND, kind + 1);
      w.byte(T.START_TIME);
      w.nanos(startS, startNs);
      w.byte(T.END_TIME);
      w.nanos(endS, endNs);
    }
    this.attributes(w, this.limits.attributeCountLimit, T.ATTRIBUTES);
    const spanFlags = flags(traceFlags, parentLength !== 0 && parentRemote);
    // no link, no event (their counts next), nothing dropped, a status without a message
    if (numbers[this.i] === 0 && numbers[this.i + 1] === 0 && this.dropped < 0x80 && messageLength === 0 && code >= 0 && code < 0x80) {
      this.i += 2;
      this.#tail(w, this.dropped, code, spanFlags);
    } else {
      this.#small(w, T.DROPPED_ATTRIBUTES, this.dropped);
      const droppedLinks = this.#linksAside();
      this.#events(w);
      if (this.#links.pos > 0) w.copy(this.#links.buf, 0, this.#links.pos);
      this.#small(w, T.DROPPED_LINKS, droppedLinks);
      if (messageLength > 0 || code < 0 || code >= 0x80) {
        w.byte(T.STATUS);
        const status = w.begin();
        if (messageLength > 0) {
          w.byte(T.STATUS_MESSAGE);
          this.string(w, message, messageLength);
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
      w.fixed32(spanFlags);
    }
    w.end(from + 1, 2);
    this.#frame.span(w, scope, from, w.pos);
    this.spans++;
  }

  /**
   * The usual span's head, one room check: its tag and two bytes for its length, the trace, span and
   * parent (`parentLength` < 0; none when 0) ids from their blocks, the name (ASCII, under 128
   * bytes), the kind as it goes on the wire (1 to 127), the start and end times.
   */
  #head(w: ProtoBytes, traceIdLength: number, spanIdLength: number, parentLength: number, name: number, nameLength: number, kind: number, startS: number, startNs: number, endS: number, endNs: number): void {
    w.room(nameLength + 72);
    const v = w.view;
    let p = w.pos;
    w.buf[p] = T.SCOPE_SPAN;
    p = this.#idWords(v, p + 3, T.TRACE_ID | (16 << 8), traceIdLength, 16);
    p = this.#idWords(v, p, T.SPAN_ID | (8 << 8), spanIdLength, 8);
    if (parentLength < 0) p = this.#idWords(v, p, T.PARENT_SPAN_ID | (8 << 8), parentLength, 8);
    v.setInt16(p, T.NAME | (nameLength << 8), true);
    copyWords(v, p + 2, this.view, name, nameLength);
    p += 2 + nameLength;
    v.setInt32(p, T.KIND | (kind << 8) | (T.START_TIME << 16), true);
    nanosAt(v, p + 3, startS, startNs);
    v.setInt8(p + 11, T.END_TIME);
    nanosAt(v, p + 12, endS, endNs);
    w.pos = p + 20;
  }

  /** An id's tag and length (`head`, two bytes) at `p`, then its `bytes` from the block its reference names; answers the position after it. */
  #idWords(v: DataView, p: number, head: number, ref: number, bytes: number): number {
    const r = -1 - ref;
    // 16 or 8 bytes at an offset a multiple of 8 in a 4 KB block
    const block = this.blockViews[(r / ID_BLOCK_BYTES) | 0]!;
    const o = r % ID_BLOCK_BYTES;
    v.setInt16(p, head, true);
    v.setInt32(p + 2, block.getInt32(o, true), true);
    v.setInt32(p + 6, block.getInt32(o + 4, true), true);
    if (bytes === 16) {
      v.setInt32(p + 10, block.getInt32(o + 8, true), true);
      v.setInt32(p + 14, block.getInt32(o + 12, true), true);
    }
    return p + 2 + bytes;
  }

  /**
   * The usual span's tail, one room check: the dropped attributes (under 128), no event, no link,
   * a status without a message (code 0 to 127), the flags: 16 bytes.
   */
  #tail(w: ProtoBytes, dropped: number, code: number, spanFlags: number): void {
    w.room(16);
    const v = w.view;
    const p = w.pos;
    v.setInt32(p, T.DROPPED_ATTRIBUTES | (dropped << 8) | (T.DROPPED_EVENTS << 16), true);
    v.setInt32(p + 4, T.DROPPED_LINKS | (T.STATUS << 16) | (2 << 24), true);
    // the flags' tag, field 16, is two varint bytes
    v.setInt32(p + 8, T.STATUS_CODE | (code << 8) | (((T.FLAGS & 0x7f) | 0x80) << 16) | ((T.FLAGS >>> 7) << 24), true);
    v.setUint32(p + 12, spanFlags >>> 0, true);
    w.pos = p + 16;
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
    const n = this.num();
    const dropped = Math.max(0, n - this.limits.linkCountLimit);
    for (let k = 0; k < n; k++) {
      const traceIdLength = this.int();
      const traceId = this.skip(traceIdLength);
      const spanIdLength = this.int();
      const spanId = this.skip(spanIdLength);
      const traceFlags = this.num();
      const traceState = this.str();
      const remote = this.num() === 1;
      if (k < dropped) {
        this.attributes(undefined, 0, 0);
        continue;
      }
      l.byte(T.LINK);
      const at = l.begin();
      l.byte(T.LINK_TRACE_ID);
      hexBytes(l, this.text, traceId, traceIdLength);
      l.byte(T.LINK_SPAN_ID);
      hexBytes(l, this.text, spanId, spanIdLength);
      if (traceState) this.#traceState(l, traceState, T.LINK_TRACE_STATE);
      this.attributes(l, this.limits.attributePerLinkCountLimit, T.LINK_ATTRIBUTES);
      l.field(T.LINK_DROPPED_ATTRIBUTES, this.dropped);
      l.byte(T.LINK_FLAGS);
      l.fixed32(flags(traceFlags, remote));
      l.end(at);
    }
    return dropped;
  }

  /** The span's events (the last `eventCountLimit` of them), then their dropped count. */
  #events(w: ProtoBytes): void {
    const n = this.num();
    const dropped = Math.max(0, n - this.limits.eventCountLimit);
    for (let k = 0; k < n; k++) {
      const nameLength = this.int();
      const name = this.skip(nameLength);
      const perfMs = this.num();
      if (k < dropped) {
        this.attributes(undefined, 0, 0);
        continue;
      }
      this.#time(perfMs);
      w.byte(T.EVENT);
      const at = w.begin();
      w.byte(T.EVENT_TIME);
      w.nanos(this.#s, this.#ns);
      w.byte(T.EVENT_NAME);
      this.string(w, name, nameLength);
      this.attributes(w, this.limits.attributePerEventCountLimit, T.EVENT_ATTRIBUTES);
      w.field(T.EVENT_DROPPED_ATTRIBUTES, this.dropped);
      w.end(at);
    }
    this.#small(w, T.DROPPED_EVENTS, dropped);
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
