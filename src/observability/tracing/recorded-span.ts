/**
 * The event loop's span: what the OpenTelemetry API's `Span` needs while a span is open, and, when
 * it ends, its fields appended to the current export batch as a flat run of values
 * (packed-spans.ts). No ReadableSpan, attribute map, time tuple or processor chain on the loop:
 * the attributes given at the start are kept by reference and packed at the end, later ones are
 * appended as key/value pairs, times are `performance.now()` readings, and the export thread turns
 * it all into what the OTLP exporter reads (docs/decisions/0018-tracing.md, *Revision 3*).
 *
 * The attributes object given at the start is read when the span ends: callers hand over a fresh
 * object (every caller in Agentport builds one inline).
 */
import { performance } from 'node:perf_hooks';
import { diag, SpanStatusCode, type Attributes, type AttributeValue, type Exception, type HrTime, type Link, type Span, type SpanContext, type SpanKind, type SpanStatus, type TimeInput } from '@opentelemetry/api';
import { isAttributeValue, type PackedValue } from './packed-spans.js';

/** Where ended spans go: the batcher (span-batches.ts). */
export interface SpanSink {
  /** the array to append a span's values to, or undefined when the queue is full (the span is dropped) */
  open(): PackedValue[] | undefined;
  /** one span was appended */
  closed(): void;
  /** wall-clock milliseconds at `performance.now()` zero, for times given as dates */
  readonly origin: number;
}

/** A time given to `end`/`addEvent` as `performance.now()` milliseconds, as the SDK reads TimeInput. */
function perfTime(t: TimeInput | undefined, sink: SpanSink): number {
  const now = performance.now();
  if (t === undefined) return now;
  if (typeof t === 'number') return t <= now ? t : t - sink.origin;
  if (t instanceof Date) return t.getTime() - sink.origin;
  const hr = t as HrTime;
  return hr[0] * 1000 + hr[1] / 1e6 - sink.origin;
}

/** Appends `key, value` for a value the SDK would keep; an invalid one is said as the SDK says it. */
function pushAttribute(out: PackedValue[], k: string, v: unknown): boolean {
  if (v == null) return false;
  if (!isAttributeValue(v)) {
    diag.warn(`Invalid attribute value set for key: ${k}`);
    return false;
  }
  out.push(k, v as AttributeValue);
  return true;
}

function packAttributes(a: Attributes | undefined, out: PackedValue[]): void {
  const at = out.length;
  out.push(0);
  let n = 0;
  if (a) {
    for (const k in a) if (pushAttribute(out, k, a[k])) n++;
  }
  out[at] = n;
}

export class RecordedSpan implements Span {
  #name: string;
  readonly #kind: SpanKind;
  readonly #traceId: string;
  readonly #spanId: string;
  readonly #traceState: SpanContext['traceState'];
  readonly #parentSpanId: string;
  readonly #parentRemote: boolean;
  readonly #scope: number;
  readonly #start: number;
  readonly #sink: SpanSink;
  /** the attributes given at the start (by reference), then key/value pairs set later */
  readonly #initial: Attributes | undefined;
  #later: PackedValue[] | undefined;
  #links: Link[] | undefined;
  #events: PackedValue[] | undefined;
  #eventCount = 0;
  #status = 0;
  #message = '';
  #ended = false;
  #context: SpanContext | undefined;

  constructor(
    sink: SpanSink,
    scope: number,
    name: string,
    kind: SpanKind,
    traceId: string,
    spanId: string,
    traceState: SpanContext['traceState'],
    parent: SpanContext | undefined,
    attributes: Attributes | undefined,
    links: Link[] | undefined,
    start: number,
  ) {
    this.#sink = sink;
    this.#scope = scope;
    this.#name = name;
    this.#kind = kind;
    this.#traceId = traceId;
    this.#spanId = spanId;
    this.#traceState = traceState;
    this.#parentSpanId = parent ? parent.spanId : '';
    this.#parentRemote = parent?.isRemote === true;
    this.#initial = attributes;
    this.#links = links;
    this.#start = start;
  }

  /**
   * The span as a W3C `traceparent` (what the W3C propagator writes for it, sampled flag set),
   * without the propagator's regex checks: a recorded span's ids are ours and valid.
   */
  traceparent(): string {
    return `00-${this.#traceId}-${this.#spanId}-01`;
  }

  spanContext(): SpanContext {
    return (this.#context ??= this.#traceState ? { traceId: this.#traceId, spanId: this.#spanId, traceFlags: 1, traceState: this.#traceState } : { traceId: this.#traceId, spanId: this.#spanId, traceFlags: 1 });
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.#ended) pushAttribute((this.#later ??= []), key, value);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (this.#ended) return this;
    const later = (this.#later ??= []);
    for (const k in attributes) pushAttribute(later, k, attributes[k]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    let attributes: Attributes | undefined;
    if (attributesOrTime instanceof Date || typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime)) {
      time ??= attributesOrTime as TimeInput;
    } else attributes = attributesOrTime;
    const events = (this.#events ??= []);
    events.push(name, perfTime(time, this.#sink));
    packAttributes(attributes, events);
    this.#eventCount++;
    return this;
  }

  addLink(link: Link): this {
    if (!this.#ended) (this.#links ??= []).push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const l of links) this.addLink(l);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.#ended || status.code === SpanStatusCode.UNSET || this.#status === SpanStatusCode.OK) return this;
    this.#status = status.code;
    this.#message = status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? status.message : '';
    return this;
  }

  updateName(name: string): this {
    if (!this.#ended) this.#name = name;
    return this;
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const a: Attributes = {};
    if (typeof exception === 'string') a['exception.message'] = exception;
    else if (exception) {
      if (exception.code) a['exception.type'] = String(exception.code);
      else if (exception.name) a['exception.type'] = exception.name;
      if (exception.message) a['exception.message'] = exception.message;
      if (exception.stack) a['exception.stacktrace'] = exception.stack;
    }
    if (a['exception.type'] || a['exception.message']) this.addEvent('exception', a, time);
  }

  end(endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    const end = perfTime(endTime, this.#sink);
    const out = this.#sink.open();
    if (!out) return;
    out.push(this.#name, this.#kind, this.#traceId, this.#spanId, 1, this.#traceState ? this.#traceState.serialize() : '', this.#parentSpanId, this.#parentRemote ? 1 : 0, this.#scope);
    out.push(this.#start, end, this.#status, this.#message);
    // the attributes as set: the initial object's, then the later pairs (the thread keeps the last of a key)
    const later = this.#later;
    const at = out.length;
    out.push(0);
    let n = later ? later.length / 2 : 0;
    const initial = this.#initial;
    if (initial) {
      for (const k in initial) if (pushAttribute(out, k, initial[k])) n++;
    }
    if (later) for (let i = 0; i < later.length; i++) out.push(later[i]);
    out[at] = n;
    const links = this.#links;
    out.push(links ? links.length : 0);
    if (links) {
      for (const l of links) {
        const c = l.context;
        out.push(c.traceId, c.spanId, c.traceFlags, c.traceState ? c.traceState.serialize() : '', c.isRemote ? 1 : 0);
        packAttributes(l.attributes, out);
      }
    }
    out.push(this.#eventCount);
    const events = this.#events;
    if (events) for (let i = 0; i < events.length; i++) out.push(events[i]);
    this.#sink.closed();
  }
}
