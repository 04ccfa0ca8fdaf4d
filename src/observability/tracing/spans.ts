/**
 * The spans every layer opens, through the OpenTelemetry API only. Until `startTracing` has run,
 * `tracingOn()` is false and every helper here runs its function straight away: no span object,
 * nothing read from headers — the hot paths pay one boolean test.
 *
 * No context manager: the trace context is a value (`Context`) passed explicitly, on the objects a
 * call already carries (the usage draft, CallContext.trace, the agent run, an outbound call's
 * options), and every span names its parent. Nothing here reads `context.active()`: the
 * AsyncLocalStorage context manager turns on Node's promise hooks, which make every `await` of the
 * process dearer, traced or not (docs/decisions/0018-tracing.md).
 */
import { propagation, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { RecordedSpan } from './recorded-span.js';
import { ScopedTracer } from './span-recorder.js';
import { ROOT } from './root-context.js';

let on = false;
/** the sampler follows the parent's sampled flag (parent-based, or always off) */
let followsParent = false;

/** True once a tracer provider is installed (src/observability/tracing/start-tracing.ts). */
export function tracingOn(): boolean {
  return on;
}

/** @internal start-tracing's switch; `parentBased`: whether the sampler follows the parent's decision. */
export function setTracingOn(value: boolean, parentBased = false): void {
  on = value;
  followsParent = value && parentBased;
  current = undefined;
}

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Link, type Span };

/** The tracer, looked up once per provider (the API's lookup builds a key and searches a map every time). */
let current: Tracer | undefined;
const tracer = (): Tracer => (current ??= trace.getTracer('agentport'));

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** the parent (a request's span, a stored task trace); undefined starts a new trace */
  parent?: Context | undefined;
}

/**
 * Starts a span the caller ends (one that outlives a function: a request, a stream).
 *
 * Under a parent the sampler dropped, with a sampler that follows the parent, the child would be
 * dropped too: it is not started at all, and the parent's (non-recording) span stands for it, so
 * a request sampled out costs one sampler decision, not one per span (ids, sampler, objects).
 */
export function startSpan(name: string, o: SpanOptions): Span {
  const parent = o.parent ?? ROOT;
  // the parent span read once, here: a span of ours is sampled (the recorder records only those)
  const parentSpan = trace.getSpan(parent);
  if (followsParent && parentSpan !== undefined && !(parentSpan instanceof RecordedSpan)) {
    const sc = parentSpan.spanContext();
    if ((sc.traceFlags & TraceFlags.SAMPLED) === 0) return trace.wrapSpanContext(sc);
  }
  const t = tracer();
  // Agentport's recorder (start-tracing.ts) is handed the options' fields: read once, here
  if (t instanceof ScopedTracer) return t.startOwn(name, o.kind ?? SpanKind.INTERNAL, o.attributes, o.links, parent, parentSpan);
  // any other tracer gets the options as given: it reads kind (INTERNAL when absent), attributes and links, not `parent`
  return t.startSpan(name, o, parent);
}

/** The context whose current span is `span`: what its children name as their parent. */
export function contextWith(span: Span, parent: Context = ROOT): Context {
  return trace.setSpan(parent, span);
}

/**
 * Runs `fn` in a new span, child of `o.parent`, and ends the span when the promise settles; a
 * rejection marks the span as an error with the error's type. `fn` gets the span's context, to hand
 * to whatever it calls.
 */
export function inSpan<T>(name: string, o: SpanOptions, fn: (trace: Context | undefined, span: Span | undefined) => Promise<T>): Promise<T> {
  if (!on) return fn(o.parent, undefined);
  const span = startSpan(name, o);
  let running: Promise<T>;
  try {
    running = fn(contextWith(span, o.parent), span);
  } catch (err) {
    running = Promise.reject(err);
  }
  return endWhenSettled(span, running);
}

/** Marks a span failed with the error's type (OTel `error.type`: the class or A2A kind). */
export function failSpan(span: Span, err: unknown): void {
  const type = err instanceof Error ? (((err as Error & { kind?: unknown }).kind as string | undefined) ?? err.name) : 'Error';
  span.setAttribute('error.type', String(type));
  span.setStatus({ code: SpanStatusCode.ERROR, ...(err instanceof Error ? { message: err.message } : {}) });
}

/** Ends `span` as failed by `err`: its `error.type`, status ERROR. */
export function endFailed(span: Span, err: unknown): void {
  failSpan(span, err);
  span.end();
}

/** Ends `span` when `running` settles, failed by a rejection, and passes the outcome on. */
export function endWhenSettled<T>(span: Span, running: Promise<T>): Promise<T> {
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      endFailed(span, err);
      throw err;
    },
  );
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
  if (!carrier) return ROOT;
  return propagation.extract(ROOT, carrier, getter);
}

/** Whether `ctx` carries a span context (a remote caller's, or one of ours). */
export function hasRemoteParent(ctx: Context): boolean {
  return trace.getSpanContext(ctx) !== undefined;
}

/** Adds `traceparent` (and `tracestate`) of the span `ctx` names to outbound headers; nothing when tracing is off or there is none. */
export function injectTraceContext(ctx: Context | undefined, headers: Record<string, string>): void {
  if (on && ctx) propagation.inject(ctx, headers);
}

/** The span `ctx` names as a W3C `traceparent` value, for a record that outlives the request (a task, a bus message). */
export function traceparentOf(ctx: Context | undefined): string | undefined {
  if (!on || !ctx) return undefined;
  // the installed propagator is W3C's (start-tracing.ts): for a span of ours, its value without the propagator's checks
  const span = trace.getSpan(ctx);
  if (span instanceof RecordedSpan) return span.traceparent();
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** The context a stored `traceparent` names, for a span that continues that trace later. */
export function contextOfTraceparent(traceparent: string | undefined): Context | undefined {
  if (!traceparent) return undefined;
  const ctx = propagation.extract(ROOT, { traceparent }, getter);
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/** A link to the span a stored `traceparent` names. */
export function linkTo(traceparent: string | undefined): Link | undefined {
  const ctx = contextOfTraceparent(traceparent);
  const sc = ctx && trace.getSpanContext(ctx);
  return sc ? { context: sc } : undefined;
}

/** A link to the span `ctx` names (a span started under another parent that should point back there). */
export function linkToContext(ctx: Context | undefined): Link | undefined {
  const sc = ctx && trace.getSpanContext(ctx);
  return sc ? { context: sc } : undefined;
}

/** The trace id of the span `ctx` names (access logs). */
export function traceIdOf(ctx: Context | undefined): string | undefined {
  if (!on || !ctx) return undefined;
  return trace.getSpanContext(ctx)?.traceId;
}

/**
 * An async iterable whose iteration is a span (a stream, a subscription): opened at the first
 * `next`, ended when the iteration finishes, fails or is left. `open` names the span lazily, so a
 * stream that needs a stored record to find its parent can look it up first; `source` is given the
 * span's context (for what it calls) and built then.
 */
export function traceIterable<T>(open: () => { span: Span; parent?: Context | undefined }, source: (trace: Context) => AsyncIterable<T>): AsyncIterable<T> {
  if (!on) return source(ROOT);
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let span: Span | undefined;
      let it: AsyncIterator<T> | undefined;
      const started = () => {
        if (!span) {
          const o = open();
          span = o.span;
          it = source(contextWith(o.span, o.parent))[Symbol.asyncIterator]();
        }
        return it!;
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
          let i: AsyncIterator<T>;
          try {
            i = started();
          } catch (err) {
            end(err);
            return Promise.reject(err);
          }
          return i.next().then(
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
 * `here` (the request asking for it) when that is another place. Without a stored trace it is an
 * ordinary child of `here`.
 */
export function startTaskSpan(name: string, traceparent: string | undefined, here: Context | undefined, o: Omit<SpanOptions, 'parent' | 'links'> = {}): { span: Span; parent: Context | undefined } {
  const taskContext = contextOfTraceparent(traceparent);
  if (!taskContext) return { span: startSpan(name, { ...o, parent: here }), parent: here };
  const link = linkToContext(here);
  const taskSpan = trace.getSpanContext(taskContext);
  const links = link && link.context.spanId !== taskSpan?.spanId ? [link] : undefined;
  return { span: startSpan(name, { ...o, parent: taskContext, ...(links ? { links } : {}) }), parent: taskContext };
}
