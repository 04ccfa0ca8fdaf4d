/**
 * What tracing runs with: agentport.yaml's `tracing:` section over the standard OTEL_* environment
 * variables, over the defaults. A key set in the file wins; a key the file leaves out is read from
 * the environment as OpenTelemetry SDKs read it; OTEL_SDK_DISABLED=true turns tracing off whatever
 * the file says (the operator's switch for an incident).
 */
import type { TracingConfig } from '../../config/config.js';
import { ConfigError } from '../../config/errors.js';

export type Sampler = { kind: 'always_on' | 'always_off' } | { kind: 'ratio'; ratio: number; parentBased: boolean } | { kind: 'parent'; root: 'always_on' | 'always_off' };

export interface TracingSettings {
  /** the full OTLP/HTTP traces URL */
  url: string;
  /** the request body's encoding */
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, less what the settings name themselves */
  resourceAttributes: Record<string, string>;
  sampler: Sampler;
  exportDelayMs: number;
  /** the export queue's bounds (the BatchSpanProcessor's, from OTEL_BSP_*) */
  batch: BatchLimits;
}

export interface BatchLimits {
  /** spans waiting to be exported, past which ended spans are dropped (and counted) */
  maxQueueSize: number;
  /** spans a batch holds at most; never more than `maxQueueSize` */
  maxExportBatchSize: number;
  /** how long one batch's export may take before it counts as failed */
  exportTimeoutMs: number;
}

/**
 * Agentport's own defaults: a queue four times the SDK's 2,048 and batches twice its 512, since a
 * batch here is flat strings and numbers, not span objects, and a server at 8,000 requests a second
 * ends ~40,000 spans a second (docs/observability.md, *Tracing*).
 */
const DEFAULT_BATCH: BatchLimits = { maxQueueSize: 8192, maxExportBatchSize: 1024, exportTimeoutMs: 30_000 };
const DEFAULT_EXPORT_DELAY_MS = 5000;

type Env = Record<string, string | undefined>;

const DEFAULT_BASE = 'http://localhost:4318';

/** The settings, or undefined when tracing is off. */
export function tracingSettings(cfg: TracingConfig, env: Env = process.env): TracingSettings | undefined {
  if (!cfg.enabled || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const resourceAttributes = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES);
  const serviceName = cfg.serviceName ?? nonEmpty(env.OTEL_SERVICE_NAME) ?? resourceAttributes['service.name'] ?? 'agentport';
  delete resourceAttributes['service.name'];
  return {
    url: cfg.endpoint ? tracesUrl(cfg.endpoint) : (nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? tracesUrl(nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? DEFAULT_BASE)),
    protocol: cfg.protocol ?? protocolFromEnv(env),
    headers: { ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS), ...cfg.headers },
    serviceName,
    resourceAttributes,
    sampler: cfg.samplingRatio !== undefined ? { kind: 'ratio', ratio: cfg.samplingRatio, parentBased: true } : samplerFromEnv(env),
    exportDelayMs: cfg.exportDelay ?? positiveInteger(env.OTEL_BSP_SCHEDULE_DELAY) ?? DEFAULT_EXPORT_DELAY_MS,
    batch: batchLimitsFrom(env),
  };
}

/**
 * OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE and OTEL_BSP_EXPORT_TIMEOUT, read as the
 * SDKs read them: a value that is not a positive integer is left for the default, and a batch larger
 * than the queue is cut to the queue's size.
 */
export function batchLimitsFrom(env: Env): BatchLimits {
  const maxQueueSize = positiveInteger(env.OTEL_BSP_MAX_QUEUE_SIZE) ?? DEFAULT_BATCH.maxQueueSize;
  const batch = positiveInteger(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE) ?? DEFAULT_BATCH.maxExportBatchSize;
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(batch, maxQueueSize),
    exportTimeoutMs: positiveInteger(env.OTEL_BSP_EXPORT_TIMEOUT) ?? DEFAULT_BATCH.exportTimeoutMs,
  };
}

function positiveInteger(v: string | undefined): number | undefined {
  const t = v?.trim();
  if (!t || !/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: `http/json` or `http/protobuf`,
 * the specification's default (docs/decisions/0086). The specification's third value, `grpc`, is
 * refused at start, naming the variable: spans are sent over OTLP/HTTP only, and read as the default
 * they would go as HTTP to what is most likely a gRPC port (4317), each export failing far from its
 * cause. Any other value is not one the specification knows and is ignored for the default, as the
 * SDKs do.
 */
function protocolFromEnv(env: Env): 'http/protobuf' | 'http/json' {
  const name = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const v = nonEmpty(env[name])?.toLowerCase();
  if (v === 'grpc')
    throw new ConfigError([
      {
        path: 'tracing.protocol',
        message: `${name}=grpc: OTLP over gRPC is not offered; traces are sent over OTLP/HTTP. Set tracing.protocol to http/protobuf or http/json (and an OTLP/HTTP endpoint, port 4318 on a Collector), or ${name} to one of them`,
      },
    ]);
  return v === 'http/json' ? 'http/json' : 'http/protobuf';
}

/** A base URL gets the signal path, as OTEL_EXPORTER_OTLP_ENDPOINT does; one already ending in it is kept. */
function tracesUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG; unknown values fall back to the SDK default (parent-based, always on). */
function samplerFromEnv(env: Env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 && env.OTEL_TRACES_SAMPLER_ARG?.trim() ? arg : 1;
  switch (name) {
    case 'always_on':
    case 'always_off':
      return { kind: name };
    case 'traceidratio':
      return { kind: 'ratio', ratio, parentBased: false };
    case 'parentbased_traceidratio':
      return { kind: 'ratio', ratio, parentBased: true };
    case 'parentbased_always_off':
      return { kind: 'parent', root: 'always_off' };
    default:
      return { kind: 'parent', root: 'always_on' };
  }
}

/** `k1=v1,k2=v2` with percent-encoded values (the W3C Baggage-like list OTEL_* variables use). */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    if (!key) continue;
    try {
      out[key] = decodeURIComponent(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}
