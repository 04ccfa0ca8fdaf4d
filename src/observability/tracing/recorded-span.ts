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
import { isAttributeValue } from './packed-spans.js';
import type { PackedSpansWriter } from './packed-spans-writer.js';

/** What a span holds until it ends: attributes set later as key, value pairs; events as name, time, count, pairs. */
type Pending = Array<string | number | AttributeValue>;

/** Where ended spans go: the batcher (span-batches.ts). */
export interface SpanSink {
  /** where to write a span's values, or undefined when the queue is full (the span is dropped) */
  open(): PackedSpansWriter | undefined;
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
function pushAttribute(out: Pending, k: string, v: unknown): boolean {
  if (v == null) return false;
  if (!isAttributeValue(v)) {
    diag.warn(`Invalid attribute value set for key: ${k}`);
    return false;
  }
  out.push(k, v as AttributeValue);
  return true;
}

function packAttributes(a: Attributes | undefined, out: Pending): void {
  const at = out.length;
  out.push(0);
  let n = 0;
  if (a) {
    for (const k in a) if (pushAttribute(out, k, a[k])) n++;
  }
  out[at] = n;
}

/** Writes the key, value pairs in `pairs` from `from` to `to`. */
function writePairs(w: PackedSpansWriter, pairs: Pending, from: number, to: number): void {
  for (let i = from; i < to; i += 2) w.pair(pairs[i] as string, pairs[i + 1] as AttributeValue);
}

export class RecordedSpan implements Span {
  #name: string;
  readonly #kind: SpanKind;
  readonly #traceId: string;
  readonly #spanId: string;
  /** the ids' positions in the random blocks they were cut from (span-ids.ts), packed in place of their text; -1 for an id given as text */
  readonly traceAt: number;
  readonly spanAt: number;
  readonly #parentAt: number;
  readonly #traceState: SpanContext['traceState'];
  readonly #parentSpanId: string;
  readonly #parentRemote: boolean;
  readonly #scope: number;
  readonly #start: number;
  readonly #sink: SpanSink;
  /** the attributes given at the start (by reference), then key/value pairs set later */
  readonly #initial: Attributes | undefined;
  #later: Pending | undefined;
  #links: Link[] | undefined;
  #events: Pending | undefined;
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
    traceAt = -1,
    spanAt = -1,
    parentAt = -1,
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
    this.traceAt = traceAt;
    this.spanAt = spanAt;
    this.#parentAt = parentAt;
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
    const w = this.#sink.open();
    if (!w) return;
    w.head(
      this.#name,
      this.#kind,
      this.#traceId,
      this.#spanId,
      this.#traceState ? this.#traceState.serialize() : '',
      this.#parentSpanId,
      this.#parentRemote ? 1 : 0,
      this.#scope,
      this.#start,
      end,
      this.#status,
      this.#message,
      this.traceAt,
      this.spanAt,
      this.#parentAt,
    );
    // the attributes as set: the initial object's, then the later pairs (the thread keeps the last of a key)
    const later = this.#later;
    const at = w.slot();
    let n = later ? later.length / 2 : 0;
    const initial = this.#initial;
    if (initial) {
      for (const k in initial) {
        const v = initial[k];
        if (v == null) continue;
        if (!isAttributeValue(v)) {
          diag.warn(`Invalid attribute value set for key: ${k}`);
          continue;
        }
        w.pair(k, v);
        n++;
      }
    }
    if (later) writePairs(w, later, 0, later.length);
    w.fill(at, n);
    const links = this.#links;
    w.num(links ? links.length : 0);
    if (links) {
      for (const l of links) {
        const c = l.context;
        w.str(c.traceId);
        w.str(c.spanId);
        w.num(c.traceFlags);
        w.str(c.traceState ? c.traceState.serialize() : '');
        w.num(c.isRemote ? 1 : 0);
        const pairs: Pending = [];
        packAttributes(l.attributes, pairs);
        w.num(pairs[0] as number);
        writePairs(w, pairs, 1, pairs.length);
      }
    }
    w.num(this.#eventCount);
    const events = this.#events;
    for (let i = 0; events && i < events.length; ) {
      w.str(events[i++] as string);
      w.num(events[i++] as number);
      const count = events[i++] as number;
      w.num(count);
      writePairs(w, events, i, (i += 2 * count));
    }
    this.#sink.closed();
  }
}
