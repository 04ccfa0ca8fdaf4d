/**
 * Spans cross to the export thread packed (src/observability/tracing/packed-spans.ts): what the
 * OTLP exporter makes of the unpacked spans must be exactly what it makes of the SDK's own — every
 * field of the OTLP JSON, for spans with a remote parent, trace state, links, events, an error
 * status and attributes of every kind.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { packSpans, unpackSpans } from '../../src/observability/tracing/packed-spans.js';

function recordedSpans() {
  const resource = resourceFromAttributes({ 'service.name': 'agentport', 'service.instance.id': 'r1' });
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('agentport', '1.2.3');
  const other = provider.getTracer('other-scope');
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    traceState: new TraceState('vendor=abc,other=x'),
    isRemote: true,
  });
  const request = tracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, remote);
  const inRequest = trace.setSpan(remote, request);
  const child = tracer.startSpan('store.commit', { attributes: { 'agentport.commit.events': 2, ok: true, tags: ['a', 'b'], ratios: [0.5, 1.5] } }, inRequest);
  child.addEvent('retry', { attempt: 2 });
  child.addEvent('plain');
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'disk full' });
  child.end();
  const linked = other.startSpan('task.stream', { kind: SpanKind.CONSUMER, links: [{ context: request.spanContext(), attributes: { why: 'asked' } }, { context: trace.getSpanContext(remote)! }] }, ROOT_CONTEXT);
  linked.setStatus({ code: SpanStatusCode.OK });
  linked.end();
  request.updateName('SendMessage');
  request.setAttribute('http.response.status_code', 200);
  request.end();
  return { spans: memory.getFinishedSpans(), resource };
}

describe('packed spans', () => {
  it('serialize to the same OTLP JSON as the SDK spans they were packed from', () => {
    const { spans, resource } = recordedSpans();
    expect(spans).toHaveLength(3);
    const packed = packSpans(spans);
    // what postMessage does to it on the way
    const arrived = structuredClone(packed);
    const unpacked = unpackSpans(arrived, resource, (s) => new TraceState(s));
    const otlp = (x: Parameters<typeof JsonTraceSerializer.serializeRequest>[0]) => JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(x)!));
    expect(otlp(unpacked)).toEqual(otlp(spans));
    expect(unpacked.map((s) => s.duration)).toEqual(spans.map((s) => s.duration));
  });

  it('hold only strings, numbers, booleans and attribute arrays, with one entry per instrumentation scope', () => {
    const { spans } = recordedSpans();
    const packed = packSpans(spans);
    expect(packed.scopes.map((s) => s.name)).toEqual(['agentport', 'other-scope']);
    for (const v of packed.values) expect(['string', 'number', 'boolean'].includes(typeof v) || Array.isArray(v)).toBe(true);
  });
});
