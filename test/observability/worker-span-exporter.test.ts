/**
 * The span export thread (src/observability/tracing/worker-span-exporter.ts): a packed batch handed over
 * on the event loop reaches a real OTLP/HTTP receiver from the thread, with the resource it was
 * started with; a collector that refuses makes the batch fail (the processor reports it); and
 * once the thread is shut down, exports fail at once instead of waiting for a timeout.
 */
import { diag, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { AlwaysOnSampler } from '@opentelemetry/sdk-trace-base';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { spanLimitsFrom, type PackedSpans } from '../../src/observability/tracing/packed-spans.js';
import { SpanBatches, type PackedSpanExporter } from '../../src/observability/tracing/span-batches.js';
import { SpanRecorder } from '../../src/observability/tracing/span-recorder.js';
import { WorkerSpanExporter } from '../../src/observability/tracing/worker-span-exporter.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

// The thread runs the compiled module (dist/): built when older than src/, named when missing.
requireBuilt('dist/observability/tracing/span-export-worker.js');

/** Two spans recorded as the server records them, and the packed batch they make. */
async function finishedSpans(): Promise<{ batch: PackedSpans; parentId: string }> {
  let batch: PackedSpans | undefined;
  const scopes: InstrumentationScope[] = [];
  const capture: PackedSpanExporter = { part: () => {}, export: (_, b, done) => ((batch = b), done({ code: 0 })), forceFlush: async () => {}, shutdown: async () => {} };
  const sink = new SpanBatches(capture, scopes, { maxQueueSize: 100, maxExportBatchSize: 100, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, onError: () => {} });
  const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport');
  const parent = tracer.startSpan('SendMessage', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
  tracer.startSpan('store.commit', { attributes: { 'agentport.task.id': 't-1', 'agentport.commit.events': 2 } }, trace.setSpan(ROOT_CONTEXT, parent)).end();
  parent.end();
  await sink.forceFlush();
  return { batch: batch!, parentId: parent.spanContext().spanId };
}

const limits = spanLimitsFrom({});
let batchNumber = 0;
const exportOnce = (e: WorkerSpanExporter, spans: PackedSpans) => new Promise<{ code: number; error?: Error }>((resolve) => e.export(++batchNumber, spans, resolve));

describe('the span export thread', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp?.close());

  it('sends a batch to the collector from the thread, with the resource it was started with', async () => {
    const exporter = WorkerSpanExporter.start(
      { protocol: 'http/protobuf', url: `${otlp.endpoint}/v1/traces`, headers: {}, resourceAttributes: { 'service.name': 'agentport', 'service.instance.id': 'replica-7' }, limits },
      diag,
    );
    // the thread module is the build's (dist/): the test runs the compiled thread, not a stand-in
    expect(exporter).toBeDefined();
    const { batch: spans, parentId } = await finishedSpans();
    expect(await exportOnce(exporter!, spans)).toEqual({ code: 0 });
    await exporter!.shutdown();
    const received = otlp.spans.filter((s) => s.instance === 'replica-7');
    expect(received.map((s) => s.name).sort()).toEqual(['SendMessage', 'store.commit']);
    const commit = received.find((s) => s.name === 'store.commit')!;
    expect(commit.parentSpanId).toBe(parentId);
    expect(commit.attributes['agentport.commit.events']).toBe(2);
    // after shutdown the thread is gone: an export fails at once
    expect((await exportOnce(exporter!, spans)).code).toBe(1);
  });

  it('exports a batch posted in parts whole, every span once and in the order ended', async () => {
    const exporter = WorkerSpanExporter.start(
      { protocol: 'http/protobuf', url: `${otlp.endpoint}/v1/traces`, headers: {}, resourceAttributes: { 'service.name': 'agentport', 'service.instance.id': 'replica-parts' }, limits },
      diag,
    )!;
    const scopes: InstrumentationScope[] = [];
    const failures: Error[] = [];
    const sink = new SpanBatches(exporter, scopes, { maxQueueSize: 1000, maxExportBatchSize: 100, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans: 16, onError: (e) => failures.push(e) });
    const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport');
    const total = 230;
    for (let i = 0; i < total; i++) tracer.startSpan(`span-${i}`, { attributes: { i } }, ROOT_CONTEXT).end();
    await sink.shutdown();
    expect(failures).toEqual([]);
    const received = otlp.spans.filter((s) => s.instance === 'replica-parts');
    expect(received.map((s) => s.name)).toEqual(Array.from({ length: total }, (_, i) => `span-${i}`));
    expect(received.map((s) => s.attributes.i)).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('on a graceful stop sends the spans of a part not yet posted, each with the ids it was recorded with', async () => {
    const exporter = WorkerSpanExporter.start(
      { protocol: 'http/protobuf', url: `${otlp.endpoint}/v1/traces`, headers: {}, resourceAttributes: { 'service.name': 'agentport', 'service.instance.id': 'replica-stop' }, limits },
      diag,
    )!;
    const scopes: InstrumentationScope[] = [];
    const failures: Error[] = [];
    // the default part size and a batch that would wait a minute: only the stop sends the last part's spans
    const sink = new SpanBatches(exporter, scopes, { maxQueueSize: 8192, maxExportBatchSize: 1024, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, onError: (e) => failures.push(e) });
    const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport');
    const want: string[] = [];
    // 300 spans: one full part posted ahead, 44 still on the loop when the stop comes
    for (let i = 0; i < 100; i++) {
      const root = tracer.startSpan(`root-${i}`, {}, ROOT_CONTEXT);
      const child = tracer.startSpan(`child-${i}`, {}, trace.setSpan(ROOT_CONTEXT, root));
      const other = tracer.startSpan(`other-${i}`, {}, trace.setSpan(ROOT_CONTEXT, root));
      for (const [span, parent] of [
        [child, root],
        [other, root],
        [root, undefined],
      ] as const) {
        span.end();
        want.push(`${span.spanContext().traceId} ${span.spanContext().spanId} ${parent?.spanContext().spanId ?? ''}`);
      }
    }
    await sink.shutdown();
    expect(failures).toEqual([]);
    const received = otlp.spans.filter((s) => s.instance === 'replica-stop');
    expect(received.map((s) => `${s.traceId} ${s.spanId} ${s.parentSpanId ?? ''}`)).toEqual(want);
  });

  it('fails the batch with the cause when the collector refuses it', async () => {
    const refusing = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"bad batch"}'));
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    const exporter = WorkerSpanExporter.start(
      { protocol: 'http/protobuf', url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1/traces`, headers: {}, resourceAttributes: { 'service.name': 'agentport' }, limits },
      diag,
    )!;
    try {
      const result = await exportOnce(exporter, (await finishedSpans()).batch);
      expect(result.code).toBe(1);
      expect(result.error?.message).toMatch(/400|Bad Request/);
    } finally {
      await exporter.shutdown();
      refusing.close();
    }
  });
});
