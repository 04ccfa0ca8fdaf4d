/**
 * The OTLP/HTTP JSON request the export thread writes straight from a packed batch
 * (src/observability/tracing/otlp-json.ts) must be the bytes the SDK's exporter sent for the same
 * batch: the SDK's JSON serializer (`JsonTraceSerializer`) over the ReadableSpans `unpackSpans`
 * makes of it — which recorded-spans.test.ts holds to what the SDK's own tracer makes. Compared
 * byte for byte, and parsed, for spans of many shapes: events, links, status, attributes of every
 * type, arrays, trace state, every limit hit, unicode, a parent and none, several scopes, parts.
 */
import { diag, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type AttributeValue, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otlpJsonRequest, resourceJson } from '../../src/observability/tracing/otlp-json.js';
import { otlpProtoRequest, resourceProto } from '../../src/observability/tracing/otlp-proto.js';
import { EarlierParts, spanLimitsFrom, unpackSpans, type PackedSpans, type SpanLimits } from '../../src/observability/tracing/packed-spans.js';
import { SpanBatches, type PackedSpanExporter } from '../../src/observability/tracing/span-batches.js';
import { SpanRecorder } from '../../src/observability/tracing/span-recorder.js';

const resourceAttributes = { 'service.name': 'agentport', 'service.version': '1.2.3', 'service.instance.id': 'r1', '7': 'an index-like key' };
const resource = resourceFromAttributes(resourceAttributes);
const parse = (s: string) => new TraceState(s);

interface Pair {
  ours: string;
  theirs: string;
  spans: number;
  /** the same batch as OTLP binary protobuf (otlp-proto.ts), ours and the SDK's `ProtobufTraceSerializer`'s */
  oursProto: Buffer;
  theirsProto: Buffer;
}

/** Runs `record` on Agentport's recorder and gives each exported batch's body both ways: ours and the SDK serializer's. */
async function bothWays(record: (tracer: (name: string, version?: string, schemaUrl?: string) => Tracer) => void, o: { limits?: SpanLimits; partSpans?: number; maxExportBatchSize?: number } = {}): Promise<Pair[]> {
  const limits = o.limits ?? spanLimitsFrom({});
  const ourParts = new EarlierParts();
  const protoParts = new EarlierParts();
  const theirParts = new EarlierParts();
  const pairs: Pair[] = [];
  const both: PackedSpanExporter = {
    // what postMessage hands the thread: a structured clone, once for each side
    part: (batch, p) => {
      ourParts.add(batch, structuredClone(p));
      protoParts.add(batch, structuredClone(p));
      theirParts.add(batch, structuredClone(p));
    },
    export: (batch, last: PackedSpans, done) => {
      const { body, spans } = otlpJsonRequest(structuredClone(last), ourParts.take(batch), resourceJson(resourceAttributes), parse, limits);
      const proto = otlpProtoRequest(structuredClone(last), protoParts.take(batch), resourceProto(resourceAttributes), parse, limits);
      const readable = unpackSpans(structuredClone(last), resource, parse, limits, theirParts.take(batch));
      pairs.push({
        ours: new TextDecoder().decode(body),
        theirs: new TextDecoder().decode(JsonTraceSerializer.serializeRequest(readable)!),
        spans,
        oursProto: Buffer.from(proto.body),
        theirsProto: Buffer.from(ProtobufTraceSerializer.serializeRequest(readable)!),
      });
      expect(spans).toBe(readable.length);
      expect(proto.spans).toBe(readable.length);
      done({ code: 0 });
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const scopes: InstrumentationScope[] = [];
  const sink = new SpanBatches(both, scopes, {
    maxQueueSize: 100_000,
    maxExportBatchSize: o.maxExportBatchSize ?? 512,
    scheduledDelayMillis: 60_000,
    exportTimeoutMillis: 30_000,
    partSpans: o.partSpans,
    onError: () => {},
  });
  const recorder = new SpanRecorder(new AlwaysOnSampler(), sink, scopes);
  record((name, version, schemaUrl) => recorder.getTracer(name, version, schemaUrl === undefined ? undefined : { schemaUrl }));
  await sink.forceFlush();
  return pairs;
}

function expectSame(pairs: Pair[], batches = 1): void {
  expect(pairs).toHaveLength(batches);
  for (const p of pairs) {
    expect(JSON.parse(p.ours)).toEqual(JSON.parse(p.theirs));
    expect(p.ours).toBe(p.theirs);
    expect(p.oursProto.toString('hex')).toBe(p.theirsProto.toString('hex'));
  }
}

const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  traceState: new TraceState('vendor=abc,other=x'),
  isRemote: true,
});

/** Spans of every shape the recorder packs. */
function manyShapes(tracer: (name: string, version?: string, schemaUrl?: string) => Tracer): void {
  const main = tracer('agentport', '1.2.3');
  const bare = tracer('bare');
  const schema = tracer('with-schema', undefined, 'https://opentelemetry.io/schemas/1.30.0');
  const root = main.startSpan('POST /a2a', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'url.path': '/a2a/echo' } }, remoteParent);
  const inRoot = trace.setSpan(remoteParent, root);
  const child = bare.startSpan(
    'store.commit',
    {
      kind: SpanKind.CLIENT,
      attributes: { int: 42, negative: -7, zero: -0, big: 2 ** 60, double: 0.1, tiny: 5e-324, huge: 1.5e300, nan: Number.NaN, inf: Number.POSITIVE_INFINITY, yes: true, no: false },
    },
    inRoot,
  );
  child.setAttribute('strings', ['a', '', 'ü', '🙂']);
  child.setAttribute('numbers', [1, 2.5, -3]);
  child.setAttribute('bools', [true, false]);
  child.setAttribute('holes', ['a', null, undefined, 'b'] as unknown as AttributeValue);
  child.setAttribute('empty', []);
  child.setAttribute('int', 43);
  child.setAttribute('10', 'ten');
  child.setAttribute('2', 'two');
  child.setAttribute('01', 'not an index');
  child.setAttribute('4294967295', 'past the last index');
  child.setAttribute('4294967294', 'the last index');
  child.setAttribute('', 'an empty key');
  child.setAttribute('quotes "and" \\ backslash', 'tab\there, newline\n, nul \u0000, del \u007f, line sep \u2028');
  child.setAttribute('lone', 'a\ud800b\udc00');
  child.setAttribute('cjk', '日本語 Ελληνικά');
  child.addEvent('retry', { attempt: 2, reason: 'busy' });
  child.addEvent('plain');
  child.addEvent('at a time', { when: 'given' }, [Math.floor(Date.now() / 1000), 123_456_789]);
  child.recordException(new TypeError('bad input'));
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'disk "full"' });
  child.end();
  const linked = schema.startSpan(
    'task.stream',
    {
      kind: SpanKind.CONSUMER,
      links: [
        { context: root.spanContext(), attributes: { why: 'asked', n: 1 } },
        { context: trace.getSpanContext(remoteParent)! },
        { context: { ...trace.getSpanContext(remoteParent)!, traceState: new TraceState('a=1') } },
      ],
    },
    ROOT_CONTEXT,
  );
  linked.addLink({ context: child.spanContext(), attributes: { late: true } });
  linked.setStatus({ code: SpanStatusCode.OK });
  linked.end();
  // a span from another scope between two of the first: the SDK groups by scope in order of first appearance
  main.startSpan('internal', {}, inRoot).end();
  const producer = main.startSpan('publish', { kind: SpanKind.PRODUCER, startTime: Date.now() - 5_000 }, ROOT_CONTEXT);
  producer.end(Date.now() - 2_000);
  // an end before the start: the SDK keeps the start as the end
  const backwards = bare.startSpan('backwards', { startTime: Date.now() }, ROOT_CONTEXT);
  backwards.end(Date.now() - 10_000);
  // a status message and nothing after the attributes: the span's tail written at once
  const failed = bare.startSpan('failed', { attributes: { attempt: 1 } }, inRoot);
  failed.setStatus({ code: SpanStatusCode.ERROR, message: 'timed out' });
  failed.end();
  const crowded = bare.startSpan('crowded', {}, inRoot);
  for (let i = 0; i < 40; i++) crowded.setAttribute(`k${i % 25}`, i);
  crowded.setAttribute('k3', 'changed');
  crowded.updateName('crowded, renamed');
  crowded.end();
  root.setAttribute('http.response.status_code', 200);
  root.end();
}

describe('the OTLP JSON request written from packed spans', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is the SDK serializer’s bytes for spans of every shape, grouped by scope', async () => {
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const pairs = await bothWays(manyShapes);
    expectSame(pairs);
    const body = JSON.parse(pairs[0]!.ours);
    // three scopes, the spans of each in the order they ended
    expect(body.resourceSpans[0].scopeSpans.map((s: { scope: { name: string } }) => s.scope.name)).toEqual(['bare', 'with-schema', 'agentport']);
    expect(body.resourceSpans[0].scopeSpans[1].schemaUrl).toBe('https://opentelemetry.io/schemas/1.30.0');
    expect(body.resourceSpans[0].scopeSpans[2].spans.map((s: { name: string }) => s.name)).toEqual(['internal', 'publish', 'POST /a2a']);
  });

  it.each([
    ['attribute count', { attributeCountLimit: 3 }],
    ['attribute value length', { attributeValueLengthLimit: 2 }],
    ['no attributes at all', { attributeCountLimit: 0 }],
    ['link count', { linkCountLimit: 2 }],
    ['no links', { linkCountLimit: 0 }],
    ['event count', { eventCountLimit: 2 }],
    ['no events', { eventCountLimit: 0 }],
    ['attributes per event and per link', { attributePerEventCountLimit: 1, attributePerLinkCountLimit: 0 }],
  ])('applies the %s limit as unpackSpans does, dropped counts included', async (_, limit) => {
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const limits = { ...spanLimitsFrom({}), ...limit };
    expectSame(await bothWays(manyShapes, { limits }));
  });

  it('cuts string values where slice cuts under a fractional value-length limit, in both requests', async () => {
    // OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=2.5 is read as 2.5: unpackSpans (and the SDK's span) cut at 2 characters
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    expectSame(await bothWays(manyShapes, { limits: { ...spanLimitsFrom({}), attributeValueLengthLimit: 2.5 } }));
  });

  it('is the same bytes when the batch came in parts, and for several batches', async () => {
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const pairs = await bothWays(
      (tracer) => {
        for (let i = 0; i < 3; i++) manyShapes(tracer);
      },
      { partSpans: 4, maxExportBatchSize: 10 },
    );
    // 3 × 8 spans in batches of 10
    expectSame(pairs, 3);
    expect(pairs.map((p) => p.spans)).toEqual([10, 10, 4]);
  });

  it('is the same bytes when every string is ASCII and some need an escape (quotes, backslashes, control characters)', async () => {
    const pairs = await bothWays((tracer) => {
      const t = tracer('ascii "scope"');
      const span = t.startSpan('say "hi"\\there', { attributes: { 'a"key': 'x\\y', tab: 'a\tb', nl: 'line\nnext', bell: '\u0007', plain: 'ok' } }, ROOT_CONTEXT);
      span.addEvent('ev\u001f', { 'k\\': '"' });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'bad "input"' });
      span.end();
      t.startSpan('plain', { attributes: { ok: 'yes' } }, ROOT_CONTEXT).end();
    });
    expectSame(pairs);
    expect(pairs[0]!.ours).toContain('say \\"hi\\"\\\\there');
  });

  it('is the same bytes for the echo’s five spans a request, many requests', async () => {
    const pairs = await bothWays((tracer) => {
      const t = tracer('agentport', '0.1.0');
      for (let i = 0; i < 200; i++) {
        const request = t.startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'url.path': '/a2a/echo', 'server.address': '127.0.0.1' } }, ROOT_CONTEXT);
        const inRequest = trace.setSpan(ROOT_CONTEXT, request);
        t.startSpan('authenticate', { attributes: { 'agentport.auth.scheme': 'none' } }, inRequest).end();
        const send = t.startSpan('core SendMessage', { attributes: { 'agentport.agent.id': 'echo', 'agentport.task.id': `task-${i}` } }, inRequest);
        const inSend = trace.setSpan(inRequest, send);
        t.startSpan('invoke_agent echo', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'echo' } }, inSend).end();
        t.startSpan('store.commit', { attributes: { 'agentport.commit.events': 3 } }, inSend).end();
        send.end();
        request.setAttribute('http.response.status_code', 200);
        request.end();
      }
    });
    expectSame(pairs, 2);
  });

  it('is the same bytes when a key repeats, is empty or starts with a digit after keys already written as read', async () => {
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]));
    const sets: Attributes[] = [
      { a: 1, b: 'x', c: true },
      { a: 1, b: 'x', c: false, 'b ': 2 },
      { a: 'first', b: 'x', '9': 'index-like', c: 1 },
      { a: 'first', b: 'x', '9x': 'digit first, not an index', c: 1 },
      { a: 'first', '': 'empty', b: 'x' },
      many,
      { ...many, k17: 'one past the linear search' },
      { n0: 0, n1: -0, n2: 2147483646, n3: 2147483647, n4: -1, n5: 2 ** 31, n6: 1.5, n7: Number.MAX_SAFE_INTEGER, n8: ['x', 'y'], n9: [1, 2.5] },
    ];
    const pairs = await bothWays(
      (tracer) => {
        const t = tracer('as read');
        for (const attributes of sets) {
          const span = t.startSpan('s', { attributes }, ROOT_CONTEXT);
          // set again after the others: the first place keeps the last value
          span.setAttribute('b', 'again');
          span.setAttribute('a', 'again');
          span.end();
          t.startSpan('t', { attributes }, ROOT_CONTEXT).end();
        }
      },
      { limits: { ...spanLimitsFrom({}), attributeCountLimit: 17 } },
    );
    expectSame(pairs);
    expect(pairs[0]!.ours).toContain('{"key":"b","value":{"stringValue":"again"}}');
    expect(pairs[0]!.ours).toContain('{"key":"n3","value":{"intValue":2147483647}}');
  });

  it('is the same bytes for KeyValues of 126 to 129 bytes, small and larger integers, booleans and cut strings, on spans, events and links', async () => {
    // a KeyValue is key length + value length + 6 bytes (a string); under 128 its lengths are one byte each
    const sets: Attributes[] = [];
    for (const k of [1, 60, 119, 120, 121, 122, 127, 128]) {
      const attributes: Attributes = {};
      for (const kv of [125, 126, 127, 128, 129]) {
        const v = kv - 6 - k;
        if (v >= 0) attributes[`${'k'.repeat(k - 1)}${String.fromCharCode(97 + (kv % 26))}`] = 'v'.repeat(v);
      }
      sets.push(attributes);
    }
    sets.push({ i0: 0, i1: 1, i127: 127, i128: 128, i16383: 16383, i16384: 16384, m1: -1, m0: -0, t: true, f: false, d: 0.5 });
    sets.push({ [`${'x'.repeat(118)}`]: 200, [`${'y'.repeat(119)}`]: 127, [`${'z'.repeat(120)}`]: true, w: 'w'.repeat(200) });
    sets.push({ a: 'é', b: 1 });
    const run = (limits: SpanLimits) =>
      bothWays(
        (tracer) => {
          const t = tracer('edges');
          for (const attributes of sets) {
            const span = t.startSpan('s', { attributes, links: [{ context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }, attributes }] }, ROOT_CONTEXT);
            span.addEvent('e', attributes);
            span.end();
          }
        },
        { limits, partSpans: 3 },
      );
    expectSame(await run(spanLimitsFrom({})));
    // strings cut to 100 characters: a long value's KeyValue under 128 bytes once cut
    expectSame(await run({ ...spanLimitsFrom({}), attributeValueLengthLimit: 100 }));
  });

  it('is the same bytes when the parts’ texts go from ASCII to not and back, longer and shorter', async () => {
    const names = ['a long ASCII name '.repeat(20), 'é', 'short', 'ÿ only Latin-1', 'a\u2028b', '中文', 'x', 'tail "quoted"', 'back to ASCII'];
    const pairs = await bothWays(
      (tracer) => {
        const t = tracer('parts');
        for (const name of names) t.startSpan(name, { attributes: { key: name } }, ROOT_CONTEXT).end();
      },
      { partSpans: 1 },
    );
    expectSame(pairs);
  });

  it('is the same bytes for random attributes (keys set twice, index-like keys, every value type)', async () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'http.method', '0', '1', '12', '007', ''), fc.string({ maxLength: 4 }));
    const scalar = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.integer(), fc.double(), fc.boolean());
    const value = fc.oneof(scalar, fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), fc.array(fc.double(), { maxLength: 3 }), fc.array(fc.boolean(), { maxLength: 2 }));
    const pairs = fc.array(fc.tuple(key, value), { maxLength: 24 });
    vi.spyOn(diag, 'warn').mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(pairs, pairs, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 8 }), async (initial, later, countLimit, lengthLimit) => {
        const limits = { ...spanLimitsFrom({}), attributeCountLimit: countLimit, attributeValueLengthLimit: lengthLimit === 8 ? Number.POSITIVE_INFINITY : lengthLimit };
        const got = await bothWays(
          (tracer) => {
            const span = tracer('fc').startSpan('random', { attributes: Object.fromEntries(initial) as Attributes }, ROOT_CONTEXT);
            for (const [k, v] of later) span.setAttribute(k, v);
            span.addEvent('e', Object.fromEntries(later) as Attributes);
            span.end();
          },
          { limits },
        );
        expectSame(got);
      }),
      { numRuns: 150 },
    );
  });

  it.each([
    ['parts of 7 spans', 7],
    ['parts of 600 spans (ids from several blocks a part)', 600],
  ])('writes every span’s own ids, its trace’s and its parent’s, from blocks of random bytes taken as ids run out (%s)', async (_, partSpans) => {
    // what each span's ids must read, from the span itself
    const want: string[] = [];
    const seen = (s: Span, parent?: Span) => want.push(`${s.spanContext().traceId} ${s.spanContext().spanId} ${parent?.spanContext().spanId ?? '-'}`);
    const pairs = await bothWays(
      (tracer) => {
        const t = tracer('ids');
        // alive while ~12,000 span ids (~23 blocks of 4 KB) are cut: by its end its block is no longer kept and its ids go as text
        const old = t.startSpan('long-lived', {}, ROOT_CONTEXT);
        const inOld = trace.setSpan(ROOT_CONTEXT, old);
        for (let i = 0; i < 3000; i++) {
          // a root (a trace id and a span id: 24 bytes, so ids end at every offset of a block) and children under it and under the long-lived one
          const root = t.startSpan('root', {}, ROOT_CONTEXT);
          const inRoot = trace.setSpan(ROOT_CONTEXT, root);
          const child = t.startSpan('child', {}, inRoot);
          const late = t.startSpan('under the long-lived', {}, inOld);
          child.end();
          seen(child, root);
          late.end();
          seen(late, old);
          root.end();
          seen(root);
          if (i === 5) {
            // ended while its block is kept: written by reference
            const remote = t.startSpan('under a remote parent', {}, remoteParent);
            remote.end();
            want.push(`0af7651916cd43dd8448eb211c80319c ${remote.spanContext().spanId} b7ad6b7169203331`);
          }
        }
        old.end();
        seen(old);
      },
      { partSpans, maxExportBatchSize: 4096 },
    );
    expectSame(pairs, 3);
    const got = pairs.flatMap((p) =>
      (JSON.parse(p.ours) as { resourceSpans: { scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string }[] }[] }[] }).resourceSpans[0]!.scopeSpans.flatMap((s) =>
        s.spans.map((x) => `${x.traceId} ${x.spanId} ${x.parentSpanId ?? '-'}`),
      ),
    );
    expect(got).toHaveLength(want.length);
    expect(got).toEqual(want);
    expect(new Set(got.map((x) => x.split(' ')[1])).size).toBe(want.length);
  });

  it('writes the resource once, its index-like key first as the SDK lists it', () => {
    expect(new TextDecoder().decode(resourceJson(resourceAttributes))).toBe(
      JSON.stringify({
        attributes: [
          ['7', 'an index-like key'],
          ['service.name', 'agentport'],
          ['service.version', '1.2.3'],
          ['service.instance.id', 'r1'],
        ].map(([key, v]) => ({ key, value: { stringValue: v } })),
        droppedAttributesCount: 0,
      }),
    );
  });
});
