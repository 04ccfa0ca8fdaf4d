/**
 * Finished spans as one string and one array of numbers: what the event loop writes when a span
 * ends (recorded-span.ts, through packed-spans-writer.ts) and hands to the export thread, which
 * writes the OTLP JSON request from it (otlp-json.ts, ADR 0082); `unpackSpans` below reads it as
 * the SDK's ReadableSpans, the reference the tests hold that request to. Structured
 * cloning costs per value, so a batch is one string (every string of every span, one after the
 * other) and one transferred Float64Array (every number, and the length of each string in
 * `text`), docs/benchmarks.md, *Tracing cost, round 5* — posted in parts of a few dozen spans as
 * they end and gathered again by batch number (`EarlierParts`, trace17); everything that costs
 * per attribute — last-write-wins, the count limits, the time conversion — is done on the thread
 * (here and in otlp-json.ts), not on the loop.
 *
 * Layout per span (a string is its length in `numbers`, its characters next in `text`): name,
 * kind, traceId, spanId (each as a string or, made by the recorder, as a negative reference into
 * the part's `blocks` of random bytes: `idReference`), traceFlags, traceState ('' for none), parent
 * span id ('' for a root; a reference too),
 * parent is-remote (0/1), scope index, start, end, status code, status message ('' for none), then
 * the attributes as set (count, then key, value… in the order they were set, a key repeated when
 * it was set again; a value as packed-spans-writer.ts tags it), the links (count, then per link:
 * traceId, spanId, traceFlags, traceState, is-remote, attributes as above) and the events (count,
 * then per event: name, time, attributes as above). Times are `performance.now()` milliseconds of
 * the recording thread; the batch carries the wall-clock time of its zero.
 */
import { diag, type Attributes, type AttributeValue, type SpanContext, type SpanKind } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { VALUE_FALSE, VALUE_NUMBER, VALUE_TRUE } from './packed-spans-writer.js';
import { ID_BLOCK_BYTES } from './span-ids.js';

/** A run of ended spans: a whole batch, or one of the parts a batch is posted in (span-batches.ts). */
export interface PackedPart {
  /** every string of the run, one after the other */
  text: string;
  /** the numbers of the run, strings' lengths and value tags among them (its buffer is transferred) */
  numbers: Float64Array<ArrayBuffer>;
  /** attribute values that are arrays, in order */
  others: AttributeValue[];
  /** the random blocks the run's ids by reference lie in (`idReference`; none: every id is text) */
  blocks?: readonly Uint8Array[];
}

/** Where an id written by reference (a negative number in place of its length) lies: its block's index in `blocks` and the offset in it. */
export function idReference(ref: number): { block: number; offset: number } {
  const r = -1 - ref;
  return { block: Math.floor(r / ID_BLOCK_BYTES), offset: r % ID_BLOCK_BYTES };
}

/** A batch's last run of spans, with what the batch's earlier parts are read with too. */
export interface PackedSpans extends PackedPart {
  scopes: InstrumentationScope[];
  /** wall-clock milliseconds (epoch) at the recording thread's `performance.now()` zero */
  origin: number;
}

/** The SDK's default span limits (sdk-trace-base `loadDefaultConfig`), read from the same variables. */
export interface SpanLimits {
  attributeCountLimit: number;
  attributeValueLengthLimit: number;
  linkCountLimit: number;
  eventCountLimit: number;
  attributePerEventCountLimit: number;
  attributePerLinkCountLimit: number;
}

export function spanLimitsFrom(env: Record<string, string | undefined>): SpanLimits {
  const n = (key: string, fallback: number) => {
    const v = Number(env[key]?.trim() || Number.NaN);
    return Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  const general = n('OTEL_ATTRIBUTE_COUNT_LIMIT', 128);
  return {
    attributeCountLimit: n('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', general),
    attributeValueLengthLimit: n('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', n('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', Number.POSITIVE_INFINITY)),
    linkCountLimit: n('OTEL_SPAN_LINK_COUNT_LIMIT', 128),
    eventCountLimit: n('OTEL_SPAN_EVENT_COUNT_LIMIT', 128),
    attributePerEventCountLimit: n('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT', 128),
    attributePerLinkCountLimit: n('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT', 128),
  };
}

/** Parses a serialized `tracestate` back into what the exporter calls (`serialize`). */
export type TraceStateParser = (serialized: string) => NonNullable<SpanContext['traceState']>;

type HrTime = [number, number];

/**
 * Whether a value can be an attribute's: a primitive, or a homogeneous array of one (nulls allowed),
 * as the SDK's `isAttributeValue`; the common case costs one `typeof`. The recorder checks each value
 * as it is set, on the loop, so the export thread only gets valid ones.
 */
export function isAttributeValue(v: unknown): v is AttributeValue {
  // `typeof v === '…'` each time, not `typeof v` kept in a variable: V8 then tests the type in
  // place, where the kept string made every check a call to its Typeof builtin (15 a traced echo)
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return true;
  if (!Array.isArray(v)) return false;
  let type: string | undefined;
  for (const e of v) {
    if (e == null) continue;
    const et = typeof e;
    if (et !== 'string' && et !== 'number' && et !== 'boolean') return false;
    if (type === undefined) type = et;
    else if (type !== et) return false;
  }
  return true;
}

/** Reads a packed run of spans in order. */
export class Reader {
  i = 0;
  #at = 0;
  #other = 0;
  constructor(
    private readonly p: PackedPart,
    private readonly limits: SpanLimits,
  ) {}
  get more(): boolean {
    return this.i < this.p.numbers.length;
  }
  str(): string {
    return this.#chars(this.p.numbers[this.i++]!);
  }
  num(): number {
    return this.p.numbers[this.i++]!;
  }
  /** An id of `bytes` bytes: text, or a reference into the part's blocks (written as lowercase hex, as the ids' text is). */
  id(bytes: number): string {
    const n = this.num();
    if (n >= 0) return this.#chars(n);
    const { block, offset } = idReference(n);
    return Buffer.from(this.p.blocks![block]!.buffer, this.p.blocks![block]!.byteOffset + offset, bytes).toString('hex');
  }
  #chars(n: number): string {
    const s = this.p.text.slice(this.#at, this.#at + n);
    this.#at += n;
    return s;
  }
  value(): AttributeValue {
    const tag = this.num();
    if (tag >= 0) return this.#chars(tag);
    if (tag === VALUE_NUMBER) return this.num();
    if (tag === VALUE_TRUE) return true;
    if (tag === VALUE_FALSE) return false;
    return this.p.others[this.#other++]!;
  }
  /** Attributes as the SDK's span keeps them: valid values only, the last one set wins, at most `limit` keys. */
  attributes(limit: number): { attributes: Attributes; dropped: number } {
    const out: Attributes = {};
    let count = 0;
    let dropped = 0;
    for (let n = this.num(); n > 0; n--) {
      const k = this.str();
      const v = this.value();
      if (k.length === 0) {
        diag.warn(`Invalid attribute key: ${k}`);
        continue;
      }
      const isNew = !Object.hasOwn(out, k);
      if (isNew && count >= limit) {
        dropped++;
        continue;
      }
      out[k] = this.truncate(Array.isArray(v) ? v.slice() : v);
      if (isNew) count++;
    }
    return { attributes: out, dropped };
  }
  private truncate(v: AttributeValue): AttributeValue {
    const max = this.limits.attributeValueLengthLimit;
    if (max === Number.POSITIVE_INFINITY) return v;
    if (typeof v === 'string') return v.length > max ? v.slice(0, max) : v;
    if (Array.isArray(v)) return v.map((e) => (typeof e === 'string' && e.length > max ? e.slice(0, max) : e)) as AttributeValue;
    return v;
  }
}

// The objects below are written as whole literals, optional fields as undefined (which the OTLP
// transform reads as absent): a spread inside an object literal made V8 define every later
// property through the runtime, the largest single cost of the export thread's unpacking.

function context(traceId: string, spanId: string, traceFlags: number, traceState: string, isRemote: boolean | undefined, parse: TraceStateParser): SpanContext {
  return { traceId, spanId, traceFlags, traceState: traceState ? parse(traceState) : undefined, isRemote };
}

/** Milliseconds as [seconds, nanoseconds], as @opentelemetry/core's `millisToHrTime` and `addHrTimes` compute them; `a` is the origin's, read once a batch. */
function hrTime(a: HrTime, perfMs: number): HrTime {
  const b = millisToHr(perfMs);
  let s = a[0] + b[0];
  let ns = a[1] + b[1];
  if (ns >= 1e9) {
    s += 1;
    ns -= 1e9;
  }
  return [s, ns];
}

function millisToHr(ms: number): HrTime {
  const s = Math.trunc(ms / 1000);
  return [s, Math.round((ms / 1000 - s) * 1e9)];
}

function duration(start: HrTime, end: HrTime): HrTime {
  let s = end[0] - start[0];
  let ns = end[1] - start[1];
  if (ns < 0) {
    s -= 1;
    ns += 1e9;
  }
  return [s, ns];
}

/** A batch's spans: those of its `earlier` parts, in order, then its own (`p`, whose scopes and origin serve all). */
export function unpackSpans(p: PackedSpans, resource: Resource, parse: TraceStateParser, limits: SpanLimits, earlier: readonly PackedPart[] = []): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  const origin = millisToHr(p.origin);
  for (const part of earlier) unpackPart(new Reader(part, limits), p.scopes, origin, resource, parse, limits, out);
  unpackPart(new Reader(p, limits), p.scopes, origin, resource, parse, limits, out);
  return out;
}

function unpackPart(r: Reader, scopes: readonly InstrumentationScope[], origin: HrTime, resource: Resource, parse: TraceStateParser, limits: SpanLimits, out: ReadableSpan[]): void {
  while (r.more) {
    const name = r.str();
    const kind = r.num() as SpanKind;
    const traceId = r.id(16);
    const spanId = r.id(8);
    const traceFlags = r.num();
    const own = context(traceId, spanId, traceFlags, r.str(), undefined, parse);
    const parentId = r.id(8);
    const parentRemote = r.num() === 1;
    const scope = scopes[r.num()]!;
    const startTime = hrTime(origin, r.num());
    let endTime = hrTime(origin, r.num());
    let took = duration(startTime, endTime);
    if (took[0] < 0) {
      endTime = [startTime[0], startTime[1]];
      took = [0, 0];
    }
    const code = r.num();
    const message = r.str();
    const { attributes, dropped: droppedAttributesCount } = r.attributes(limits.attributeCountLimit);
    const links = [];
    let droppedLinksCount = 0;
    for (let n = r.num(); n > 0; n--) {
      const linked = context(r.str(), r.str(), r.num(), r.str(), r.num() === 1, parse);
      const a = r.attributes(limits.attributePerLinkCountLimit);
      if (links.length >= limits.linkCountLimit) {
        if (limits.linkCountLimit === 0) {
          droppedLinksCount++;
          continue;
        }
        links.shift();
        droppedLinksCount++;
      }
      links.push({ context: linked, attributes: a.attributes, droppedAttributesCount: a.dropped });
    }
    const events: TimedEvent[] = [];
    let droppedEventsCount = 0;
    for (let n = r.num(); n > 0; n--) {
      const eventName = r.str();
      const time = hrTime(origin, r.num());
      const a = r.attributes(limits.attributePerEventCountLimit);
      if (events.length >= limits.eventCountLimit) {
        droppedEventsCount++;
        if (limits.eventCountLimit === 0) continue;
        events.shift();
      }
      events.push({ name: eventName, time, droppedAttributesCount: a.dropped, attributes: a.attributes });
    }
    out.push({
      name,
      kind,
      spanContext: () => own,
      parentSpanContext: parentId ? { traceId, spanId: parentId, traceFlags, isRemote: parentRemote } : undefined,
      startTime,
      endTime,
      duration: took,
      ended: true,
      status: { code, message: message || undefined },
      attributes,
      links,
      events,
      resource,
      instrumentationScope: scope,
      droppedAttributesCount,
      droppedEventsCount,
      droppedLinksCount,
    });
  }
}

/**
 * The parts of batches not yet exported, by batch number: span-batches.ts posts a batch's spans in
 * parts as they end, so the event loop does not keep a whole batch's strings alive (and copy them
 * at every young-generation collection) until the batch goes; the exporter keeps the parts here
 * until the batch's own `export`, which takes them.
 */
export class EarlierParts {
  readonly #byBatch = new Map<number, PackedPart[]>();

  add(batch: number, part: PackedPart): void {
    const parts = this.#byBatch.get(batch);
    if (parts) parts.push(part);
    else this.#byBatch.set(batch, [part]);
  }

  /** The batch's parts in the order added (none when it was posted whole), forgotten here. */
  take(batch: number): PackedPart[] {
    const parts = this.#byBatch.get(batch);
    if (!parts) return [];
    this.#byBatch.delete(batch);
    return parts;
  }
}
