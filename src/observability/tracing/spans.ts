/**
 * The spans every layer opens, through the OpenTelemetry API only. Until `startTracing` has run,
 * `tracingOn()` is false and every helper here runs its function straight away: no span object, no
 * context switch, nothing read from headers — the hot paths pay one boolean test.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type TextMapGetter } from '@opentelemetry/api';

let on = false;

/** True once a tracer provider is installed (src/observability/tracing/start-tracing.ts). */
export function tracingOn(): boolean {
  return on;
}

/** @internal start-tracing's switch. */
export function setTracingOn(value: boolean): void {
  on = value;
}

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Link, type Span };

const tracer = () => trace.getTracer('agentport');

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** the parent instead of the active context (a stored task trace, a request's extracted context) */
  parent?: Context;
}

/**
 * Runs `fn` in a new span, child of the active one (or of `o.parent`), and ends the span when the
 * promise settles; a rejection marks the span as an error with the error's type.
 */
export function inSpan<T>(name: string, o: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!on) return fn(undefined);
  const span = tracer().startSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, ...(o.attributes ? { attributes: o.attributes } : {}), ...(o.links ? { links: o.links } : {}) }, o.parent ?? context.active());
  return context
    .with(trace.setSpan(o.parent ?? context.active(), span), () => fn(span))
    .then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        failSpan(span, err);
        span.end();
        throw err;
      },
    );
}

/** Starts a span the caller ends (one that outlives a function: a request, a stream). */
export function startSpan(name: string, o: SpanOptions): Span {
  return tracer().startSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, ...(o.attributes ? { attributes: o.attributes } : {}), ...(o.links ? { links: o.links } : {}) }, o.parent ?? context.active());
}

/** Runs `fn` with `span` as the active span (its children and outbound calls hang under it). */
export function withSpan<T>(span: Span, fn: () => T, parent: Context = context.active()): T {
  return context.with(trace.setSpan(parent, span), fn);
}

/** Marks a span failed with the error's type (OTel `error.type`: the class or A2A kind). */
export function failSpan(span: Span, err: unknown): void {
  const type = err instanceof Error ? (((err as Error & { kind?: unknown }).kind as string | undefined) ?? err.name) : 'Error';
  span.setAttribute('error.type', String(type));
  span.setStatus({ code: SpanStatusCode.ERROR, ...(err instanceof Error ? { message: err.message } : {}) });
}

/** A carrier of trace context: HTTP headers (lower-case names), gRPC metadata as a plain object, MCP `_meta`. */
export type TraceCarrier = Record<string, unknown>;

const getter: TextMapGetter<TraceCarrier> = {
  keys: (c) => Object.keys(c),
  get: (c, key) => {
    const v = c[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0] as string;
    return undefined;
  },
};

/** The context a caller sent (`traceparent`/`tracestate`), on top of the root; the root when it sent none. */
export function extractContext(carrier: TraceCarrier | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** Whether `ctx` carries a remote caller's span context. */
export function hasRemoteParent(ctx: Context): boolean {
  return trace.getSpanContext(ctx) !== undefined;
}

/** Adds `traceparent` (and `tracestate`) of the active span to outbound headers; nothing when tracing is off. */
export function injectTraceContext(headers: Record<string, string>): void {
  if (on) propagation.inject(context.active(), headers);
}

/** The active span as a W3C `traceparent` value, for a record that outlives the request (a task). */
export function activeTraceparent(): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a stored `traceparent` names, for a span that continues that trace later. */
export function contextOfTraceparent(traceparent: string | undefined): Context | undefined {
  if (!traceparent) return undefined;
  const ctx = propagation.extract(ROOT_CONTEXT, { traceparent }, getter);
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/** A link to the span a stored `traceparent` names. */
export function linkTo(traceparent: string | undefined): Link | undefined {
  const ctx = contextOfTraceparent(traceparent);
  const sc = ctx && trace.getSpanContext(ctx);
  return sc ? { context: sc } : undefined;
}

/** A link to the active span (a span started under another parent that should point back here). */
export function linkToActive(): Link | undefined {
  const sc = trace.getSpanContext(context.active());
  return sc ? { context: sc } : undefined;
}

/** The trace id of the active span (access logs, error answers). */
export function activeTraceId(): string | undefined {
  if (!on) return undefined;
  return trace.getSpanContext(context.active())?.traceId;
}

/**
 * An async iterable whose iteration runs in a span (a stream, a subscription): opened at the first
 * `next`, ended when the iteration finishes, fails or is left. `open` names the span lazily, so a
 * stream that needs a stored record to find its parent can look it up first.
 */
export function traceIterable<T>(source: AsyncIterable<T>, open: () => Span): AsyncIterable<T> {
  if (!on) return source;
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let span: Span | undefined;
      let it: AsyncIterator<T> | undefined;
      const started = () => {
        if (!span) {
          span = open();
          const s = span;
          it = withSpan(s, () => source[Symbol.asyncIterator]());
        }
        return { span: span, it: it! };
      };
      let ended = false;
      const end = (err?: unknown) => {
        if (ended || !span) return;
        ended = true;
        if (err !== undefined) failSpan(span, err);
        span.end();
      };
      return {
        next: () => {
          const { span: s, it: i } = started();
          return withSpan(s, () => i.next()).then(
            (r) => {
              if (r.done) end();
              return r;
            },
            (err: unknown) => {
              end(err);
              throw err;
            },
          );
        },
        return: async (value?: unknown) => {
          end();
          const r = await it?.return?.(value);
          return r ?? { done: true, value: undefined as T };
        },
        throw: async (err?: unknown) => {
          end(err);
          if (it?.throw) return it.throw(err);
          throw err;
        },
      };
    },
  };
}

/**
 * A span that continues a task's trace later (a stream on another replica, a push delivery): its
 * parent is the span the task was created in (`traceparent`, stored with the task), and it links to
 * the span active now (the request asking for it), when there is one in another place. Without a
 * stored trace it is an ordinary child of the active span.
 */
export function startTaskSpan(name: string, traceparent: string | undefined, o: Omit<SpanOptions, 'parent' | 'links'> = {}): Span {
  const taskContext = contextOfTraceparent(traceparent);
  if (!taskContext) return startSpan(name, o);
  const here = linkToActive();
  const taskSpan = trace.getSpanContext(taskContext);
  const links = here && here.context.spanId !== taskSpan?.spanId ? [here] : undefined;
  return startSpan(name, { ...o, parent: taskContext, ...(links ? { links } : {}) });
}
