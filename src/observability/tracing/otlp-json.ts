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
import type { InstrumentationScope } from '@opentelemetry/core';
import { JsonBytes } from './json-bytes.js';
import type { PackedPart, PackedSpans, SpanLimits, TraceStateParser } from './packed-spans.js';
import { VALUE_FALSE, VALUE_NUMBER, VALUE_OTHER, VALUE_TRUE } from './packed-spans-writer.js';
import { anyValue, flags, isArrayIndex, nanos, scopeHead, truncated } from './otlp-json-values.js';
import * as K from './otlp-json-keys.js';

export { resourceJson } from './otlp-json-values.js';

/** Characters JSON escapes (in an ASCII text). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** Up to this many keys a span's attributes are searched in order for a key set again; past it, a map. */
const LINEAR_KEYS = 16;

/** The request body for a batch: the spans of its `earlier` parts, in order, then those of `last`. */
export function otlpJsonRequest(last: PackedSpans, earlier: readonly PackedPart[], resource: Uint8Array, parse: TraceStateParser, limits: SpanLimits): { body: Buffer; spans: number } {
  const e = (encoder ??= new SpanEncoder());
  e.start(last, resource, parse, limits);
  for (const part of earlier) e.part(part);
  e.part(last);
  return { body: e.request(), spans: e.spans };
}

let encoder: SpanEncoder | undefined;

/**
 * Writes the spans of a batch's parts, then the request around them. Each batch gets a buffer of
 * its own (the HTTP export may still be sending or retrying one when the next is written), sized
 * from the last one, with room at its start for what goes before the spans: a batch of one scope
 * (the usual one) is then never copied.
 */
class SpanEncoder {
  spans = 0;
  /** the request: room for its head, then the spans, each after a comma but the first */
  #w = new JsonBytes(1024);
  /** a span's links, written before its events and placed after them */
  readonly #links = new JsonBytes(1024);
  #parse!: TraceStateParser;
  #limits!: SpanLimits;
  #scopes!: readonly InstrumentationScope[];
  /** `{"resourceSpans":[{"resource":…,"scopeSpans":[` */
  #head!: Buffer;
  /** per scope index: `{"scope":{…},"spans":[` */
  #scopeHeads: Buffer[] = [];
  /** where the spans start in `#w` */
  #spansFrom = 0;
  /** the size of the last request, for the next one's buffer */
  #lastSize = 1 << 16;
  /** per scope index: the first scope index of the same name, version and schema URL (the SDK groups spans by those) */
  #groupOf: number[] = [];
  /** per span: its group, and where its bytes start and end in `#w` */
  readonly #ranges: number[] = [];
  #originS = 0;
  #originNs = 0;
  // the part being read
  #text = '';
  /** the text's bytes when it is all ASCII */
  #bytes: Buffer | undefined;
  /** whether no character of the text needs an escape in JSON */
  #plain = false;
  #numbers!: Float64Array;
  #others: AttributeValue[] = [];
  #i = 0;
  #at = 0;
  #other = 0;
  // the attributes being read: where each kept key is in the text, and each value as its tag (a string's length), its number (a string's start) and its array
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
    this.#ranges.length = 0;
    this.#parse = parse;
    this.#limits = limits;
    this.#scopes = last.scopes;
    const byKey = new Map<string, number>();
    this.#groupOf = last.scopes.map((s, i) => {
      const key = `${s.name}@${s.version || ''}:${s.schemaUrl || ''}`;
      const first = byKey.get(key);
      if (first !== undefined) return first;
      byKey.set(key, i);
      return i;
    });
    const head = new JsonBytes(resource.length + 64);
    head.ascii('{"resourceSpans":[{"resource":');
    head.bytes(resource);
    head.ascii(',"scopeSpans":[');
    this.#head = head.buf.subarray(0, head.pos);
    this.#scopeHeads = last.scopes.map(scopeHead);
    this.#spansFrom = this.#head.length + Math.max(0, ...this.#scopeHeads.map((h) => h.length));
    this.#w = new JsonBytes(this.#spansFrom + this.#lastSize + (this.#lastSize >> 3));
    this.#w.pos = this.#spansFrom;
    // the origin as @opentelemetry/core's millisToHrTime makes it
    const s = Math.trunc(last.origin / 1000);
    this.#originS = s;
    this.#originNs = Math.round((last.origin / 1000 - s) * 1e9);
  }

  part(p: PackedPart): void {
    this.#text = p.text;
    // an ASCII text (the usual one) is copied to the body byte by byte from its Latin-1 bytes,
    // unchecked when no character of it needs an escape
    this.#bytes = Buffer.byteLength(p.text, 'utf8') === p.text.length ? Buffer.from(p.text, 'latin1') : undefined;
    this.#plain = this.#bytes !== undefined && !NEEDS_ESCAPE.test(p.text);
    this.#numbers = p.numbers;
    this.#others = p.others;
    this.#i = 0;
    this.#at = 0;
    this.#other = 0;
    while (this.#i < this.#numbers.length) this.#span();
  }

  request(): Buffer {
    const w = this.#w;
    const ranges = this.#ranges;
    if (this.spans === 0) return Buffer.from('{"resourceSpans":[]}');
    const groups: number[] = [];
    for (let k = 0; k < ranges.length; k += 3) if (!groups.includes(ranges[k]!)) groups.push(ranges[k]!);
    if (groups.length === 1) {
      // the head written just before the spans, the tail after them
      const scope = groups[0]!;
      const scopeHead = this.#scopeHeads[scope]!;
      const from = this.#spansFrom - scopeHead.length - this.#head.length;
      w.buf.set(this.#head, from);
      w.buf.set(scopeHead, from + this.#head.length);
      this.#scopeTail(w, scope);
      w.ascii(']}]}');
      this.#lastSize = w.pos - from;
      return w.buf.subarray(from, w.pos);
    }
    const out = new JsonBytes(w.pos + 256 * groups.length);
    out.bytes(this.#head);
    groups.forEach((group, g) => {
      if (g > 0) out.ascii(',');
      out.bytes(this.#scopeHeads[group]!);
      let first = true;
      for (let k = 0; k < ranges.length; k += 3) {
        if (ranges[k] !== group) continue;
        if (!first) out.ascii(',');
        first = false;
        out.bytes(w.buf.subarray(ranges[k + 1]!, ranges[k + 2]!));
      }
      this.#scopeTail(out, group);
    });
    out.ascii(']}]}');
    this.#lastSize = out.pos;
    return out.buf.subarray(0, out.pos);
  }

  /** `]` closing a scope's spans, its schema URL, `}`. */
  #scopeTail(w: JsonBytes, scope: number): void {
    const schemaUrl = this.#scopes[scope]!.schemaUrl;
    w.ascii(']');
    if (schemaUrl !== undefined) {
      w.ascii(',"schemaUrl":');
      w.text(schemaUrl);
    }
    w.ascii('}');
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
    if (this.#plain) w.plainString(this.#bytes!, start, length);
    else if (this.#bytes) w.asciiString(this.#bytes, this.#text, start, length);
    else w.string(this.#text, start, length);
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
    const traceId = this.#skip(traceIdLength);
    const spanIdLength = this.#num();
    const spanId = this.#skip(spanIdLength);
    const traceFlags = this.#num();
    const traceState = this.#str();
    const parentLength = this.#num();
    const parent = this.#skip(parentLength);
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
    this.#string(w, traceId, traceIdLength);
    w.constant(K.SPAN_ID);
    this.#string(w, spanId, spanIdLength);
    if (parentLength > 0) {
      w.constant(K.PARENT_SPAN_ID);
      this.#string(w, parent, parentLength);
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
      w.uint(flags(traceFlags, parentLength > 0 && parentRemote));
      w.ascii('}');
      this.#ranges.push(this.#groupOf[scope]!, from, w.pos);
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
    w.uint(flags(traceFlags, parentLength > 0 && parentRemote));
    w.ascii('}');
    this.#ranges.push(this.#groupOf[scope]!, from, w.pos);
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
    // keys are where they are in the text: compared there, written from there, a string made of one only past LINEAR_KEYS
    const keyAt = this.#keyAt;
    const keyLength = this.#keyLength;
    const text = this.#text;
    let count = 0;
    let index: Map<string, number> | undefined;
    let digit = false;
    for (let k = 0; k < n; k++) {
      const length = this.#num();
      const at = this.#skip(length);
      if (length === 0) {
        diag.warn('Invalid attribute key: ');
        // read into the next free slot, which the next key kept writes over
        this.#value(count);
        continue;
      }
      let found = -1;
      if (index) found = index.get(text.slice(at, at + length)) ?? -1;
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
        index = new Map();
        for (let j = 0; j <= count; j++) index.set(text.slice(keyAt[j]!, keyAt[j]! + keyLength[j]!), j);
      }
      count++;
    }
    w.ascii('[');
    if (digit) {
      // an object lists its array-index keys first, ascending, then the others as set
      const keys = Array.from({ length: count }, (_, j) => text.slice(keyAt[j]!, keyAt[j]! + keyLength[j]!));
      const order = keys.flatMap((key, j) => (isArrayIndex(key) ? [j] : []));
      order.sort((a, b) => Number(keys[a]) - Number(keys[b]));
      for (let j = 0; j < count; j++) if (!isArrayIndex(keys[j]!)) order.push(j);
      order.forEach((j, k) => this.#keyValue(w, j, k > 0));
    } else for (let j = 0; j < count; j++) this.#keyValue(w, j, j > 0);
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

  #keyValue(w: JsonBytes, j: number, comma: boolean): void {
    w.constant(comma ? K.NEXT_KEY : K.FIRST_KEY);
    this.#string(w, this.#keyAt[j]!, this.#keyLength[j]!);
    const tag = this.#tags[j]!;
    if (tag >= 0) {
      w.constant(K.STRING_VALUE);
      this.#string(w, this.#nums[j]!, Math.min(tag, this.#limits.attributeValueLengthLimit));
      w.ascii('}}');
    } else if (tag === VALUE_NUMBER) {
      const v = this.#nums[j]!;
      w.constant(Number.isInteger(v) ? K.INT_VALUE : K.DOUBLE_VALUE);
      w.ascii(Number.isFinite(v) ? String(v) : 'null');
      w.ascii('}}');
    } else if (tag === VALUE_TRUE) w.constant(K.TRUE_VALUE);
    else if (tag === VALUE_FALSE) w.constant(K.FALSE_VALUE);
    else {
      w.ascii(',"value":');
      w.utf8(anyValue(truncated(this.#objects[j]!, this.#limits.attributeValueLengthLimit)));
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
