/** OpenTelemetry traces (docs/observability.md, "Traces"). */
export * from './spans.js';
export { startTracing, type RunningTracing, type TracingIdentity } from './start-tracing.js';
export { tracingSettings, type TracingSettings } from './tracing-settings.js';
