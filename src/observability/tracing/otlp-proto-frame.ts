/**
 * What an OTLP protobuf request (otlp-proto.ts) has around its spans: one ResourceSpans (its
 * resource), and a ScopeSpans per scope object in the order each first appears, as the SDK's
 * `ProtobufTraceSerializer` groups them (by identity). The spans are written into a buffer with room
 * at its start for the head, whose lengths are known only once the spans are written: a batch of
 * one scope (the usual one) is then never copied.
 */
import type { InstrumentationScope } from '@opentelemetry/core';
import { scopeProto, schemaUrlProto, T } from './otlp-proto-values.js';
import { ProtoBytes } from './proto-bytes.js';

/** `ProtoFrame`'s group of every span before any span, and once spans of two groups are written. */
const NO_SPAN = -1;
const MIXED = -2;

/** Bytes of the head beside the resource and the scope: three tags and three lengths of at most five bytes. */
const HEAD_ROOM = 18;

export class ProtoFrame {
  #resource: Uint8Array = new Uint8Array(0);
  #scopes: Uint8Array[] = [];
  #schemaUrls: Uint8Array[] = [];
  /** per scope index: the first index of the same scope object */
  #groupOf: number[] = [];
  #spansFrom = 0;
  #lastSize = 1 << 16;
  /** per span: its group, and where its bytes (tag and length included) start and end in the writer; kept only once a second group appears */
  readonly #ranges: number[] = [];
  /** the group of every span so far (NO_SPAN before the first, MIXED once two differ: `#ranges` then holds every span) */
  #only = NO_SPAN;

  /** A new request's frame, and the writer its spans go to: a buffer of its own (the HTTP export may still be sending the last one). */
  start(scopes: readonly InstrumentationScope[], resource: Uint8Array): ProtoBytes {
    this.#ranges.length = 0;
    this.#only = NO_SPAN;
    this.#resource = resource;
    this.#groupOf = scopes.map((s) => scopes.indexOf(s));
    this.#scopes = scopes.map(scopeProto);
    this.#schemaUrls = scopes.map(schemaUrlProto);
    this.#spansFrom = resource.length + HEAD_ROOM + Math.max(0, ...this.#scopes.map((s) => s.length));
    const w = new ProtoBytes(this.#spansFrom + this.#lastSize + (this.#lastSize >> 3));
    w.pos = this.#spansFrom;
    return w;
  }

  /**
   * The span of scope index `scope` written at `from` up to `to` in `w`. While every span is of one
   * group nothing is kept (they lie one after the other from the frame's start, the usual batch):
   * at the first of another group the spans before it are found again by their tags and lengths.
   */
  span(w: ProtoBytes, scope: number, from: number, to: number): void {
    const g = this.#groupOf[scope]!;
    if (g === this.#only) return;
    if (this.#only === NO_SPAN) {
      this.#only = g;
      return;
    }
    if (this.#only !== MIXED) {
      for (let q = this.#spansFrom; q < from; ) {
        let n = 0;
        let p = q + 1;
        for (let shift = 0; ; shift += 7) {
          const b = w.buf[p++]!;
          n += (b & 0x7f) * 2 ** shift;
          if (b < 0x80) break;
        }
        this.#ranges.push(this.#only, q, p + n);
        q = p + n;
      }
      this.#only = MIXED;
    }
    this.#ranges.push(g, from, to);
  }

  request(w: ProtoBytes): Buffer {
    const ranges = this.#ranges;
    if (this.#only === NO_SPAN) return Buffer.alloc(0);
    const groups: number[] = [];
    if (this.#only !== MIXED) groups.push(this.#only);
    else for (let k = 0; k < ranges.length; k += 3) if (!groups.includes(ranges[k]!)) groups.push(ranges[k]!);
    if (groups.length === 1) {
      const g = groups[0]!;
      const spans = w.pos - this.#spansFrom;
      const schemaUrl = this.#schemaUrls[g]!;
      w.copy(schemaUrl, 0, schemaUrl.length);
      const head = this.#head([spans + this.#scopes[g]!.length + schemaUrl.length]);
      const scope = this.#scopes[g]!;
      const from = this.#spansFrom - scope.length - head.length;
      w.buf.set(head, from);
      w.buf.set(scope, from + head.length);
      this.#lastSize = w.pos - from;
      return w.buf.subarray(from, w.pos);
    }
    const sizes = groups.map((g) => {
      let n = this.#scopes[g]!.length + this.#schemaUrls[g]!.length;
      for (let k = 0; k < ranges.length; k += 3) if (ranges[k] === g) n += ranges[k + 2]! - ranges[k + 1]!;
      return n;
    });
    const out = new ProtoBytes(w.pos + 64 * groups.length);
    const head = this.#head(sizes);
    out.copy(head, 0, head.length);
    groups.forEach((g, i) => {
      if (i > 0) {
        out.varint(T.SCOPE_SPANS);
        out.varint(sizes[i]!);
      }
      out.copy(this.#scopes[g]!, 0, this.#scopes[g]!.length);
      for (let k = 0; k < ranges.length; k += 3) if (ranges[k] === g) out.copy(w.buf, ranges[k + 1]!, ranges[k + 2]! - ranges[k + 1]!);
      out.copy(this.#schemaUrls[g]!, 0, this.#schemaUrls[g]!.length);
    });
    this.#lastSize = out.pos;
    return out.buf.subarray(0, out.pos);
  }

  /** The request's head up to the first ScopeSpans's content, for ScopeSpans of these sizes. */
  #head(sizes: number[]): Uint8Array {
    let resourceSpans = this.#resource.length;
    for (const n of sizes) resourceSpans += 1 + varintSize(n) + n;
    const h = new ProtoBytes(this.#resource.length + HEAD_ROOM);
    h.varint(T.RESOURCE_SPANS);
    h.varint(resourceSpans);
    h.copy(this.#resource, 0, this.#resource.length);
    h.varint(T.SCOPE_SPANS);
    h.varint(sizes[0]!);
    return h.buf.subarray(0, h.pos);
  }
}

function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}
