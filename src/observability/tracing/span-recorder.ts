/**
 * The tracer installed when tracing is on: the OpenTelemetry API's TracerProvider and Tracer,
 * starting RecordedSpans (recorded-span.ts) instead of the SDK's span objects. It decides as the
 * SDK's Tracer does — the parent span in the context given, the configured SDK sampler, the
 * parent's trace id and tracestate, a non-recording span for a trace sampled out — and leaves the
 * OTLP encoding and export to the SDK's exporter on the export thread
 * (docs/decisions/0018-tracing.md, *Revision 3*).
 */
import { performance } from 'node:perf_hooks';
import { context as contextApi, SamplingDecision, SpanKind, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Sampler, SamplingResult } from '@opentelemetry/sdk-trace-base';
import { RecordedSpan, type SpanSink } from './recorded-span.js';
import { idAt, newSpanId, newTraceId } from './span-ids.js';

/** What the sampler is shown for a span started without attributes or links: shared, not a new object per span (samplers only read them). */
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];
/** What AlwaysOnSampler answers, the ParentBasedSampler's default for a sampled local parent. */
const SAMPLED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });

/**
 * Decisions the configured sampler is known to make, taken without asking it (it would re-read
 * the parent from the context and check ids with regular expressions, per span).
 */
export interface KnownDecisions {
  /**
   * The sampler is the SDK's ParentBasedSampler with its default for a sampled local parent
   * (AlwaysOnSampler), so a child of one of our spans (always sampled, local, valid) is sampled.
   */
  underOwnSpans?: boolean;
  /**
   * The sampler samples every span without a valid parent: AlwaysOnSampler, a TraceIdRatioBased
   * sampler at ratio 1 (every valid trace id is under its bound, and ours are valid), or a
   * ParentBasedSampler whose root is one of those (start-tracing.ts, `samplesEveryRoot`).
   */
  roots?: boolean;
}

export class ScopedTracer implements Tracer {
  constructor(
    private readonly recorder: SpanRecorder,
    private readonly scope: number,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = contextApi.active()): Span {
    return this.recorder.start(this.scope, name, options, ctx);
  }

  /**
   * `startSpan` for Agentport's own callers (spans.ts), the options read by the caller: each call
   * site passes an options object of its own shape, so every read of one in `start` was a
   * megamorphic property load, several a span. `parentSpan`: the span `ctx` names, when known.
   */
  startOwn(name: string, kind: SpanKind, attributes: Attributes | undefined, links: Link[] | undefined, ctx: Context, parentSpan: Span | undefined): Span {
    return this.recorder.record(this.scope, name, kind, attributes, links, undefined, ctx, parentSpan);
  }

  // The API's overloads: (name, fn), (name, options, fn), (name, options, context, fn).
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length >= 2 ? rest[0] : undefined) as SpanOptions | undefined;
    const parent = (rest.length >= 3 ? rest[1] : undefined) as Context | undefined;
    const ctx = parent ?? contextApi.active();
    const span = this.startSpan(name, options, ctx);
    return contextApi.with(trace.setSpan(ctx, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}

export class SpanRecorder implements TracerProvider {
  readonly #tracers = new Map<string, ScopedTracer>();

  /**
   * `scopes`: the instrumentation scopes, in the order first asked for (a span packs its index; the
   * batches send the table). `known`: what the sampler would answer anyway, for the spans it is
   * then not asked about (a request's first span and its children, at ratio 1).
   */
  constructor(
    private readonly sampler: Sampler,
    private readonly sink: SpanSink,
    private readonly scopes: InstrumentationScope[],
    private readonly known: KnownDecisions = {},
  ) {}

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let t = this.#tracers.get(key);
    if (!t) {
      const scope: InstrumentationScope = { name, ...(version !== undefined ? { version } : {}), ...(options?.schemaUrl !== undefined ? { schemaUrl: options.schemaUrl } : {}) };
      t = new ScopedTracer(this, this.scopes.push(scope) - 1);
      this.#tracers.set(key, t);
    }
    return t;
  }

  /** @internal ScopedTracer's startSpan */
  start(scope: number, name: string, options: SpanOptions, ctx: Context): Span {
    if (options.root) ctx = trace.deleteSpan(ctx);
    return this.record(scope, name, options.kind ?? SpanKind.INTERNAL, options.attributes, options.links, options.startTime, ctx, trace.getSpan(ctx));
  }

  /** @internal `start` with the options read once; `parentSpan`: the span `ctx` names. */
  record(scope: number, name: string, kind: SpanKind, attributes: Attributes | undefined, givenLinks: Link[] | undefined, time: SpanOptions['startTime'], ctx: Context, parentSpan: Span | undefined): Span {
    // A parent that is one of ours has valid ids: the API's check (two regular expressions) is for the others.
    const parent = parentSpan?.spanContext();
    const ours = parentSpan instanceof RecordedSpan;
    const validParent = parent && (ours || trace.isSpanContextValid(parent)) ? parent : undefined;
    const traceId = validParent ? validParent.traceId : newTraceId();
    // the ids' positions in span-ids.ts's blocks, which the span packs in place of their text (-1: text); a parent of ours has them too
    const traceAt = ours ? parentSpan.traceAt : validParent ? -1 : idAt;
    const spanId = newSpanId();
    const spanAt = idAt;
    const known = ours ? this.known.underOwnSpans : !validParent && this.known.roots;
    const result = known ? SAMPLED : this.sampler.shouldSample(ctx, traceId, name, kind, attributes ?? NO_ATTRIBUTES, givenLinks ?? NO_LINKS);
    const traceState = result.traceState ?? validParent?.traceState;
    if (result.decision !== SamplingDecision.RECORD_AND_SAMPLED) {
      // RECORD (recorded, not sampled) is never exported either: no processor here reads it
      return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE, ...(traceState ? { traceState } : {}) });
    }
    const all = result.attributes ? { ...attributes, ...result.attributes } : attributes;
    const links = givenLinks && givenLinks.length > 0 ? givenLinks.slice() : undefined;
    return new RecordedSpan(this.sink, scope, name, kind, traceId, spanId, traceState, validParent, all, links, startTime(time, this.sink.origin), traceAt, spanAt, ours ? parentSpan.spanAt : -1);
  }
}

function startTime(t: SpanOptions['startTime'], origin: number): number {
  if (t === undefined) return performance.now();
  if (typeof t === 'number') return t <= performance.now() ? t : t - origin;
  if (t instanceof Date) return t.getTime() - origin;
  return t[0] * 1000 + t[1] / 1e6 - origin;
}
