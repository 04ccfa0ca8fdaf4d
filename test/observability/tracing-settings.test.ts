/** tracing: settings from agentport.yaml over the OTEL_* environment over the defaults. */
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { tracingSchema } from '../../src/config/observability-schema.js';
import { newTraceId } from '../../src/observability/tracing/span-ids.js';
import { samplesEveryRoot, sdkSampler } from '../../src/observability/tracing/start-tracing.js';
import { tracingSettings, type Sampler } from '../../src/observability/tracing/tracing-settings.js';

const cfg = (o: Record<string, unknown>) => tracingSchema.parse(o);

describe('tracing settings', () => {
  it('are off by default, and OTEL_SDK_DISABLED turns them off whatever the file says', () => {
    expect(tracingSettings(cfg({}), {})).toBeUndefined();
    expect(tracingSettings(cfg({ enabled: true }), { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings(cfg({ enabled: true }), { OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it('default to a local collector, parent-based always-on sampling, service agentport', () => {
    expect(tracingSettings(cfg({ enabled: true }), {})).toEqual({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'agentport',
      resourceAttributes: {},
      sampler: { kind: 'parent', root: 'always_on' },
      exportDelayMs: 5000,
      batch: { maxQueueSize: 8192, maxExportBatchSize: 1024, exportTimeoutMs: 30_000 },
    });
  });

  it("read the export queue's bounds from OTEL_BSP_*, the file's exportDelay over the environment's", () => {
    const env = { OTEL_BSP_MAX_QUEUE_SIZE: '64', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '16', OTEL_BSP_EXPORT_TIMEOUT: '2500', OTEL_BSP_SCHEDULE_DELAY: '250' };
    const s = tracingSettings(cfg({ enabled: true }), env)!;
    expect(s.batch).toEqual({ maxQueueSize: 64, maxExportBatchSize: 16, exportTimeoutMs: 2500 });
    expect(s.exportDelayMs).toBe(250);
    expect(tracingSettings(cfg({ enabled: true, exportDelay: '2s' }), env)!.exportDelayMs).toBe(2000);
  });

  it('cut a batch larger than the queue to the queue, and leave values that are not positive integers to the defaults', () => {
    expect(tracingSettings(cfg({ enabled: true }), { OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500' })!.batch).toEqual({ maxQueueSize: 100, maxExportBatchSize: 100, exportTimeoutMs: 30_000 });
    // the default batch (1,024) is cut too when only the queue is set below it
    expect(tracingSettings(cfg({ enabled: true }), { OTEL_BSP_MAX_QUEUE_SIZE: '10' })!.batch.maxExportBatchSize).toBe(10);
    for (const bad of ['0', '-5', '1.5', 'abc', '', ' ', '1e3', '99999999999999999999']) {
      const s = tracingSettings(cfg({ enabled: true }), { OTEL_BSP_MAX_QUEUE_SIZE: bad, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: bad, OTEL_BSP_EXPORT_TIMEOUT: bad, OTEL_BSP_SCHEDULE_DELAY: bad })!;
      expect(s.batch, bad).toEqual({ maxQueueSize: 8192, maxExportBatchSize: 1024, exportTimeoutMs: 30_000 });
      expect(s.exportDelayMs, bad).toBe(5000);
    }
  });

  it('read the OTEL_* variables for what the file leaves out', () => {
    const s = tracingSettings(cfg({ enabled: true }), {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b,tenant=t1',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'gateway',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=ignored',
    })!;
    expect(s.url).toBe('https://otlp.example.com:4318/v1/traces');
    expect(s.headers).toEqual({ 'x-api-key': 'a b', tenant: 't1' });
    expect(s.sampler).toEqual({ kind: 'ratio', ratio: 0.25, parentBased: true });
    expect(s.serviceName).toBe('gateway');
    expect(s.resourceAttributes).toEqual({ 'deployment.environment': 'prod' });
  });

  it('take the traces endpoint as it is, and the file over the environment', () => {
    expect(tracingSettings(cfg({ enabled: true }), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' })!.url).toBe('http://c:4318/custom');
    const s = tracingSettings(cfg({ enabled: true, endpoint: 'http://tempo:4318', headers: { tenant: 'file' }, samplingRatio: '0.5', serviceName: 'edge' }), {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env:4318/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'tenant=env,other=1',
      OTEL_TRACES_SAMPLER: 'always_off',
      OTEL_SERVICE_NAME: 'env-name',
    })!;
    expect(s.url).toBe('http://tempo:4318/v1/traces');
    expect(s.headers).toEqual({ tenant: 'file', other: '1' });
    expect(s.sampler).toEqual({ kind: 'ratio', ratio: 0.5, parentBased: true });
    expect(s.serviceName).toBe('edge');
  });

  it('encode in binary protobuf unless the file or OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says http/json; the file over the environment', () => {
    const protocol = (file: 'http/json' | 'http/protobuf' | undefined, env: Record<string, string>) => tracingSettings(cfg({ enabled: true, ...(file ? { protocol: file } : {}) }), env)!.protocol;
    expect(protocol(undefined, {})).toBe('http/protobuf');
    expect(protocol(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(protocol(undefined, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' HTTP/JSON ' })).toBe('http/json');
    expect(protocol(undefined, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/protobuf');
    // a value the specification does not know is ignored for the default
    expect(protocol(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toBe('http/protobuf');
    expect(protocol('http/json', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe('http/json');
    expect(protocol('http/protobuf', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/protobuf');
  });

  it('refuses OTLP over gRPC from either variable, naming it and the values offered; the protocol in the file is read first', () => {
    const settings = (file: 'http/json' | undefined, env: Record<string, string>) => () => tracingSettings(cfg({ enabled: true, ...(file ? { protocol: file } : {}) }), env);
    expect(settings(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(settings(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: ' gRPC ' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc: OTLP over gRPC is not offered.*http\/protobuf or http\/json/);
    expect(settings(undefined, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toThrow(
      /^Invalid configuration:\n {2}tracing\.protocol: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc/,
    );
    // the traces variable decides over the general one, which then does not matter
    expect(settings(undefined, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })()!.protocol).toBe('http/protobuf');
    expect(settings('http/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })()!.protocol).toBe('http/json');
    // tracing off: nothing read, nothing refused
    expect(tracingSettings(cfg({ enabled: false }), { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeUndefined();
  });

  it('refuses a sampling ratio outside 0..1', () => {
    expect(() => cfg({ enabled: true, samplingRatio: 1.5 })).toThrow(/from 0 to 1/);
  });
});

describe("the recorder's known root decisions", () => {
  const classes = { AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler };
  const settings: Sampler[] = [
    { kind: 'always_on' },
    { kind: 'always_off' },
    { kind: 'parent', root: 'always_on' },
    { kind: 'parent', root: 'always_off' },
    ...[0, 0.001, 0.5, 0.99, 1].flatMap((ratio) => [true, false].map((parentBased) => ({ kind: 'ratio' as const, ratio, parentBased }))),
  ];

  it.each(settings.map((s) => [JSON.stringify(s), s] as const))('skip the sampler for a root only when it samples every trace id of ours (%s)', (_, s) => {
    const sampler = sdkSampler(s, classes);
    const ids = Array.from({ length: 4000 }, () => newTraceId());
    const sampled = ids.filter((id) => sampler.shouldSample(ROOT_CONTEXT, id, 'POST', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED);
    // taken as known, every root the sampler was asked about is sampled; otherwise some are not (4,000 ids: 0.99 keeps them all once in e^40 runs)
    expect(samplesEveryRoot(s)).toBe(sampled.length === ids.length);
  });
});
