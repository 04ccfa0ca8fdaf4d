#!/usr/bin/env node
// The export thread's work a span, without the thread, the HTTP or the event loop: the blocking
// echo's five spans a request recorded by a built tree's recorder into packed batches (512 spans,
// as the batcher cuts them), then each batch turned into its OTLP/HTTP JSON request body, N times
// over, the way `--mode` says:
//   sdk     what the export thread did before ADR 0082: `unpackSpans` to ReadableSpans, then the
//           SDK's `JsonTraceSerializer` (its OTLP transform, `JSON.stringify`, UTF-8 encoding)
//   direct  otlp-json.ts's request written from the packed spans, then its UTF-8 bytes
//   proto   otlp-proto.ts's binary protobuf request written from the packed spans (the default export)
// `node bench/otlp-encode.js [--tree DIR] [--mode sdk|direct|proto] [--requests N] [--rounds R]` prints
// CPU µs a request and a span. For instructions, run it under `valgrind --tool=callgrind` at two
// --rounds and divide the difference by the difference of spans encoded (docs/benchmarks.md, otlp33).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine, value } from './lib/options.mjs';

const HELP = 'Usage: node bench/otlp-encode.js [--tree DIR] [--mode sdk|direct|proto] [--requests N] [--rounds R]';
const o = { tree: path.resolve(import.meta.dirname, '..'), mode: 'direct', requests: 2048, rounds: 20 };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--mode': value((v) => (o.mode = v)),
  '--requests': value((v) => (o.requests = Number(v))),
  '--rounds': value((v) => (o.rounds = Number(v))),
});
const from = (p) => import(pathToFileURL(path.join(o.tree, 'dist/observability/tracing', p)).href);
const { SpanBatches } = await from('span-batches.js');
const { SpanRecorder } = await from('span-recorder.js');
const { unpackSpans, spanLimitsFrom } = await from('packed-spans.js');
const { otlpJsonRequest, resourceJson } = await from('otlp-json.js');
const { otlpProtoRequest, resourceProto } = await from('otlp-proto.js');
const { ROOT_CONTEXT, SpanKind, trace } = await import('@opentelemetry/api');
const { TraceState } = await import('@opentelemetry/core');
const { JsonTraceSerializer } = await import('@opentelemetry/otlp-transformer');
const { resourceFromAttributes } = await import('@opentelemetry/resources');
const { AlwaysOnSampler } = await import('@opentelemetry/sdk-trace-base');

const resourceAttributes = { 'service.name': 'agentport', 'service.version': '0.1.0', 'service.instance.id': 'r1' };
const limits = spanLimitsFrom({});
const parse = (s) => new TraceState(s);

// the batches, as the thread receives them (whole: the parts only split the same spans)
const batches = [];
// structured clones, as postMessage hands them over: the text flat, not the rope the writer built
const capture = { part: () => {}, export: (_, b, done) => (batches.push(structuredClone(b)), done({ code: 0 })), forceFlush: async () => {}, shutdown: async () => {} };
const scopes = [];
const sink = new SpanBatches(capture, scopes, { maxQueueSize: 1 << 20, maxExportBatchSize: 512, scheduledDelayMillis: 60_000, exportTimeoutMillis: 30_000, partSpans: 1 << 20, onError: () => {} });
const tracer = new SpanRecorder(new AlwaysOnSampler(), sink, scopes).getTracer('agentport', '0.1.0');
for (let i = 0; i < o.requests; i++) {
  const request = tracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, ROOT_CONTEXT);
  const ctx = trace.setSpan(ROOT_CONTEXT, request);
  tracer.startSpan('authenticate', {}, ctx).end();
  const core = tracer.startSpan('core SendMessage', { attributes: { 'agentport.agent': 'echo', 'agentport.surface': 'a2a' } }, ctx);
  const inCore = trace.setSpan(ctx, core);
  const task = `task-${i}`;
  const run = tracer.startSpan('invoke_agent echo', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'echo', 'agentport.task.id': task } }, inCore);
  tracer.startSpan('store.commit', { attributes: { 'agentport.task.id': task, 'agentport.commit.events': 3 } }, trace.setSpan(inCore, run)).end();
  run.end();
  core.end();
  request.updateName('SendMessage');
  request.setAttributes({
    'url.path': '/a2a/echo',
    'http.response.status_code': 200,
    'agentport.request_id': `req-${i}`,
    'agentport.binding': 'a2a-jsonrpc',
    'rpc.method': 'SendMessage',
    'agentport.agent': 'echo',
    'agentport.task.id': task,
    'agentport.context.id': `ctx-${i}`,
  });
  request.end();
}
await sink.forceFlush();
const spans = batches.reduce((n, b) => n + b.numbers.length, 0) && o.requests * 5;

const resource = resourceFromAttributes(resourceAttributes);
const resourceText = resourceJson(resourceAttributes);
const resourceBytes = resourceProto(resourceAttributes);
const encode =
  o.mode === 'sdk'
    ? (b) => JsonTraceSerializer.serializeRequest(unpackSpans(b, resource, parse, limits)).length
    : o.mode === 'proto'
      ? (b) => otlpProtoRequest(b, [], resourceBytes, parse, limits).body.length
      : (b) => otlpJsonRequest(b, [], resourceText, parse, limits).body.length;

let bytes = 0;
const started = process.cpuUsage();
for (let r = 0; r < o.rounds; r++) for (const b of batches) bytes += encode(b);
const used = process.cpuUsage(started);
const us = used.user + used.system;
console.log(
  `${o.mode}: ${(us / (o.rounds * o.requests)).toFixed(2)} µs a request, ${((us * 1000) / (o.rounds * spans)).toFixed(0)} ns a span, ${(bytes / (o.rounds * spans)).toFixed(0)} bytes a span (${batches.length} batches × ${o.rounds} rounds)`,
);
