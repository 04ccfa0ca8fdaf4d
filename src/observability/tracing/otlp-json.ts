/**
 * The OTLP/HTTP JSON request body of a packed batch (packed-spans.ts), written straight from the
 * packed strings and numbers: the bytes the SDK's exporter sent for the same spans — its OTLP
 * transform (`createExportTraceServiceRequest`) then `JSON.stringify` — with no ReadableSpan, no
 * object tree and no stringify of one. The export thread spent ~37 µs a request of the echo on
 * those steps (docs/benchmarks.md, otlp33; ADR 0082).
 *
 * What the SDK writes, in its order (absent fields left out, as `JSON.stringify` leaves out
 * `undefined`): ids as hex strings (the JSON encoder's), 64-bit times as decimal strings, the kind
 * plus one, attributes as AnyValue lists in the order of the span's attribute object (integer-like
 * keys first, as `Object.keys` lists them), the span flags with the has-is-remote bit, spans grouped
 * by instrumentation scope in the order each scope first appears. The attribute, event and link
 * limits are applied as unpackSpans applies them.
 */
import { diag, type AttributeValue } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { Reader, type PackedPart, type PackedSpans, type SpanLimits, type TraceStateParser } from './packed-spans.js';

type HrTime = [number, number];

/** The W3C trace flags' byte, and the OTLP span flags' "has is-remote" and "is remote" bits. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

const json = JSON.stringify;

/** Up to this many keys a span's attributes are searched in order for a key set again; past it, a map. */
const LINEAR_KEYS = 16;

/** The `resource` object of every request, from the resource's attributes (written once a thread). */
export function resourceJson(attributes: Record<string, AttributeValue>): string {
  const keys: string[] = [];
  const values: AttributeValue[] = [];
  for (const k of Object.keys(attributes)) {
    keys.push(k);
    values.push(attributes[k]!);
  }
  return `{"attributes":${keyValues(keys, values, keys.length)},"droppedAttributesCount":0}`;
}

/** The request body for a batch: the spans of its `earlier` parts, in order, then those of `last`. */
export function otlpJsonRequest(last: PackedSpans, earlier: readonly PackedPart[], resource: string, parse: TraceStateParser, limits: SpanLimits): { body: string; spans: number } {
  const writer = new SpanWriter(last, resource, parse, limits);
  for (const part of earlier) writer.part(part);
  writer.part(last);
  return { body: writer.request(), spans: writer.spans };
}

class SpanWriter {
  spans = 0;
  readonly #origin: HrTime;
  /** per scope index: the index of the first scope of the same name, version and schema URL (the SDK groups by those) */
  readonly #group: number[];
  /** per group, in the order first seen: the spans' JSON */
  readonly #bySpans = new Map<number, string[]>();
  /** per group: the scope of the group's first span */
  readonly #firstScope = new Map<number, InstrumentationScope>();
  readonly #scopes: readonly InstrumentationScope[];
  readonly #keys: string[] = [];
  readonly #values: AttributeValue[] = [];
  /** attributes dropped by the last `#attributes` */
  #dropped = 0;

  constructor(
    last: PackedSpans,
    private readonly resource: string,
    private readonly parse: TraceStateParser,
    private readonly limits: SpanLimits,
  ) {
    this.#origin = millisToHr(last.origin);
    const byKey = new Map<string, number>();
    this.#group = last.scopes.map((s, i) => {
      const key = `${s.name}@${s.version || ''}:${s.schemaUrl || ''}`;
      const first = byKey.get(key);
      if (first !== undefined) return first;
      byKey.set(key, i);
      return i;
    });
    this.#scopes = last.scopes;
  }

  part(p: PackedPart): void {
    const r = new Reader(p, this.limits);
    while (r.more) this.#span(r);
  }

  request(): string {
    if (this.spans === 0) return '{"resourceSpans":[]}';
    const groups: string[] = [];
    for (const [group, spans] of this.#bySpans) {
      const scope = this.#firstScope.get(group)!;
      const schema = scope.schemaUrl === undefined ? '' : `,"schemaUrl":${json(scope.schemaUrl)}`;
      groups.push(`{"scope":${scopeJson(scope)},"spans":[${spans.join(',')}]${schema}}`);
    }
    return `{"resourceSpans":[{"resource":${this.resource},"scopeSpans":[${groups.join(',')}]}]}`;
  }

  #span(r: Reader): void {
    const name = r.str();
    const kind = r.num();
    const traceId = r.str();
    const spanId = r.str();
    const traceFlags = r.num();
    const traceState = r.str();
    const parentId = r.str();
    const parentRemote = r.num() === 1;
    const scope = r.num();
    const start = this.#time(r.num());
    let end = this.#time(r.num());
    if (endsBefore(start, end)) end = start;
    const code = r.num();
    const message = r.str();
    let out = `{"traceId":${json(traceId)},"spanId":${json(spanId)}`;
    if (parentId) out += `,"parentSpanId":${json(parentId)}`;
    if (traceState) out += `,"traceState":${json(this.parse(traceState).serialize())}`;
    out += `,"name":${json(name)},"kind":${kind + 1},"startTimeUnixNano":"${nanos(start)}","endTimeUnixNano":"${nanos(end)}","attributes":${this.#attributes(r, this.limits.attributeCountLimit)},"droppedAttributesCount":${this.#dropped}`;
    const links = this.#links(r);
    const droppedLinks = this.#dropped;
    out += `,"events":${this.#events(r)},"droppedEventsCount":${this.#dropped},"status":{"code":${code}${message ? `,"message":${json(message)}` : ''}},"links":${links},"droppedLinksCount":${droppedLinks},"flags":${flags(traceFlags, parentId !== '' && parentRemote)}}`;
    const group = this.#group[scope]!;
    const spans = this.#bySpans.get(group);
    if (spans) spans.push(out);
    else {
      this.#bySpans.set(group, [out]);
      this.#firstScope.set(group, this.#scopes[scope]!);
    }
    this.spans++;
  }

  /** The links' JSON (the last `linkCountLimit` kept); their dropped count in `#dropped`. */
  #links(r: Reader): string {
    const n = r.num();
    if (n === 0) {
      this.#dropped = 0;
      return '[]';
    }
    const limit = this.limits.linkCountLimit;
    const kept: string[] = [];
    let dropped = 0;
    for (let i = 0; i < n; i++) {
      const traceId = r.str();
      const spanId = r.str();
      const traceFlags = r.num();
      const traceState = r.str();
      const remote = r.num() === 1;
      const attributes = this.#attributes(r, this.limits.attributePerLinkCountLimit);
      const link = `{"attributes":${attributes},"spanId":${json(spanId)},"traceId":${json(traceId)}${traceState ? `,"traceState":${json(this.parse(traceState).serialize())}` : ''},"droppedAttributesCount":${this.#dropped},"flags":${flags(traceFlags, remote)}}`;
      if (kept.length >= limit) {
        dropped++;
        if (limit === 0) continue;
        kept.shift();
      }
      kept.push(link);
    }
    this.#dropped = dropped;
    return `[${kept.join(',')}]`;
  }

  /** The events' JSON (the last `eventCountLimit` kept); their dropped count in `#dropped`. */
  #events(r: Reader): string {
    const n = r.num();
    if (n === 0) {
      this.#dropped = 0;
      return '[]';
    }
    const limit = this.limits.eventCountLimit;
    const kept: string[] = [];
    let dropped = 0;
    for (let i = 0; i < n; i++) {
      const name = r.str();
      const time = this.#time(r.num());
      const attributes = this.#attributes(r, this.limits.attributePerEventCountLimit);
      const event = `{"attributes":${attributes},"name":${json(name)},"timeUnixNano":"${nanos(time)}","droppedAttributesCount":${this.#dropped}}`;
      if (kept.length >= limit) {
        dropped++;
        if (limit === 0) continue;
        kept.shift();
      }
      kept.push(event);
    }
    this.#dropped = dropped;
    return `[${kept.join(',')}]`;
  }

  /**
   * The attributes as the SDK's span keeps them — valid keys, the last value of a key set twice in
   * the place of its first, at most `limit` keys — as a KeyValue list; the keys over the limit in `#dropped`.
   */
  #attributes(r: Reader, limit: number): string {
    const n = r.num();
    if (n === 0) {
      this.#dropped = 0;
      return '[]';
    }
    const keys = this.#keys;
    const values = this.#values;
    let count = 0;
    let dropped = 0;
    let index: Map<string, number> | undefined;
    for (let i = 0; i < n; i++) {
      const k = r.str();
      const v = r.value();
      if (k.length === 0) {
        diag.warn(`Invalid attribute key: ${k}`);
        continue;
      }
      let at = -1;
      if (index) at = index.get(k) ?? -1;
      else
        for (let j = 0; j < count; j++)
          if (keys[j] === k) {
            at = j;
            break;
          }
      if (at >= 0) {
        values[at] = v;
        continue;
      }
      if (count >= limit) {
        dropped++;
        continue;
      }
      keys[count] = k;
      values[count] = v;
      if (index) index.set(k, count);
      else if (count === LINEAR_KEYS) index = new Map(keys.slice(0, count + 1).map((key, j) => [key, j]));
      count++;
    }
    this.#dropped = dropped;
    const max = this.limits.attributeValueLengthLimit;
    if (max !== Number.POSITIVE_INFINITY) for (let i = 0; i < count; i++) values[i] = truncated(values[i]!, max);
    const text = keyValues(keys, values, count);
    keys.length = 0;
    values.length = 0;
    return text;
  }

  /** A recorded `performance.now()` reading as [seconds, nanoseconds] of the wall clock, as unpackSpans computes it. */
  #time(perfMs: number): HrTime {
    const b = millisToHr(perfMs);
    let s = this.#origin[0] + b[0];
    let ns = this.#origin[1] + b[1];
    if (ns >= 1e9) {
      s += 1;
      ns -= 1e9;
    }
    return [s, ns];
  }
}

/** Milliseconds as [seconds, nanoseconds], as @opentelemetry/core's `millisToHrTime`. */
function millisToHr(ms: number): HrTime {
  const s = Math.trunc(ms / 1000);
  return [s, Math.round((ms / 1000 - s) * 1e9)];
}

const NINE_ZEROS = '000000000';

/**
 * [seconds, nanoseconds] as the decimal count of nanoseconds, written rather than computed (past
 * 2^53 a double is not exact), as the SDK's `hrTimeToNanos` computes it in BigInt. The nanoseconds
 * are not always within a second: a time given before the recording thread's clock started makes
 * both parts negative, and the sum of two parts can reach a whole second.
 */
function nanos(t: HrTime): string {
  let s = t[0];
  let ns = t[1];
  while (ns < 0) {
    s -= 1;
    ns += 1e9;
  }
  while (ns >= 1e9) {
    s += 1;
    ns -= 1e9;
  }
  if (s <= 0) return (BigInt(s) * 1_000_000_000n + BigInt(ns)).toString();
  const digits = String(ns);
  return `${s}${NINE_ZEROS.slice(digits.length)}${digits}`;
}

/** Whether `end` is before `start`, as unpackSpans finds it (a negative duration's seconds). */
function endsBefore(start: HrTime, end: HrTime): boolean {
  const s = end[0] - start[0];
  return (end[1] - start[1] < 0 ? s - 1 : s) < 0;
}

function flags(traceFlags: number, remote: boolean): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
}

function scopeJson(s: InstrumentationScope): string {
  return s.version === undefined ? `{"name":${json(s.name)}}` : `{"name":${json(s.name)},"version":${json(s.version)}}`;
}

/**
 * `count` attributes as KeyValue JSON, in the order `Object.keys` would list them from an object
 * they were set on in this order: array-index keys first, ascending, then the others as set.
 */
function keyValues(keys: readonly string[], values: readonly AttributeValue[], count: number): string {
  let indexKeys: number[] | undefined;
  let out = '[';
  for (let i = 0; i < count; i++) {
    const k = keys[i]!;
    if (isArrayIndex(k)) {
      (indexKeys ??= []).push(i);
      continue;
    }
    if (out.length > 1) out += ',';
    out += `{"key":${json(k)},"value":${anyValue(values[i])}}`;
  }
  if (indexKeys) {
    indexKeys.sort((a, b) => Number(keys[a]) - Number(keys[b]));
    let first = '';
    for (const i of indexKeys) first += `${first ? ',' : ''}{"key":${json(keys[i])},"value":${anyValue(values[i])}}`;
    out = out.length > 1 ? `[${first},${out.slice(1)}` : `[${first}`;
  }
  return `${out}]`;
}

/** A canonical array index ("0", "7", "42", below 2^32 − 1), which objects list before their other keys. */
function isArrayIndex(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (k.length > 10 || (c === 48 && k.length > 1)) return false;
  for (let i = 1; i < k.length; i++) {
    const d = k.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(k) < 4294967295;
}

/** An attribute value as OTLP's AnyValue (the SDK's `toAnyValue`). */
function anyValue(v: unknown): string {
  if (typeof v === 'string') return `{"stringValue":${json(v)}}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `{"intValue":${v}}` : `{"doubleValue":${Number.isFinite(v) ? v : 'null'}}`;
  if (typeof v === 'boolean') return v ? '{"boolValue":true}' : '{"boolValue":false}';
  if (Array.isArray(v)) {
    let out = '';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + anyValue(v[i]);
    return `{"arrayValue":{"values":[${out}]}}`;
  }
  return '{}';
}

function truncated(v: AttributeValue, max: number): AttributeValue {
  if (typeof v === 'string') return v.length > max ? v.slice(0, max) : v;
  if (Array.isArray(v)) return v.map((e) => (typeof e === 'string' && e.length > max ? e.slice(0, max) : e)) as AttributeValue;
  return v;
}
