/**
 * Finished spans packed into one flat array of strings and numbers, to cross to the export thread
 * (span-export-worker.ts) by `postMessage`, and unpacked there into the ReadableSpans the OTLP
 * exporter reads. Structured cloning costs per object: a record per span (its hrtimes, status,
 * attributes, parent) cost 2.5 µs a span to post, more than encoding OTLP JSON in place (3.4 µs);
 * a flat array of primitives costs ~1 µs (bench/tracing-floor.js, docs/benchmarks.md, *Tracing
 * cost, round 2*). Instrumentation scopes, one object per tracer, go once per batch in a table.
 *
 * Layout per span: name, kind, traceId, spanId, traceFlags, traceState ('' for none), parent span
 * id ('' for a root), parent is-remote (0/1), start s, start ns, end s, end ns, status code,
 * status message, scope index, dropped attributes/events/links, then the attributes (count, then
 * key, value…), the links (count, then per link: traceId, spanId, traceFlags, traceState,
 * is-remote, dropped attributes, attributes) and the events (count, then per event: name, time s,
 * time ns, dropped attributes, attributes).
 */
import type { Attributes, AttributeValue, SpanContext, SpanKind } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

export type PackedValue = string | number | boolean | AttributeValue;

export interface PackedSpans {
  values: PackedValue[];
  scopes: InstrumentationScope[];
}

function packAttributes(a: Attributes | undefined, out: PackedValue[]): void {
  const at = out.length;
  out.push(0);
  let n = 0;
  if (a) {
    for (const k in a) {
      const v = a[k];
      if (v === undefined) continue;
      out.push(k, v);
      n++;
    }
  }
  out[at] = n;
}

export function packSpans(spans: readonly ReadableSpan[]): PackedSpans {
  const values: PackedValue[] = [];
  const scopes: InstrumentationScope[] = [];
  let lastScope: InstrumentationScope | undefined;
  let lastIndex = -1;
  for (const s of spans) {
    const c = s.spanContext();
    const p = s.parentSpanContext;
    if (s.instrumentationScope !== lastScope) {
      lastScope = s.instrumentationScope;
      lastIndex = scopes.indexOf(lastScope);
      if (lastIndex < 0) lastIndex = scopes.push(lastScope) - 1;
    }
    values.push(s.name, s.kind, c.traceId, c.spanId, c.traceFlags, c.traceState?.serialize() ?? '', p?.spanId ?? '', p?.isRemote ? 1 : 0);
    values.push(s.startTime[0], s.startTime[1], s.endTime[0], s.endTime[1], s.status.code, s.status.message ?? '', lastIndex);
    values.push(s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount);
    packAttributes(s.attributes, values);
    values.push(s.links.length);
    for (const l of s.links) {
      values.push(l.context.traceId, l.context.spanId, l.context.traceFlags, l.context.traceState?.serialize() ?? '', l.context.isRemote ? 1 : 0, l.droppedAttributesCount ?? 0);
      packAttributes(l.attributes, values);
    }
    values.push(s.events.length);
    for (const e of s.events) {
      values.push(e.name, e.time[0], e.time[1], e.droppedAttributesCount ?? 0);
      packAttributes(e.attributes, values);
    }
  }
  return { values, scopes };
}

/** Parses a serialized `tracestate` back into what the exporter calls (`serialize`). */
export type TraceStateParser = (serialized: string) => NonNullable<SpanContext['traceState']>;

/** Reads a packed array in order. */
class Reader {
  i = 0;
  constructor(private readonly v: readonly PackedValue[]) {}
  get more(): boolean {
    return this.i < this.v.length;
  }
  str(): string {
    return this.v[this.i++] as string;
  }
  num(): number {
    return this.v[this.i++] as number;
  }
  any(): AttributeValue {
    return this.v[this.i++] as AttributeValue;
  }
  attributes(): Attributes {
    const out: Attributes = {};
    for (let n = this.num(); n > 0; n--) {
      const k = this.str();
      out[k] = this.any();
    }
    return out;
  }
}

function context(traceId: string, spanId: string, traceFlags: number, traceState: string, isRemote: boolean | undefined, parse: TraceStateParser): SpanContext {
  return { traceId, spanId, traceFlags, ...(traceState ? { traceState: parse(traceState) } : {}), ...(isRemote !== undefined ? { isRemote } : {}) };
}

export function unpackSpans(p: PackedSpans, resource: Resource, parse: TraceStateParser): ReadableSpan[] {
  const r = new Reader(p.values);
  const out: ReadableSpan[] = [];
  while (r.more) {
    const name = r.str();
    const kind = r.num() as SpanKind;
    const traceId = r.str();
    const spanId = r.str();
    const traceFlags = r.num();
    const own = context(traceId, spanId, traceFlags, r.str(), undefined, parse);
    const parentId = r.str();
    const parentRemote = r.num() === 1;
    const startTime: [number, number] = [r.num(), r.num()];
    const endTime: [number, number] = [r.num(), r.num()];
    const code = r.num();
    const message = r.str();
    const scope = p.scopes[r.num()]!;
    const dropped = [r.num(), r.num(), r.num()] as const;
    const attributes = r.attributes();
    const links = [];
    for (let n = r.num(); n > 0; n--) {
      const linked = context(r.str(), r.str(), r.num(), r.str(), r.num() === 1, parse);
      const droppedAttributesCount = r.num();
      links.push({ context: linked, attributes: r.attributes(), droppedAttributesCount });
    }
    const events: TimedEvent[] = [];
    for (let n = r.num(); n > 0; n--) {
      const eventName = r.str();
      const time: [number, number] = [r.num(), r.num()];
      const droppedAttributesCount = r.num();
      events.push({ name: eventName, time, droppedAttributesCount, attributes: r.attributes() });
    }
    let ns = endTime[1] - startTime[1];
    let s = endTime[0] - startTime[0];
    if (ns < 0) {
      s -= 1;
      ns += 1e9;
    }
    out.push({
      name,
      kind,
      spanContext: () => own,
      ...(parentId ? { parentSpanContext: { traceId, spanId: parentId, traceFlags, isRemote: parentRemote } } : {}),
      startTime,
      endTime,
      duration: [s, ns],
      ended: true,
      status: message ? { code, message } : { code },
      attributes,
      links,
      events,
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: dropped[0],
      droppedEventsCount: dropped[1],
      droppedLinksCount: dropped[2],
    });
  }
  return out;
}
