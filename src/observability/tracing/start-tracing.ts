/**
 * Installs tracing when it is on: Agentport's span recorder as the API's tracer provider (spans as
 * flat records, batched with the SDK's bounds), the SDK's sampler, the OTLP/HTTP JSON export on the
 * export thread (the body written from the packed spans, sent by the SDK's export delegate), and
 * the W3C trace-context propagator. No context manager: spans name their parents explicitly
 * (spans.ts), so Node's promise hooks stay off (an AsyncLocalStorage context manager would make
 * every `await` of the process dearer, traced or not). The SDK
 * packages are imported here, dynamically, so a server with tracing off never loads them and its
 * spans stay the API's no-op ones (src/observability/tracing/spans.ts).
 *
 * The provider is global to the process; servers started in one process (tests, the dev loop)
 * share it, and it is shut down (its last spans exported) when the last of them closes.
 */
import { diag, DiagLogLevel, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { spanLimitsFrom } from './packed-spans.js';
import { SpanBatches } from './span-batches.js';
import { SpanRecorder } from './span-recorder.js';
import { setTracingOn } from './spans.js';
import { WorkerSpanExporter } from './worker-span-exporter.js';
import type { Sampler, TracingSettings } from './tracing-settings.js';

export interface RunningTracing {
  /** exports what is queued and, for the process's last user, removes the SDK */
  close(): Promise<void>;
  /** exports what is queued now */
  flush(): Promise<void>;
  /** spans dropped since the process's tracing started because the export queue was full */
  dropped(): number;
}

interface Installed {
  users: number;
  flush(): Promise<void>;
  dropped(): number;
  shutdown(): Promise<void>;
}

let installed: Installed | undefined;

/** Who is running: attributes of the exported resource. */
export interface TracingIdentity {
  serviceVersion: string;
  /** the replica id (cluster.replicaId): `service.instance.id` */
  instanceId: string;
  /** where the SDK's own complaints go (a collector that refuses or cannot be reached) */
  log?: { warn(obj: object, msg?: string): void };
}

/**
 * How long a stop waits for the last spans to reach the collector. A collector that cannot be
 * reached had held every stop for 10–20 s (the OTLP exporter retries each batch for about ten
 * seconds, then the shutdown flushes again): longer than an orchestrator's grace period leaves for
 * the rest of a rolling restart. Past this the spans are dropped, and the log says so.
 */
export const SHUTDOWN_EXPORT_LIMIT_MS = 5_000;

/** The same SDK complaint is logged at most this often (a collector that is down fails every batch). */
const REPEAT_AFTER_MS = 60_000;

/** The SDK's diagnostics as warnings in the server's log, each distinct one at most once a minute. */
function diagnosticsTo(log: { warn(obj: object, msg?: string): void }): DiagLogger {
  const last = new Map<string, number>();
  const warn = (message: string, ...args: unknown[]) => {
    const key = String(message).slice(0, 120);
    const now = Date.now();
    if ((last.get(key) ?? Number.NEGATIVE_INFINITY) > now - REPEAT_AFTER_MS) return;
    if (last.size > 100) last.clear();
    last.set(key, now);
    const detail = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    log.warn(detail ? { detail: detail.slice(0, 500) } : {}, `tracing: ${key}`);
  };
  const quiet = () => {};
  return { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
}

export async function startTracing(s: TracingSettings, who: TracingIdentity): Promise<RunningTracing> {
  if (!installed) installed = await install(s, who);
  const mine = installed;
  mine.users++;
  let closed = false;
  return {
    flush: () => mine.flush(),
    dropped: () => mine.dropped(),
    close: async () => {
      if (closed) return;
      closed = true;
      if (--mine.users > 0) {
        await settlesWithin(mine.flush(), SHUTDOWN_EXPORT_LIMIT_MS);
        return;
      }
      if (installed === mine) installed = undefined;
      setTracingOn(false);
      await mine.shutdown();
    },
  };
}

async function install(s: TracingSettings, who: TracingIdentity): Promise<Installed> {
  const [{ AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler }, { OtlpHttpExporter }, { W3CTraceContextPropagator, TraceState, globalErrorHandler }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('./otlp-http-exporter.js'),
    import('@opentelemetry/core'),
  ]);
  const samplers = { AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler };
  const resourceAttributes = { ...s.resourceAttributes, 'service.name': s.serviceName, 'service.version': who.serviceVersion, 'service.instance.id': who.instanceId };
  const limits = spanLimitsFrom(process.env);
  // The export (attribute limits, the OTLP JSON, HTTP) runs on a thread of its own when the built
  // thread module is there (always, but under the test runner's TypeScript sources without a build).
  const exporter =
    WorkerSpanExporter.start({ url: s.url, protocol: s.protocol, headers: s.headers, resourceAttributes, limits }, diag) ??
    new OtlpHttpExporter({ url: s.url, protocol: s.protocol, headers: s.headers, resourceAttributes, limits, parseTraceState: (t) => new TraceState(t) });
  // Spans are recorded by Agentport's recorder, not the SDK's tracer (ADR 0018, Revision 3): the
  // SDK's sampler decides, the SDK's export delegate sends what otlp-json.ts encodes; the batching keeps the
  // BatchSpanProcessor's bounds. Export failures go to the SDK's global error handler, which
  // logs through diag: an operator whose collector is down must read it in Agentport's log.
  const scopes: import('@opentelemetry/core').InstrumentationScope[] = [];
  const batches = new SpanBatches(exporter, scopes, {
    scheduledDelayMillis: s.exportDelayMs,
    maxQueueSize: s.batch.maxQueueSize,
    maxExportBatchSize: s.batch.maxExportBatchSize,
    exportTimeoutMillis: s.batch.exportTimeoutMs,
    onError: (err) => globalErrorHandler(err),
  });
  // sdkSampler(): every ParentBasedSampler it makes keeps the default for a sampled local parent (always on)
  const parentBased = s.sampler.kind === 'parent' || (s.sampler.kind === 'ratio' && s.sampler.parentBased);
  const provider = new SpanRecorder(sdkSampler(s.sampler, samplers), batches, scopes, { underOwnSpans: parentBased, roots: samplesEveryRoot(s.sampler) });
  if (who.log) diag.setLogger(diagnosticsTo(who.log), DiagLogLevel.WARN);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true, parentBased || s.sampler.kind === 'always_off');
  return {
    users: 0,
    flush: () => batches.forceFlush(),
    dropped: () => batches.droppedTotal,
    shutdown: async () => {
      if (!(await settlesWithin(batches.shutdown(), SHUTDOWN_EXPORT_LIMIT_MS))) {
        who.log?.warn({ limitMs: SHUTDOWN_EXPORT_LIMIT_MS }, 'tracing: the last spans were not exported in time at the stop and are dropped; is the collector reachable?');
        await exporter.abort();
      }
      trace.disable();
      propagation.disable();
      diag.disable();
    },
  };
}

/** True when `p` settles (either way) within `ms`; false when the time runs out first. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type SamplerClasses = {
  AlwaysOnSampler: new () => import('@opentelemetry/sdk-trace-base').Sampler;
  AlwaysOffSampler: new () => import('@opentelemetry/sdk-trace-base').Sampler;
  ParentBasedSampler: new (o: { root: import('@opentelemetry/sdk-trace-base').Sampler }) => import('@opentelemetry/sdk-trace-base').Sampler;
  TraceIdRatioBasedSampler: new (ratio: number) => import('@opentelemetry/sdk-trace-base').Sampler;
};

/**
 * Whether the sampler `sdkSampler()` builds for `s` samples every span without a valid parent: always
 * on, a trace-id ratio of 1 (the SDK's bound is then above every trace id), or parent-based with
 * such a root. Any other ratio decides by the trace id, and is asked.
 */
export function samplesEveryRoot(s: Sampler): boolean {
  if (s.kind === 'always_on') return true;
  if (s.kind === 'ratio') return s.ratio >= 1;
  return s.kind === 'parent' && s.root === 'always_on';
}

/** The SDK's sampler for the settings' sampler. */
export function sdkSampler(s: Sampler, c: SamplerClasses): import('@opentelemetry/sdk-trace-base').Sampler {
  switch (s.kind) {
    case 'always_on':
      return new c.AlwaysOnSampler();
    case 'always_off':
      return new c.AlwaysOffSampler();
    case 'ratio': {
      const root = new c.TraceIdRatioBasedSampler(s.ratio);
      return s.parentBased ? new c.ParentBasedSampler({ root }) : root;
    }
    case 'parent':
      return new c.ParentBasedSampler({ root: s.root === 'always_on' ? new c.AlwaysOnSampler() : new c.AlwaysOffSampler() });
  }
}
