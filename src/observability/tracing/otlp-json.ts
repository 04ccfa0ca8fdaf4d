/**
 * The OTLP/HTTP JSON request body of a packed batch (packed-spans.ts), written as UTF-8 bytes
 * straight from the packed strings and numbers (json-bytes.ts): the bytes the SDK's exporter sent
 * for the same spans — its OTLP transform (`createExportTraceServiceRequest`) then `JSON.stringify`
 * — with no ReadableSpan, no object tree and no stringify of one (ADR 0082). A string goes from
 * the batch's text to the body without a substring of it being made, but for attribute keys (kept
 * to find a key set twice) and trace states (parsed as the SDK does).
 *
 * What the SDK writes, in its order (absent fields left out, as `JSON.stringify` leaves out
 * `undefined`): ids as hex strings (the JSON encoder's), 64-bit times as decimal strings, the kind
 * plus one, attributes as AnyValue lists in the order of the span's attribute object (integer-like
 * keys first, as `Object.keys` lists them), the span flags with the has-is-remote bit, spans
 * grouped by instrumentation scope in the order each scope first appears. The attribute, event and
 * link limits are applied as unpackSpans applies them.
 */
import { diag, type AttributeValue } from '@opentelemetry/api';
import { hasControl, JsonBytes } from './json-bytes.js';
import type { PackedPart, PackedSpans, SpanLimits, TraceStateParser } from './packed-spans.js';
import { VALUE_FALSE, VALUE_NUMBER, VALUE_OTHER, VALUE_TRUE } from './packed-spans-writer.js';
import { KeptKeys, LINEAR_KEYS } from './attribute-keys.js';
import { anyValue, flags, nanos, truncated } from './otlp-json-values.js';
import { RequestFrame } from './otlp-json-frame.js';
import { ID_BLOCK_BYTES } from './span-ids.js';
import * as K from './otlp-json-keys.js';

export { resourceJson } from './otlp-json-values.js';

/** The request body for a batch: the spans of its `earlier` parts, in order, then those of `last`. */
export function otlpJsonRequest(last: PackedSpans, earlier: readonly PackedPart[], resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): { body: Buffer; spans: number } {
  const e = (encoder ??= new SpanEncoder());
  e.start(last, resource, parse, limits);
  for (const part of earlier) e.part(part);
  e.part(last);
  return { body: e.request(), spans: e.spans };
}

let encoder: SpanEncoder | undefined;

/** Writes the spans of a batch's parts, then the request around them (otlp-json-frame.ts). */
class SpanEncoder {
  spans = 0;
  /** the spans, each after a comma but the first, after room for the request's head */
  #w = new JsonBytes(1024);
  /** a span's links, written before its events and placed after them */
  readonly #links = new JsonBytes(1024);
  #parse!: TraceStateParser;
  #limits!: SpanLimits;
  /** the resource and scopes around the spans */
  readonly #frame = new RequestFrame();
  #originS = 0;
  #originNs = 0;
  // the part being read
  #text = '';
  /** the text's bytes when it is all ASCII (`#scratch`) */
  #bytes: Buffer | undefined;
  /** where a part's text is written as UTF-8, kept from part to part */
  #scratch = Buffer.allocUnsafe(0);
  #view = new DataView(this.#scratch.buffer, 0, 0);
  /** whether no character of the text needs an escape in JSON */
  #plain = false;
  #numbers!: Float64Array;
  #others: AttributeValue[] = [];
  /** the random blocks the part's ids by reference lie in */
  #blocks: readonly Uint8Array[] = [];
  #i = 0;
  #at = 0;
  #other = 0;
  /** the general attribute path's kept keys */
  readonly #kept = new KeptKeys();
  // the attributes being read: where each key is in the text (the as-read path), and each value as its tag (a string's length), its number (a string's start) and its array
  readonly #keyAt: number[] = [];
  readonly #keyLength: number[] = [];
  readonly #tags: number[] = [];
  readonly #nums: number[] = [];
  readonly #objects: AttributeValue[] = [];
  /** what the last `#attributes` dropped */
  #dropped = 0;
  // the last time read, as seconds and nanoseconds
  #s = 0;
  #ns = 0;

  start(last: PackedSpans, resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): void {
    this.spans = 0;
    this.#parse = parse;
    this.#limits = limits;
    this.#w = this.#frame.start(last.scopes, resource);
    // the origin as @opentelemetry/core's millisToHrTime makes it
    const s = Math.trunc(last.origin / 1000);
    this.#originS = s;
    this.#originNs = Math.round((last.origin / 1000 - s) * 1e9);
  }

  part(p: PackedPart): void {
    this.#text = p.text;
    // an ASCII text (the usual one) is copied to the body byte by byte from its bytes, unchecked
    // when no character of it needs an escape. Its UTF-8 written into a buffer kept from part to
    // part tells and copies at once: a text is ASCII when it took one byte a character (with 4
    // bytes to spare, a text that is not fills more than its length: a character is at most 3)
    const n = p.text.length;
    if (this.#scratch.length < n + 4) {
      this.#scratch = Buffer.allocUnsafe(n + 4 + (n >> 2));
      this.#view = new DataView(this.#scratch.buffer, this.#scratch.byteOffset, this.#scratch.length);
    }
    this.#bytes = this.#scratch.write(p.text, 0, 'utf8') === n ? this.#scratch : undefined;
    // quotes and backslashes found by the string's own search (a vectorised loop), control characters a word at a time
    this.#plain = this.#bytes !== undefined && p.text.indexOf('"') < 0 && p.text.indexOf('\\') < 0 && !hasControl(this.#view, n);
    this.#numbers = p.numbers;
    this.#others = p.others;
    this.#blocks = p.blocks ?? [];
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

  /** Skips a string, answering where it starts in the text (its length is the number before). */
  #skip(length: number): number {
    const at = this.#at;
    this.#at = at + length;
    return at;
  }

  /** Characters of the part's text as a JSON string. */
  #string(w: JsonBytes, start: number, length: number): void {
    if (this.#plain) w.plainString(this.#bytes!, this.#view, start, length);
    else if (this.#bytes) w.asciiString(this.#bytes, this.#text, start, length);
    else w.string(this.#text, start, length);
  }

  /** Skips an id's text, answering where it starts; a reference (`length` < 0) has none. */
  #skipId(length: number): number {
    return length > 0 ? this.#skip(length) : 0;
  }

  /** An id of `bytes` bytes as a JSON string: its text, or the hex of the bytes its reference names (packed-spans.ts, `idReference`). */
  #id(w: JsonBytes, length: number, at: number, bytes: number): void {
    if (length >= 0) {
      this.#string(w, at, length);
      return;
    }
    const r = -1 - length;
    w.hexString(this.#blocks[Math.floor(r / ID_BLOCK_BYTES)]!, r % ID_BLOCK_BYTES, bytes);
  }

  #str(): string {
    const n = this.#num();
    return this.#text.slice(this.#at, (this.#at += n));
  }

  #span(): void {
    const w = this.#w;
    const nameLength = this.#num();
    const name = this.#skip(nameLength);
    const kind = this.#num();
    const traceIdLength = this.#num();
    const traceId = this.#skipId(traceIdLength);
    const spanIdLength = this.#num();
    const spanId = this.#skipId(spanIdLength);
    const traceFlags = this.#num();
    const traceState = this.#str();
    // 0: a root; < 0: a reference
    const parentLength = this.#num();
    const parent = this.#skipId(parentLength);
    const parentRemote = this.#num() === 1;
    const scope = this.#num();
    this.#time(this.#num());
    const startS = this.#s;
    const startNs = this.#ns;
    this.#time(this.#num());
    // an end before the start: the span ends when it started (unpackSpans's negative duration)
    const endSecs = this.#s - startS - (this.#ns - startNs < 0 ? 1 : 0);
    const endS = endSecs < 0 ? startS : this.#s;
    const endNs = endSecs < 0 ? startNs : this.#ns;
    const code = this.#num();
    const messageLength = this.#num();
    const message = this.#skip(messageLength);

    if (this.spans > 0) w.ascii(',');
    const from = w.pos;
    w.constant(K.TRACE_ID);
    this.#id(w, traceIdLength, traceId, 16);
    w.constant(K.SPAN_ID);
    this.#id(w, spanIdLength, spanId, 8);
    if (parentLength !== 0) {
      w.constant(K.PARENT_SPAN_ID);
      this.#id(w, parentLength, parent, 8);
    }
    if (traceState) {
      w.ascii(',"traceState":');
      w.text(this.#parse(traceState).serialize());
    }
    w.constant(K.NAME);
    this.#string(w, name, nameLength);
    K.kindStart(w, kind);
    nanos(w, startS, startNs);
    w.constant(K.END_TIME);
    nanos(w, endS, endNs);
    w.constant(K.ATTRIBUTES);
    this.#attributes(w, this.#limits.attributeCountLimit);
    const numbers = this.#numbers;
    if (numbers[this.#i] === 0 && numbers[this.#i + 1] === 0 && messageLength === 0) {
      // no links, no events, no status message (most spans): the rest is two constants and two numbers
      this.#i += 2;
      K.usualTail(w, this.#dropped, code);
      w.uint(flags(traceFlags, parentLength !== 0 && parentRemote));
      w.ascii('}');
      this.#frame.span(scope, from, w.pos);
      this.spans++;
      return;
    }
    // written before the links' attributes overwrite #dropped
    w.constant(K.DROPPED_ATTRIBUTES);
    w.uint(this.#dropped);
    const droppedLinks = this.#linksAside();
    w.ascii(',"events":');
    this.#events();
    w.ascii(',"status":{"code":');
    w.uint(code);
    if (messageLength > 0) {
      w.ascii(',"message":');
      this.#string(w, message, messageLength);
    }
    w.ascii('},"links":');
    if (this.#links.pos === 0) w.ascii('[]');
    else w.copy(this.#links);
    w.ascii(',"droppedLinksCount":');
    w.uint(droppedLinks);
    w.ascii(',"flags":');
    w.uint(flags(traceFlags, parentLength !== 0 && parentRemote));
    w.ascii('}');
    this.#frame.span(scope, from, w.pos);
    this.spans++;
  }

  /** The span's links into `#links` (the last `linkCountLimit` of them); answers how many were dropped. */
  #linksAside(): number {
    const l = this.#links;
    l.pos = 0;
    const n = this.#num();
    // none (the usual span): nothing written, the span writes []
    if (n === 0) return 0;
    const dropped = Math.max(0, n - this.#limits.linkCountLimit);
    l.ascii('[');
    for (let k = 0; k < n; k++) {
      const traceIdLength = this.#num();
      const traceId = this.#skip(traceIdLength);
      const spanIdLength = this.#num();
      const spanId = this.#skip(spanIdLength);
      const traceFlags = this.#num();
      const traceState = this.#str();
      const remote = this.#num() === 1;
      if (k < dropped) {
        this.#skipAttributes();
        continue;
      }
      l.ascii(k > dropped ? ',{"attributes":' : '{"attributes":');
      this.#attributes(l, this.#limits.attributePerLinkCountLimit);
      l.ascii(',"spanId":');
      this.#string(l, spanId, spanIdLength);
      l.ascii(',"traceId":');
      this.#string(l, traceId, traceIdLength);
      if (traceState) {
        l.ascii(',"traceState":');
        l.text(this.#parse(traceState).serialize());
      }
      l.ascii(',"droppedAttributesCount":');
      l.uint(this.#dropped);
      l.ascii(',"flags":');
      l.uint(flags(traceFlags, remote));
      l.ascii('}');
    }
    l.ascii(']');
    return dropped;
  }

  /** The span's events (the last `eventCountLimit` of them), then their dropped count. */
  #events(): void {
    const w = this.#w;
    const n = this.#num();
    const dropped = Math.max(0, n - this.#limits.eventCountLimit);
    w.ascii('[');
    for (let k = 0; k < n; k++) {
      const nameLength = this.#num();
      const name = this.#skip(nameLength);
      const perfMs = this.#num();
      if (k < dropped) {
        this.#skipAttributes();
        continue;
      }
      this.#time(perfMs);
      w.ascii(k > dropped ? ',{"attributes":' : '{"attributes":');
      this.#attributes(w, this.#limits.attributePerEventCountLimit);
      w.ascii(',"name":');
      this.#string(w, name, nameLength);
      w.ascii(',"timeUnixNano":');
      nanos(w, this.#s, this.#ns);
      w.ascii(',"droppedAttributesCount":');
      w.uint(this.#dropped);
      w.ascii('}');
    }
    w.ascii('],"droppedEventsCount":');
    w.uint(dropped);
  }

  /** Reads a value's tag and what follows it into slot `at`. */
  #value(at: number): void {
    const tag = this.#num();
    this.#tags[at] = tag;
    if (tag >= 0) this.#nums[at] = this.#skip(tag);
    else if (tag === VALUE_NUMBER) this.#nums[at] = this.#num();
    else if (tag === VALUE_OTHER) this.#objects[at] = this.#others[this.#other++]!;
  }

  /** Attributes of a dropped event or link: read past, their empty keys said as the SDK says them. */
  #skipAttributes(): void {
    for (let n = this.#num(); n > 0; n--) {
      if (this.#str().length === 0) diag.warn('Invalid attribute key: ');
      this.#value(0);
    }
  }

  /**
   * The attributes as the SDK's span keeps them — valid keys, the last value of a key set twice in
   * the place of its first, at most `limit` keys — as a KeyValue list; the keys over the limit in `#dropped`.
   */
  #attributes(w: JsonBytes, limit: number): void {
    const n = this.#num();
    this.#dropped = 0;
    if (n === 0) {
      w.ascii('[]');
      return;
    }
    if (n <= limit && n <= LINEAR_KEYS && this.#asRead(w, n)) return;
    // keys are where they are in the text: compared there, written from there, a string made of one only past LINEAR_KEYS
    const kept = this.#kept;
    kept.start(this.#text);
    for (let k = 0; k < n; k++) {
      const length = this.#num();
      const at = this.#skip(length);
      if (length === 0) {
        diag.warn('Invalid attribute key: ');
        // read into the next free slot, which the next key kept writes over
        this.#value(kept.count);
        continue;
      }
      const found = kept.find(at, length);
      if (found >= 0) {
        this.#value(found);
        continue;
      }
      if (kept.count >= limit) {
        this.#dropped++;
        this.#value(kept.count);
        continue;
      }
      const slot = kept.count;
      kept.add(at, length);
      this.#value(slot);
    }
    w.ascii('[');
    const order = kept.order();
    if (order === undefined) for (let j = 0; j < kept.count; j++) this.#keyValue(w, j, j > 0);
    else order.forEach((j, k) => this.#keyValue(w, j, k > 0));
    w.ascii(']');
  }

  /** Whether the text's `length` characters at `a` and at `b` are the same. */
  #same(a: number, b: number, length: number): boolean {
    const bytes = this.#bytes;
    if (bytes) {
      for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
      return true;
    }
    const text = this.#text;
    for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
    return true;
  }

  /**
   * `n` attributes written as they are read, without the slots (the usual span's: every key new,
   * not empty, not starting with a digit); false, with nothing read or written, for any other.
   */
  #asRead(w: JsonBytes, n: number): boolean {
    const from = w.pos;
    const i = this.#i;
    const at = this.#at;
    const other = this.#other;
    const keyAt = this.#keyAt;
    const keyLength = this.#keyLength;
    w.byte(91);
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
      w.constant(k > 0 ? K.NEXT_KEY : K.FIRST_KEY);
      this.#string(w, key, length);
      const tag = this.#num();
      if (tag >= 0) this.#valueOut(w, tag, this.#skip(tag), undefined);
      else if (tag === VALUE_NUMBER) this.#valueOut(w, tag, this.#num(), undefined);
      else this.#valueOut(w, tag, 0, tag === VALUE_OTHER ? this.#others[this.#other++] : undefined);
    }
    w.byte(93);
    return true;
  }

  #keyValue(w: JsonBytes, j: number, comma: boolean): void {
    w.constant(comma ? K.NEXT_KEY : K.FIRST_KEY);
    this.#string(w, this.#kept.at[j]!, this.#kept.length[j]!);
    this.#valueOut(w, this.#tags[j]!, this.#nums[j]!, this.#objects[j]);
  }

  /** A value after its key, from its tag (a string's length), its number (a string's start) and its array. */
  #valueOut(w: JsonBytes, tag: number, num: number, object: AttributeValue | undefined): void {
    if (tag >= 0) {
      w.constant(K.STRING_VALUE);
      // `| 0`: a fractional limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=2.5) cuts where the SDK's slice cuts, at 2
      this.#string(w, num, Math.min(tag, this.#limits.attributeValueLengthLimit) | 0);
      w.ascii('}}');
    } else if (tag === VALUE_NUMBER) {
      const int = Number.isInteger(num);
      w.constant(int ? K.INT_VALUE : K.DOUBLE_VALUE);
      if (int && num >= 0 && num < 0x7fffffff) w.uint(num);
      else w.ascii(Number.isFinite(num) ? String(num) : 'null');
      w.ascii('}}');
    } else if (tag === VALUE_TRUE) w.constant(K.TRUE_VALUE);
    else if (tag === VALUE_FALSE) w.constant(K.FALSE_VALUE);
    else {
      w.ascii(',"value":');
      w.utf8(anyValue(truncated(object!, this.#limits.attributeValueLengthLimit)));
      w.ascii('}');
    }
  }

  /** A recorded `performance.now()` reading as seconds and nanoseconds of the wall clock (`#s`, `#ns`), as unpackSpans computes it. */
  #time(perfMs: number): void {
    const s = Math.trunc(perfMs / 1000);
    const ns = Math.round((perfMs / 1000 - s) * 1e9);
    this.#s = this.#originS + s;
    this.#ns = this.#originNs + ns;
    if (this.#ns >= 1e9) {
      this.#s += 1;
      this.#ns -= 1e9;
    }
  }
}
