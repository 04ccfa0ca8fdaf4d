/**
 * Spans recorded by Agentport's recorder (src/observability/tracing/span-recorder.ts), packed on
 * the event loop and unpacked on the export thread, must reach the OTLP exporter as exactly what
 * the OpenTelemetry SDK's own tracer would have given it for the same calls: every field of the
 * OTLP JSON — remote parent, trace state, links, events, error status, attributes of every kind,
 * overwritten and invalid attributes, the attribute count limit — with only the random ids and
 * the clock readings differing (those are checked for shape and order).
 */
import { defaultTextMapSetter, diag, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type AttributeValue, type TracerProvider } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator, type InstrumentationScope } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EarlierParts, spanLimitsFrom, unpackSpans, type PackedPart, type PackedSpans } from '../../src/observability/tracing/packed-spans.js';
import { SpanBatches, type PackedSpanExporter } from '../../src/observability/tracing/span-batches.js';
import { RecordedSpan } from '../../src/observability/tracing/recorded-span.js';
import { SpanRecorder, type KnownDecisions } from '../../src/observability/tracing/span-recorder.js';

const resource = resourceFromAttributes({ 'service.name': 'agentport', 'service.instance.id': 'r1' });

// one error for both runs: its stack names the caller
const failure = new TypeError('bad input');

/** The same calls, on whichever tracer provider. */
function record(provider: TracerProvider): void {
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
  const child = tracer.startSpan('store.commit', { attributes: { 'agentport.commit.events': 2, ok: true, tags: ['a', 'b'], ratios: [0.5, 1.5], gone: undefined } }, inRequest);
  child.setAttribute('agentport.commit.events', 3);
  child.setAttribute('not-a-value', { nested: true } as unknown as AttributeValue);
  child.setAttributes({ mixed: ['a', 1] as unknown as AttributeValue, late: 'yes' });
  child.addEvent('retry', { attempt: 2 });
  child.addEvent('plain');
  child.recordException(failure);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'disk full' });
  child.end();
  child.setAttribute('after-end', 1);
  const linked = other.startSpan('task.stream', { kind: SpanKind.CONSUMER, links: [{ context: request.spanContext(), attributes: { why: 'asked' } }, { context: trace.getSpanContext(remote)! }] }, ROOT_CONTEXT);
  linked.addLink({ context: child.spanContext() });
  linked.setStatus({ code: SpanStatusCode.OK });
  linked.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored after OK' });
  linked.end();
  const crowded = tracer.startSpan('crowded', {}, inRequest);
  for (let i = 0; i < 130; i++) crowded.setAttribute(`k${i}`, i);
  crowded.setAttribute('k3', 'changed');
  crowded.end();
  request.updateName('SendMessage');
  request.setAttribute('http.response.status_code', 200);
  request.end();
}

function sdkSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  record(new BasicTracerProvider({ resource, sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [new SimpleSpanProcessor(memory)] }));
  return memory.getFinishedSpans();
}

async function recordedSpans(known: KnownDecisions = { underOwnSpans: true, roots: true }, partSpans?: number): Promise<{ spans: ReadableSpan[]; batches: PackedSpans[]; parts: PackedPart[] }> {
  const memory = new InMemorySpanExporter();
  const { exporter, batches, parts } = clonedInLoop(memory);
  const scopes: InstrumentationScope[] = [];
  const sink = new SpanBatches(exporter, scopes, { maxQueueSize: 8192, maxExportBatchSize: 1024, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans, onError: () => {} });
  // by default as start-tracing installs it for this sampler: a child of a recorded span and a root are sampled without asking it
  record(new SpanRecorder(new ParentBasedSampler({ root: new AlwaysOnSampler() }), sink, scopes, known));
  await sink.forceFlush();
  return { spans: memory.getFinishedSpans(), batches, parts };
}

/** The batches unpacked into ReadableSpans behind what postMessage does to parts and batches on the way to the thread, keeping what was handed over. */
function clonedInLoop(memory: InMemorySpanExporter): { exporter: PackedSpanExporter; batches: PackedSpans[]; parts: PackedPart[] } {
  const earlier = new EarlierParts();
  const batches: PackedSpans[] = [];
  const parts: PackedPart[] = [];
  const exporter: PackedSpanExporter = {
    part: (batch, p) => {
      parts.push(p);
      earlier.add(batch, structuredClone(p));
    },
    export: (batch, b, done) => {
      batches.push(b);
      memory.export(
        unpackSpans(structuredClone(b), resource as Resource, (s) => new TraceState(s), spanLimitsFrom({}), earlier.take(batch)),
        done,
      );
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return { exporter, batches, parts };
}

type Json = Record<string, unknown>;
const otlp = (spans: ReadableSpan[]): Json => JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));

/** The OTLP JSON with each random id replaced by the order of its first appearance, and the clock readings collected apart. */
function normalized(json: Json): { json: Json; times: bigint[][] } {
  const ids = new Map<string, string>();
  const times: bigint[][] = [];
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && /^[0-9a-f]{16}([0-9a-f]{16})?$/.test(v) && v !== '0af7651916cd43dd8448eb211c80319c' && v !== 'b7ad6b7169203331') {
      if (!ids.has(v)) ids.set(v, `id${ids.size}/${v.length}`);
      return ids.get(v);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const o = v as Json;
      const out: Json = {};
      if ('startTimeUnixNano' in o) times.push([BigInt(o.startTimeUnixNano as string), BigInt(o.endTimeUnixNano as string)]);
      for (const [k, x] of Object.entries(o)) {
        if (k === 'startTimeUnixNano' || k === 'endTimeUnixNano') continue;
        if (k === 'timeUnixNano') {
          times.push([BigInt(x as string)]);
          continue;
        }
        out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  return { json: walk(json) as Json, times };
}

describe('recorded spans', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['children of recorded spans and roots sampled without asking the sampler', { underOwnSpans: true, roots: true }, undefined],
    ['every span asking the sampler', {}, undefined],
    ['the batch posted in parts of one span', { underOwnSpans: true, roots: true }, 1],
    ['the batch posted in parts of three spans', { underOwnSpans: true, roots: true }, 3],
  ])('reach the OTLP exporter as the SDK tracer would have made them, bar ids and clock readings (%s)', async (_, known: KnownDecisions, partSpans: number | undefined) => {
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const expected = sdkSpans();
    const { spans, parts } = await recordedSpans(known, partSpans);
    expect(spans).toHaveLength(4);
    // four spans: a part at each `partSpans`-th (none with the default of 64)
    expect(parts).toHaveLength(partSpans === undefined ? 0 : Math.floor(4 / partSpans));
    const ours = normalized(otlp(spans));
    const theirs = normalized(otlp(expected));
    expect(ours.json).toEqual(theirs.json);
    expect(spans.map((s) => s.droppedAttributesCount)).toEqual(expected.map((s) => s.droppedAttributesCount));
    // times: wall clock of now, in order, each span ending after it starts
    const now = BigInt(Date.now()) * 1_000_000n;
    for (const t of ours.times) {
      for (const x of t) expect(x > now - 60_000_000_000n && x <= now + 1_000_000_000n).toBe(true);
      if (t.length === 2) expect(t[1]! >= t[0]!).toBe(true);
    }
    for (const s of spans) expect(s.duration[0] * 1e9 + s.duration[1]).toBeGreaterThanOrEqual(0);
  });

  it('cross to the thread as one string, one buffer of numbers and the array values, with one entry per instrumentation scope', async () => {
    const { batches } = await recordedSpans();
    expect(batches).toHaveLength(1);
    const batch = batches[0]!;
    expect(batch.scopes.map((s) => s.name)).toEqual(['agentport', 'other-scope']);
    expect(typeof batch.text).toBe('string');
    expect(batch.numbers).toBeInstanceOf(Float64Array);
    // the span names and the ids of the remote parent are in the one string
    for (const s of ['SendMessage', 'store.commit', 'task.stream', 'crowded', '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331']) expect(batch.text).toContain(s);
    // only the array values set on the commit span (['a', 'b'] and [0.5, 1.5]) cross as objects; the invalid mixed array was never recorded
    expect(batch.others).toEqual([
      ['a', 'b'],
      [0.5, 1.5],
    ]);
  });

  it.each([
    [16, 100],
    [7, 100],
    [64, 1024],
  ])('posted in parts of %i spans, reach the exporter in whole batches of at most %i, every span once and in the order ended', async (partSpans, maxExportBatchSize) => {
    const memory = new InMemorySpanExporter();
    const { exporter, parts } = clonedInLoop(memory);
    const exported: number[] = [];
    const counting: PackedSpanExporter = {
      ...exporter,
      export: (batch, last, done) => exporter.export(batch, last, (r) => (exported.push(memory.getFinishedSpans().length), done(r))),
    };
    const scopes: InstrumentationScope[] = [];
    const sink = new SpanBatches(counting, scopes, { maxQueueSize: 8192, maxExportBatchSize, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans, onError: () => {} });
    const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport');
    const total = 250;
    for (let i = 0; i < total; i++) tracer.startSpan(`span-${i}`, { attributes: { i, tags: [`t${i}`] } }, ROOT_CONTEXT).end();
    await sink.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(Array.from({ length: total }, (_, i) => `span-${i}`));
    expect(spans.map((s) => s.attributes)).toEqual(Array.from({ length: total }, (_, i) => ({ i, tags: [`t${i}`] })));
    // spans exported after each batch: full batches, then the rest at the flush
    const sizes = Array.from({ length: Math.ceil(total / maxExportBatchSize) }, (_, k) => Math.min(total, (k + 1) * maxExportBatchSize));
    expect(exported).toEqual(sizes);
    // the parts went ahead of their batches: every `partSpans` spans of a batch but its last span
    const perBatch = sizes.map((end, k) => end - (k === 0 ? 0 : sizes[k - 1]!));
    expect(parts).toHaveLength(perBatch.reduce((n, size) => n + Math.floor((size - (size === maxExportBatchSize ? 1 : 0)) / partSpans), 0));
  });

  it('carry every string as set through a part: a long one, surrogate pairs and lone surrogates kept, non-Latin names', async () => {
    const memory = new InMemorySpanExporter();
    const { exporter, parts } = clonedInLoop(memory);
    const scopes: InstrumentationScope[] = [];
    const sink = new SpanBatches(exporter, scopes, { maxQueueSize: 8192, maxExportBatchSize: 100, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans: 3, onError: () => {} });
    const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport');
    // 20,001 code units (trace20 tried parts as buffers of code units, 8,192 at first, decoded 8,192 at a time: kept as a case)
    const long = `${'x'.repeat(9_000)}é${'🙂'.repeat(3_000)}${'z'.repeat(5_000)}`;
    const values: Record<string, string>[] = [
      { plain: 'hello', empty: '' },
      { long },
      { pair: '🙂 smile', lone: 'a\ud800b', trailing: '\udc00', cjk: '日本語' },
      { after: 'the part after the long one' },
      { again: long.slice(7_000) },
    ];
    values.forEach((attributes, i) => tracer.startSpan(`span-${i}-${'ü'.repeat(i)}`, { attributes }, ROOT_CONTEXT).end());
    await sink.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(values.map((_, i) => `span-${i}-${'ü'.repeat(i)}`));
    expect(spans.map((s) => s.attributes)).toEqual(values);
    expect(long.length).toBe(20_001);
    expect((spans[2]!.attributes.lone as string).charCodeAt(1)).toBe(0xd800);
    // the first part (spans 0-2) holds the long string whole
    expect(parts).toHaveLength(1);
    expect(parts[0]!.text).toContain(long);
  });

  it('past a full queue are dropped and counted, the count kept across the warnings that reset their own', async () => {
    const answers: Array<(r: { code: number }) => void> = [];
    const held: PackedSpanExporter = { part: () => {}, export: (_b, _l, done) => answers.push(done), forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
    const sink = new SpanBatches(held, [], { maxQueueSize: 8, maxExportBatchSize: 4, scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000, onError: () => {} });
    const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, []).getTracer('agentport');
    const end = (n: number) => {
      for (let i = 0; i < n; i++) tracer.startSpan('s', {}, ROOT_CONTEXT).end();
    };
    // 4 spans: a batch, exporting (unanswered); 4 more: a batch waiting; the queue holds 8, so 12 more are dropped
    end(20);
    expect(answers).toHaveLength(1);
    expect(sink.droppedTotal).toBe(12);
    // the first batch answered: the waiting one exports, 4 spans fit again (the warning of the 12 is said), 6 are dropped
    answers[0]!({ code: 0 });
    end(10);
    expect(answers).toHaveLength(2);
    expect(sink.droppedTotal).toBe(18);
  });

  it('under a parent the sampler dropped, are not recorded though roots are known to be sampled', () => {
    const sink = discardingBatches();
    const tracer = new SpanRecorder(new ParentBasedSampler({ root: new AlwaysOnSampler() }), sink, [], { underOwnSpans: true, roots: true }).getTracer('agentport');
    const dropped = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE, isRemote: true };
    const local = { ...dropped, isRemote: false };
    for (const parent of [dropped, local]) {
      const span = tracer.startSpan('POST', {}, trace.setSpanContext(ROOT_CONTEXT, parent));
      expect(span).not.toBeInstanceOf(RecordedSpan);
      expect(span.spanContext().traceFlags).toBe(TraceFlags.NONE);
      expect(span.spanContext().traceId).toBe(parent.traceId);
    }
    // a root (no parent, or one with invalid ids) is sampled
    for (const ctx of [ROOT_CONTEXT, trace.setSpanContext(ROOT_CONTEXT, { ...dropped, traceId: '0'.repeat(32) })]) expect(tracer.startSpan('POST', {}, ctx)).toBeInstanceOf(RecordedSpan);
  });

  it('name themselves in a traceparent as the W3C propagator writes it', () => {
    const sink = discardingBatches();
    const tracer = new SpanRecorder(new ParentBasedSampler({ root: new AlwaysOnSampler() }), sink, []).getTracer('agentport');
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      traceState: new TraceState('vendor=abc'),
      isRemote: true,
    });
    for (const parent of [ROOT_CONTEXT, remote]) {
      const span = tracer.startSpan('POST', {}, parent);
      expect(span).toBeInstanceOf(RecordedSpan);
      const carrier: Record<string, string> = {};
      new W3CTraceContextPropagator().inject(trace.setSpan(parent, span), carrier, defaultTextMapSetter);
      expect((span as RecordedSpan).traceparent()).toBe(carrier.traceparent);
    }
  });
});

/** Batches that are never exported (a minute's delay, an exporter that drops): for tests that read spans, not exports. */
function discardingBatches(): SpanBatches {
  return new SpanBatches({ part: () => {}, export: () => {}, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() }, [], {
    maxQueueSize: 8,
    maxExportBatchSize: 8,
    scheduledDelayMillis: 60_000,
    exportTimeoutMillis: 30_000,
    onError: () => {},
  });
}
