#!/usr/bin/env node
// What one span costs the event loop with the OpenTelemetry JS SDK, in one process, no HTTP:
// `npm run build && node bench/tracing-span-cost.js`. Records the 5 spans of a blocking echo
// (request, authenticate, core SendMessage, invoke_agent, store.commit, with Agentport's
// attributes) 40,000 times per pass through a BatchSpanProcessor (8192/1024) whose exporter does
// one of:
//   record  nothing (the SDK's own cost: ids, sampler, span object, attributes, end, queue)
//   json    the OTLP JSON encoding on the event loop (what the OTLP/HTTP exporter does there)
//   proto   the OTLP protobuf encoding instead
//   recorder  Agentport's recorder instead of the SDK's tracer (the SDK's sampler; each span
//           appended flat to the batch, the batch posted to a worker as the export thread gets it;
//           dist/observability/tracing/span-recorder.js, span-batches.js)
// and prints the event loop's CPU per span (/proc/thread-self/stat, so the worker's share is not
// counted), garbage collection included: best and median of 5 passes. A single busy core, no
// sockets: steadier than a server under load on a shared machine, and the same SDK code.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { SpanBatches } from '../dist/observability/tracing/span-batches.js';
import { SpanRecorder } from '../dist/observability/tracing/span-recorder.js';

const SPANS = 5;
const N = 40_000;
const modes = process.argv[2] ? process.argv[2].split(',') : ['record', 'json', 'proto', 'recorder'];

const mainThreadUs = () => {
  const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
};

async function measure(mode) {
  const worker = new Worker('require("node:worker_threads").parentPort.on("message", () => {})', { eval: true });
  worker.unref();
  const exporter = {
    export(spans, done) {
      if (mode === 'json') JsonTraceSerializer.serializeRequest(spans);
      else if (mode === 'proto') ProtobufTraceSerializer.serializeRequest(spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(1) });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agentport', 'service.version': '0', 'service.instance.id': 'r1' }),
    sampler,
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 8192, maxExportBatchSize: 1024 })],
  });
  const scopes = [];
  const posted = { export: (batch, done) => (worker.postMessage(batch), done({ code: 0 })), forceFlush: async () => {}, shutdown: async () => {} };
  const batches = new SpanBatches(posted, scopes, { scheduledDelayMillis: 1000, maxQueueSize: 8192, maxExportBatchSize: 1024, exportTimeoutMillis: 30_000, onError: () => {} });
  const tracer = mode === 'recorder' ? new SpanRecorder(sampler, batches, scopes).getTracer('agentport') : provider.getTracer('agentport');
  const request = (i) => {
    const r = tracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, ROOT_CONTEXT);
    const c = trace.setSpan(ROOT_CONTEXT, r);
    const task = `task-${i}`;
    tracer.startSpan('authenticate', { kind: SpanKind.INTERNAL }, c).end();
    tracer.startSpan('core SendMessage', { kind: SpanKind.INTERNAL, attributes: { 'agentport.agent': 'echo' } }, c).end();
    tracer.startSpan('invoke_agent echo', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'echo', 'agentport.task.id': task } }, c).end();
    tracer.startSpan('store.commit', { kind: SpanKind.INTERNAL, attributes: { 'agentport.task.id': task, 'agentport.commit.events': 2 } }, c).end();
    r.updateName('SendMessage');
    r.setAttributes({
      'url.path': '/a2a/echo',
      'http.response.status_code': 200,
      'agentport.request_id': `r-${i}`,
      'agentport.binding': 'jsonrpc',
      'rpc.method': 'SendMessage',
      'agentport.agent': 'echo',
      'agentport.task.id': task,
      'agentport.context.id': `c-${i}`,
    });
    r.end();
  };
  const pass = async () => {
    const t0 = mainThreadUs();
    for (let i = 0; i < N; i++) {
      request(i);
      // let timers and the worker's messages run, as between requests
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    return (mainThreadUs() - t0) / N / SPANS;
  };
  await pass();
  const passes = [];
  for (let k = 0; k < 5; k++) passes.push(await pass());
  await provider.shutdown();
  await batches.shutdown();
  await worker.terminate();
  passes.sort((a, b) => a - b);
  return { best: passes[0], median: passes[2] };
}

console.log(`${SPANS} spans per request × ${N} requests per pass; event-loop CPU µs per span (best / median of 5 passes)`);
for (const m of modes) {
  const r = await measure(m);
  console.log(`${m.padEnd(8)} ${r.best.toFixed(2).padStart(6)} / ${r.median.toFixed(2)}`);
}
