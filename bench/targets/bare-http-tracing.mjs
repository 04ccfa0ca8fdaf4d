// The floor of tracing with the OpenTelemetry JS SDK, whatever Agentport does: a bare node:http
// server (bare-http.mjs's fixed answer) that records, per request, the 5 spans a blocking echo
// records in Agentport (request, authenticate, core SendMessage, invoke_agent, store.commit), with
// the same attributes, the same SDK set-up as src/observability/tracing/start-tracing.ts (no
// context manager, parent-based ratio sampler, BatchSpanProcessor 8192/1024, OTLP/HTTP JSON) and
// parents passed explicitly, as Agentport passes them.
//
// Usage: node bench/targets/bare-http-tracing.mjs --mode off|record|sdk|thread [--sink URL] [--ratio R] [--spans N]
//   off     no SDK (the bare server)
//   record  the SDK recording spans into its batch processor, whose exporter drops them: the floor
//           of recording alone, with no export at all
//   sdk     the SDK with its OTLP exporter on the event loop
//   thread  Agentport's recorder (the SDK's sampler, flat records) and export thread, as
//           start-tracing.ts installs them (dist/observability/tracing/; build first)
// Prints one line "LISTENING <port>" on stdout once ready.
import http from 'node:http';
import { ROOT_CONTEXT, SpanKind, propagation, trace, diag } from '@opentelemetry/api';

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}
const mode = arg('--mode', 'sdk');
const sink = arg('--sink', 'http://127.0.0.1:4318/v1/traces');
const ratio = Number(arg('--ratio', '1'));
const spansPerRequest = Number(arg('--spans', '5'));

const BODY = Buffer.from(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: {
      task: {
        id: '5f0c6a52-2d8e-4c1b-9a57-1b7f0e2d9c11',
        contextId: '0b6f8e3a-7c44-4f0e-8d21-6a9f3c5e7b42',
        status: { state: 'TASK_STATE_COMPLETED' },
        artifacts: [{ artifactId: 'a', name: 'echo', parts: [{ text: 'hello' }] }],
      },
    },
  }),
);
const HEADERS = { 'content-type': 'application/json', 'content-length': BODY.length };

let tracer;
if (mode !== 'off') {
  const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const resourceAttributes = { 'service.name': 'floor', 'service.version': '0', 'service.instance.id': 'floor-1' };
  let exporter;
  let provider;
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  if (mode === 'thread') {
    const { WorkerSpanExporter } = await import('../../dist/observability/tracing/worker-span-exporter.js');
    const { spanLimitsFrom } = await import('../../dist/observability/tracing/packed-spans.js');
    const { SpanBatches } = await import('../../dist/observability/tracing/span-batches.js');
    const { SpanRecorder } = await import('../../dist/observability/tracing/span-recorder.js');
    const scopes = [];
    const thread = WorkerSpanExporter.start({ url: sink, headers: {}, resourceAttributes, limits: spanLimitsFrom(process.env) }, diag);
    const batches = new SpanBatches(thread, scopes, { scheduledDelayMillis: 1000, maxQueueSize: 8192, maxExportBatchSize: 1024, exportTimeoutMillis: 30_000, onError: (e) => diag.error(String(e)) });
    provider = new SpanRecorder(sampler, batches, scopes);
  } else if (mode === 'record') exporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  else exporter = new OTLPTraceExporter({ url: sink });
  provider ??= new BasicTracerProvider({
    resource: resourceFromAttributes(resourceAttributes),
    sampler,
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 8192, maxExportBatchSize: 1024 })],
  });
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = trace.getTracer('agentport');
}

let n = 0;
/** The echo's spans: the request's server span and its children, each ended before the answer. */
function recordSpans(req) {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const request = tracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, parent);
  const inRequest = trace.setSpan(parent, request);
  const taskId = `task-${++n}`;
  const children = [
    ['authenticate', {}],
    ['core SendMessage', { 'agentport.agent': 'echo' }],
    ['invoke_agent echo', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'echo', 'agentport.task.id': taskId }],
    ['store.commit', { 'agentport.task.id': taskId, 'agentport.commit.events': 2 }],
  ];
  for (let i = 0; i < spansPerRequest - 1; i++) {
    const [name, attributes] = children[i % children.length];
    tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, inRequest).end();
  }
  return { request, taskId };
}

function endRequest(request, taskId, res) {
  request.updateName('SendMessage');
  request.setAttributes({
    'url.path': '/a2a/echo',
    'http.response.status_code': res.statusCode,
    'agentport.request_id': taskId,
    'agentport.binding': 'jsonrpc',
    'rpc.method': 'SendMessage',
    'agentport.agent': 'echo',
    'agentport.task.id': taskId,
    'agentport.context.id': taskId,
  });
  request.end();
}

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const t = tracer ? recordSpans(req) : undefined;
    res.writeHead(200, HEADERS);
    res.end(BODY);
    if (t) endRequest(t.request, t.taskId, res);
  });
});
server.listen(Number(arg('--port', '0')), '127.0.0.1', () => process.stdout.write(`LISTENING ${server.address().port}\n`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
