/**
 * The packed-batch OTLP/HTTP exporter (src/observability/tracing/otlp-http-exporter.ts) sends what
 * the SDK's exporter sent: to the configured url, with the configured headers and Content-Type
 * application/json, the SDK serializer's body for the same spans (in binary protobuf, Content-Type
 * application/x-protobuf and the SDK's protobuf serializer's body); it retries a collector's
 * 503 after its Retry-After and reports the batch exported; a refusal fails the batch with its
 * cause. Against a real HTTP server on loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { diag, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OtlpHttpExporter } from '../../src/observability/tracing/otlp-http-exporter.js';
import { spanLimitsFrom, unpackSpans, type PackedSpans } from '../../src/observability/tracing/packed-spans.js';
import { SpanBatches, type PackedSpanExporter } from '../../src/observability/tracing/span-batches.js';
import { SpanRecorder } from '../../src/observability/tracing/span-recorder.js';

interface Received {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

/** A collector answering each request with the next of `answers` (the last one repeated), keeping what it got. */
async function collector(answers: Array<{ status: number; headers?: Record<string, string>; body?: string | Buffer }>): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), raw: Buffer.concat(chunks) });
      const a = answers[Math.min(got.length - 1, answers.length - 1)]!;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(a.body ?? '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const resourceAttributes = { 'service.name': 'agentport', 'service.instance.id': 'replica-9' };
const limits = spanLimitsFrom({});

/** Two spans, a parent and its child, packed as the server packs them. */
async function packedBatch(): Promise<PackedSpans> {
  let batch: PackedSpans | undefined;
  const scopes: InstrumentationScope[] = [];
  const capture: PackedSpanExporter = { part: () => {}, export: (_, b, done) => ((batch = b), done({ code: 0 })), forceFlush: async () => {}, shutdown: async () => {} };
  const sink = new SpanBatches(capture, scopes, { maxQueueSize: 100, maxExportBatchSize: 100, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, onError: () => {} });
  const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport', '0.1.0');
  const parent = tracer.startSpan('SendMessage', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, ROOT_CONTEXT);
  tracer.startSpan('store.commit', { attributes: { 'agentport.commit.events': 2, ok: true } }, trace.setSpan(ROOT_CONTEXT, parent)).end();
  parent.end();
  await sink.forceFlush();
  return batch!;
}

const exportOnce = (e: OtlpHttpExporter, spans: PackedSpans) => new Promise<{ code: number; error?: Error }>((resolve) => e.export(1, spans, resolve));

describe('the OTLP JSON exporter of packed batches', () => {
  afterEach(() => vi.restoreAllMocks());

  it('posts the SDK serializer’s body to the configured url with the configured headers and Content-Type application/json', async () => {
    const c = await collector([{ status: 200 }]);
    const exporter = new OtlpHttpExporter({ protocol: 'http/json', url: c.url, headers: { authorization: 'Bearer k-1', 'x-tenant': 'acme' }, resourceAttributes, limits, parseTraceState: (s) => new TraceState(s) });
    try {
      const batch = await packedBatch();
      const expected = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(unpackSpans(structuredClone(batch), resourceFromAttributes(resourceAttributes), (s) => new TraceState(s), limits))!);
      expect(await exportOnce(exporter, batch)).toEqual({ code: 0 });
      expect(c.got).toHaveLength(1);
      const r = c.got[0]!;
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/v1/traces');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe('Bearer k-1');
      expect(r.headers['x-tenant']).toBe('acme');
      expect(r.body).toBe(expected);
    } finally {
      await exporter.shutdown();
      await c.close();
    }
  });

  it('posts the SDK protobuf serializer’s body with Content-Type application/x-protobuf, and says a protobuf partial success', async () => {
    const warnings = vi.spyOn(diag, 'warn').mockImplementation(() => {});
    // ExportTraceServiceResponse { partial_success { rejected_spans: 1, error_message: "one too old" } }
    const message = Buffer.from('one too old');
    const partialSuccess = Buffer.concat([Buffer.from([0x08, 0x01, 0x12, message.length]), message]);
    const c = await collector([{ status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.concat([Buffer.from([0x0a, partialSuccess.length]), partialSuccess]) }]);
    const exporter = new OtlpHttpExporter({ protocol: 'http/protobuf', url: c.url, headers: { authorization: 'Bearer k-1' }, resourceAttributes, limits, parseTraceState: (s) => new TraceState(s) });
    try {
      const batch = await packedBatch();
      const expected = Buffer.from(ProtobufTraceSerializer.serializeRequest(unpackSpans(structuredClone(batch), resourceFromAttributes(resourceAttributes), (s) => new TraceState(s), limits))!);
      expect(await exportOnce(exporter, batch)).toEqual({ code: 0 });
      expect(c.got).toHaveLength(1);
      const r = c.got[0]!;
      expect(r.url).toBe('/v1/traces');
      expect(r.headers['content-type']).toBe('application/x-protobuf');
      expect(r.headers.authorization).toBe('Bearer k-1');
      expect(r.raw.toString('hex')).toBe(expected.toString('hex'));
      expect(JSON.stringify(warnings.mock.calls)).toMatch(/Partial Success.*one too old/);
    } finally {
      await exporter.shutdown();
      await c.close();
    }
  });

  it('retries a 503 after its Retry-After and reports the batch exported', async () => {
    const c = await collector([{ status: 503, headers: { 'retry-after': '0' } }, { status: 200 }]);
    const exporter = new OtlpHttpExporter({ protocol: 'http/json', url: c.url, headers: {}, resourceAttributes, limits, parseTraceState: (s) => new TraceState(s) });
    try {
      const started = performance.now();
      expect(await exportOnce(exporter, await packedBatch())).toEqual({ code: 0 });
      // Retry-After 0, not the SDK's own ~1 s first backoff
      expect(performance.now() - started).toBeLessThan(800);
      expect(c.got).toHaveLength(2);
      expect(c.got[1]!.body).toBe(c.got[0]!.body);
    } finally {
      await exporter.shutdown();
      await c.close();
    }
  });

  it('fails the batch with the cause when the collector refuses it, and says a partial success', async () => {
    const warnings = vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const refusing = await collector([{ status: 400, body: '{"message":"bad batch"}' }]);
    const partial = await collector([{ status: 200, body: '{"partialSuccess":{"rejectedSpans":1,"errorMessage":"one too old"}}' }]);
    const refused = new OtlpHttpExporter({ protocol: 'http/json', url: refusing.url, headers: {}, resourceAttributes, limits, parseTraceState: (s) => new TraceState(s) });
    const halfTaken = new OtlpHttpExporter({ protocol: 'http/json', url: partial.url, headers: {}, resourceAttributes, limits, parseTraceState: (s) => new TraceState(s) });
    try {
      const result = await exportOnce(refused, await packedBatch());
      expect(result.code).toBe(1);
      expect(result.error?.message).toMatch(/400|Bad Request/);
      expect(refusing.got).toHaveLength(1);
      expect(await exportOnce(halfTaken, await packedBatch())).toEqual({ code: 0 });
      expect(JSON.stringify(warnings.mock.calls)).toMatch(/Partial Success.*one too old/);
    } finally {
      await refused.shutdown();
      await halfTaken.shutdown();
      await refusing.close();
      await partial.close();
    }
  });
});
