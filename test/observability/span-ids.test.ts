/**
 * Trace and span ids kept as numbers on the event loop (chunks of 7, 7, … hex digits) and
 * formatted as hex where asked (src/observability/tracing/span-ids.ts): every expected value below
 * is written by hand from the W3C form of the id, not computed with the code under test.
 */
import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { InLoopSpanExporter } from '../../src/observability/tracing/in-loop-span-exporter.js';
import { spanLimitsFrom } from '../../src/observability/tracing/packed-spans.js';
import { RecordedSpan } from '../../src/observability/tracing/recorded-span.js';
import { SpanBatches } from '../../src/observability/tracing/span-batches.js';
import { chunkOf, hexDigits, spanIdHex, TraceId, traceIdHex } from '../../src/observability/tracing/span-ids.js';
import { SpanRecorder } from '../../src/observability/tracing/span-recorder.js';

/** Span ids with their chunks (digits 0–6, 7–13, 14–15), worked out by hand. */
const SPAN_IDS: Array<[string, [number, number, number]]> = [
  ['0000000000000001', [0, 0, 0x01]],
  ['0100000000000000', [0x0100000, 0, 0]],
  ['ffffffffffffffff', [0xfffffff, 0xfffffff, 0xff]],
  // the high bit of each 32-bit word: digits 0 and 8
  ['8000000080000000', [0x8000000, 0x0800000, 0]],
  // the high bit of each chunk
  ['8000000800000080', [0x8000000, 0x8000000, 0x80]],
  ['b7ad6b7169203331', [0xb7ad6b7, 0x1692033, 0x31]],
  ['00f067aa0ba902b7', [0x00f067a, 0xa0ba902, 0xb7]],
];

/** Trace ids with their chunks (digits 0–6, 7–13, 14–20, 21–27, 28–31), worked out by hand. */
const TRACE_IDS: Array<[string, [number, number, number, number, number]]> = [
  ['00000000000000000000000000000001', [0, 0, 0, 0, 0x0001]],
  ['0000000000000001000000000000000a', [0, 0, 0x0100000, 0, 0x000a]],
  ['ffffffffffffffffffffffffffffffff', [0xfffffff, 0xfffffff, 0xfffffff, 0xfffffff, 0xffff]],
  // the high bit of each 32-bit word: digits 0, 8, 16 and 24
  ['80000000800000008000000080000000', [0x8000000, 0x0800000, 0x0080000, 0x0008000, 0x0000]],
  // the high bit of each chunk
  ['80000008000000800000080000008000', [0x8000000, 0x8000000, 0x8000000, 0x8000000, 0x8000]],
  ['0af7651916cd43dd8448eb211c80319c', [0x0af7651, 0x916cd43, 0xdd8448e, 0xb211c80, 0x319c]],
];

describe('span and trace ids as numbers', () => {
  it('format a chunk as its fixed number of lower-case hex digits, zeros in front', () => {
    expect(hexDigits(0, 7)).toBe('0000000');
    expect(hexDigits(1, 7)).toBe('0000001');
    expect(hexDigits(0xabc, 7)).toBe('0000abc');
    expect(hexDigits(0xfffffff, 7)).toBe('fffffff');
    expect(hexDigits(0x8000000, 7)).toBe('8000000');
    expect(hexDigits(0x5, 2)).toBe('05');
    expect(hexDigits(0xff, 2)).toBe('ff');
    expect(hexDigits(0x0, 4)).toBe('0000');
    expect(hexDigits(0x8000, 4)).toBe('8000');
  });

  it.each(SPAN_IDS)('format span id %s from its chunks and read it back into them', (hex, [s0, s1, s2]) => {
    expect(spanIdHex(s0, s1, s2)).toBe(hex);
    expect([chunkOf(hex, 0, 7), chunkOf(hex, 7, 7), chunkOf(hex, 14, 2)]).toEqual([s0, s1, s2]);
  });

  it.each(TRACE_IDS)('format trace id %s from its chunks and read it back into them', (hex, chunks) => {
    expect(traceIdHex(...chunks)).toBe(hex);
    const t = TraceId.fromHex(hex);
    expect([t.t0, t.t1, t.t2, t.t3, t.t4]).toEqual(chunks);
    // made again from the numbers, not the string it was read from
    expect(new TraceId(...chunks).hex()).toBe(hex);
  });

  it('make random ids of 16 and 32 lower-case hex digits, never all zero, all digits used', () => {
    const ids = Array.from({ length: 2000 }, () => TraceId.random().hex());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // every position takes more than one digit: no chunk is stuck at zero or short of bits
    for (let i = 0; i < 32; i++) expect(new Set(ids.map((id) => id[i])).size).toBeGreaterThan(8);
  });
});

describe('ids through the recorder and the export', () => {
  async function exported(record: (tracer: ReturnType<SpanRecorder['getTracer']>) => void) {
    const memory = new InMemorySpanExporter();
    const resource = resourceFromAttributes({ 'service.name': 'agentport' });
    const inLoop = new InLoopSpanExporter(memory, resource as Resource, (s) => new TraceState(s), spanLimitsFrom({}));
    const scopes: InstrumentationScope[] = [];
    const sink = new SpanBatches(
      { part: (b, p) => inLoop.part(b, structuredClone(p)), export: (b, last, done) => inLoop.export(b, structuredClone(last), done), forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() },
      scopes,
      { maxQueueSize: 8192, maxExportBatchSize: 1024, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans: 2, onError: () => {} },
    );
    record(new SpanRecorder(new ParentBasedSampler({ root: new AlwaysOnSampler() }), sink, scopes, { underOwnSpans: true, roots: true }).getTracer('agentport'));
    await sink.forceFlush();
    return memory.getFinishedSpans();
  }

  it.each(TRACE_IDS.map(([t], i) => [t, SPAN_IDS[i]![0]]))('export a remote parent %s / %s exactly, and its children and grandchildren under it', async (traceId, spanId) => {
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    const seen: Array<{ traceId: string; spanId: string }> = [];
    const spans = await exported((tracer) => {
      const a = tracer.startSpan('a', {}, remote);
      expect(a).toBeInstanceOf(RecordedSpan);
      const b = tracer.startSpan('b', {}, trace.setSpan(remote, a));
      const c = tracer.startSpan('c', {}, trace.setSpan(remote, b));
      for (const s of [a, b, c]) seen.push(s.spanContext());
      expect((c as RecordedSpan).traceIdHex()).toBe(traceId);
      expect((b as RecordedSpan).traceparent()).toBe(`00-${traceId}-${seen[1]!.spanId}-01`);
      c.end();
      b.end();
      a.end();
    });
    expect(spans.map((s) => s.name)).toEqual(['c', 'b', 'a']);
    const [c, b, a] = spans;
    for (const s of spans) expect(s.spanContext().traceId).toBe(traceId);
    expect(a!.parentSpanContext).toEqual({ traceId, spanId, traceFlags: 1, isRemote: true });
    expect(b!.parentSpanContext?.spanId).toBe(seen[0]!.spanId);
    expect(c!.parentSpanContext?.spanId).toBe(seen[1]!.spanId);
    expect([a!.spanContext().spanId, b!.spanContext().spanId, c!.spanContext().spanId]).toEqual(seen.map((s) => s.spanId));
    for (const s of seen) expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('export a root with no parent, its ids as the loop formats them on demand', async () => {
    const seen: Array<{ traceId: string; spanId: string }> = [];
    const spans = await exported((tracer) => {
      for (let i = 0; i < 50; i++) {
        const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
        seen.push({ traceId: root.spanContext().traceId, spanId: root.spanContext().spanId });
        root.end();
      }
    });
    expect(spans.map((s) => ({ traceId: s.spanContext().traceId, spanId: s.spanContext().spanId }))).toEqual(seen);
    for (const s of spans) expect(s.parentSpanContext).toBeUndefined();
  });

  it('export interleaved traces whose ids differ in one chunk only, each span under its own', async () => {
    // the same first 28 digits: only the last chunk tells them apart; then only the first
    const ids = ['0af7651916cd43dd8448eb211c800001', '0af7651916cd43dd8448eb211c800002', '1af7651916cd43dd8448eb211c800002'];
    const spans = await exported((tracer) => {
      for (const i of [0, 1, 0, 2, 2, 1, 0]) {
        const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: ids[i]!, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true });
        tracer.startSpan(`in ${i}`, {}, parent).end();
      }
    });
    expect(spans.map((s) => `${s.name}: ${s.spanContext().traceId}`)).toEqual([0, 1, 0, 2, 2, 1, 0].map((i) => `in ${i}: ${ids[i]}`));
  });
});
