/**
 * What an OTLP JSON request (otlp-json.ts) has around its spans: the resource and the scopes
 * the spans are grouped by, in the order each scope first appears, as the SDK's OTLP transform
 * groups them (by name, version and schema URL). The spans are written into a buffer with room
 * at its start for the head: a batch of one scope (the usual one) is then never copied.
 */
import type { InstrumentationScope } from '@opentelemetry/core';
import { JsonBytes } from './json-bytes.js';
import { scopeHead } from './otlp-json-values.js';

export class RequestFrame {
  #scopes: readonly InstrumentationScope[] = [];
  /** `{"resourceSpans":[{"resource":…,"scopeSpans":[` */
  #head: Buffer = Buffer.alloc(0);
  /** per scope index: `{"scope":{…},"spans":[` */
  #scopeHeads: Buffer[] = [];
  /** where the spans start in the writer */
  #spansFrom = 0;
  /** the size of the last request, for the next one's buffer */
  #lastSize = 1 << 16;
  /** per scope index: the first scope index of the same name, version and schema URL */
  #groupOf: number[] = [];
  /** per span: its group, and where its bytes start and end in the writer */
  readonly #ranges: number[] = [];

  /**
   * A new request's frame, and the writer its spans go to: a buffer of its own (the HTTP export
   * may still be sending or retrying the last one), sized from the last request.
   */
  start(scopes: readonly InstrumentationScope[], resource: Uint8Array): JsonBytes {
    this.#ranges.length = 0;
    this.#scopes = scopes;
    const byKey = new Map<string, number>();
    this.#groupOf = scopes.map((s, i) => {
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
    this.#scopeHeads = scopes.map(scopeHead);
    this.#spansFrom = this.#head.length + Math.max(0, ...this.#scopeHeads.map((h) => h.length));
    const w = new JsonBytes(this.#spansFrom + this.#lastSize + (this.#lastSize >> 3));
    w.pos = this.#spansFrom;
    return w;
  }

  /** A span of scope index `scope` was written at `from` to `to`. */
  span(scope: number, from: number, to: number): void {
    this.#ranges.push(this.#groupOf[scope]!, from, to);
  }

  /** The request: the spans `w` holds, grouped by scope, in the frame. */
  request(w: JsonBytes): Buffer {
    const ranges = this.#ranges;
    if (ranges.length === 0) return Buffer.from('{"resourceSpans":[]}');
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
}
