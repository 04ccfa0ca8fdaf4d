/**
 * Tracing for one server (docs/observability.md, "Traces"): the settings from agentport.yaml and
 * OTEL_*, the SDK started (src/observability/tracing), the usage drafts opened for every call so the
 * request spans can be named by their operation, and the trace stage of the call pipeline (operation spans).
 */
import type { Config } from '../config/config.js';
import { packageVersion } from '../config/package-version.js';
import type { Stage } from '../core/pipeline.js';
import { traceStage } from '../core/stages/tracing-a2a-handler.js';
import type { UsageRecorder } from '../core/usage/usage-recorder.js';
import { startTracing, tracingSettings } from '../observability/tracing/index.js';

export interface ServerTracing {
  /** the trace stage of the call pipeline */
  stage: Stage;
  /** spans dropped because the export queue was full (the export thread or the collector behind) */
  dropped(): number;
  close(): Promise<void>;
}

/** Starts tracing when the configuration (or OTEL_*) turns it on; undefined otherwise. */
export async function startServerTracing(config: Config, usage: UsageRecorder, log: { warn(obj: object, msg?: string): void }): Promise<ServerTracing | undefined> {
  const settings = tracingSettings(config.tracing);
  if (!settings) return undefined;
  const running = await startTracing(settings, { serviceVersion: packageVersion(), instanceId: config.cluster.replicaId, log });
  // The request span takes its name and attributes from the call's draft: drafts must be opened.
  usage.observe(NAMES_REQUEST_SPANS);
  return { stage: traceStage, dropped: () => running.dropped(), close: () => running.close() };
}

/** Reads nothing at the call's end: the edge names its span from the draft itself (src/edge/request-span.ts). */
const NAMES_REQUEST_SPANS = { callEnded: () => {} };
