/**
 * The `metrics`, `tracing` and `logging` sections of agentport.yaml (issue 14;
 * docs/observability.md). One schema per section, so each part of observability owns its own.
 */
import { z } from 'zod';
import { LOG_LEVELS, bool, duration, httpBaseUrl, nonEmptyString } from './primitives.js';

/** host:port to listen on ([::1]:9464 for IPv6); a port alone listens on loopback (127.0.0.1). */
const listenAddress = z
  .preprocess((v) => (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v.trim())) ? `127.0.0.1:${String(v).trim()}` : v), nonEmptyString)
  .refine((value) => /^(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]+):\d{1,5}$/.test(value) && Number(value.slice(value.lastIndexOf(':') + 1)) <= 65535, {
    message: 'must be host:port to listen on, e.g. 127.0.0.1:9464',
  });

/**
 * Prometheus metrics at /metrics (src/observability/metrics). Who may scrape: on the main listener
 * an admin credential, or `token` as a bearer token; with `listen`, a listener of its own (loopback
 * by default in the examples) that asks for nothing, and the main listener serves no /metrics.
 */
export const metricsSchema = z
  .object({
    enabled: bool.default(true),
    /** a bearer token that may read /metrics on the main listener (besides an admin credential) */
    token: z.string().min(16, 'must be at least 16 characters (use ${ENV_VAR} to keep it out of the file)').optional(),
    /** host:port of a separate /metrics listener without authentication (bind it to loopback) */
    listen: listenAddress.optional(),
  })
  .strict();

export type MetricsConfig = z.output<typeof metricsSchema>;

const ratio = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value),
  z.number({ invalid_type_error: 'must be a number from 0 to 1' }).min(0, 'must be a number from 0 to 1').max(1, 'must be a number from 0 to 1'),
);

/**
 * OpenTelemetry traces exported over OTLP/HTTP (src/observability/tracing). The keys left out here
 * fall back to the standard OTEL_* environment variables, then to the defaults
 * (src/observability/tracing/tracing-settings.ts has the precedence).
 */
export const tracingSchema = z
  .object({
    enabled: bool.default(false),
    /** the collector's OTLP/HTTP base URL (`/v1/traces` appended unless the path already ends so) */
    endpoint: httpBaseUrl.optional(),
    /** the request body's encoding: binary protobuf (default) or JSON; else OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL */
    protocol: z.enum(['http/protobuf', 'http/json']).optional(),
    /** sent with every export (an API key of a hosted backend); merged over OTEL_EXPORTER_OTLP_HEADERS */
    headers: z.record(nonEmptyString, z.string()).optional(),
    /** share of new traces kept (parent-based: a caller's sampled flag is followed) */
    samplingRatio: ratio.optional(),
    serviceName: nonEmptyString.optional(),
    /** how long finished spans wait to be exported in one batch (else OTEL_BSP_SCHEDULE_DELAY, else 5 s) */
    exportDelay: duration(1).optional(),
  })
  .strict();

/**
 * The named loggers whose level can be set apart from `server.logLevel` (each is a pino child
 * logger with `module: <name>` in every line). A closed list, so a misspelt module is a config
 * error naming the known ones instead of a setting that silently does nothing.
 */
export const LOG_MODULES = ['access', 'http', 'grpc', 'tasks', 'push', 'oauth', 'auth', 'bus', 'store', 'audit', 'usage', 'quotas', 'agents', 'tracing'] as const;
export type LogModule = (typeof LOG_MODULES)[number];

const logLevel = z.enum(LOG_LEVELS);

/** Access log and per-module log levels (src/observability/logging). */
export const loggingSchema = z
  .object({
    /** one info line per request on the `access` logger (docs/observability.md#logs) */
    accessLog: bool.default(false),
    /** module -> level; a module not named logs at `server.logLevel` */
    levels: z
      .object(Object.fromEntries(LOG_MODULES.map((m) => [m, logLevel.optional()])) as Record<LogModule, z.ZodOptional<typeof logLevel>>)
      .strict()
      .default({}),
  })
  .strict();

export type LoggingConfig = z.output<typeof loggingSchema>;
export type TracingConfig = z.output<typeof tracingSchema>;
