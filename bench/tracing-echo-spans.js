#!/usr/bin/env node
// The blocking echo's five spans through a built tree's own tracing API, with nothing else: no
// HTTP, no store, no timers. `node bench/tracing-echo-spans.js [--tree DIR] [--requests N]
// [--endpoint URL]` installs tracing as a server does (`startTracing`, sampling ratio 1,
// parent-based, the export thread posting OTLP/HTTP to `--endpoint`, default
// http://127.0.0.1:4319/v1/traces: run a sink that answers 200 there) and makes N requests' spans
// (request, authenticate, core SendMessage, invoke_agent, store.commit, with Agentport's
// attributes and the task's traceparent), one request an event-loop turn, so the export thread's
// answers are read and nothing is dropped.
//
// Meant to be counted: under `valgrind --tool=callgrind --separate-threads=yes`, run it twice
// (e.g. 3,000 and 13,000 requests) and divide the difference of each thread's instructions by the
// difference of requests: the recording's cost a request on the event loop (garbage collection
// included) and the export thread's, without the per-second timers that make a server's count
// under callgrind move by several percent on a loaded machine (docs/benchmarks.md, trace16).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine, value } from './lib/options.mjs';

const HELP = 'Usage: node bench/tracing-echo-spans.js [--tree DIR] [--requests N] [--endpoint URL] [--flush-every N]';
const o = { tree: path.resolve(import.meta.dirname, '..'), requests: 10_000, endpoint: 'http://127.0.0.1:4319/v1/traces', flushEvery: 0 };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--requests': value((v) => (o.requests = Number(v))),
  '--endpoint': value((v) => (o.endpoint = v)),
  // every N requests, wait until their spans are exported: none is dropped however slow the thread
  '--flush-every': value((v) => (o.flushEvery = Number(v))),
});
const from = (p) => import(pathToFileURL(path.join(o.tree, 'dist/observability/tracing', p)).href);
const { startTracing } = await from('start-tracing.js');
const { tracingSettings } = await from('tracing-settings.js');
const s = await from('spans.js');
const SERVER = 1; // SpanKind.SERVER
// the settings as a server resolves them (the batch bounds and span limits included), no OTEL_* variables read
const settings = tracingSettings({ enabled: true, endpoint: o.endpoint, samplingRatio: 1, exportDelay: 5000 }, {});
const tracing = await startTracing(settings, { serviceVersion: '0', instanceId: 'r1' });
const headers = { host: '127.0.0.1', 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': '180' };

async function request(i) {
  const parent = s.extractContext(headers);
  const span = s.startSpan('POST', { kind: SERVER, parent, attributes: { 'http.request.method': 'POST' } });
  const ctx = s.contextWith(span, parent);
  const traceId = s.traceIdOf(ctx);
  await s.inSpan('authenticate', { parent: ctx }, async () => 1);
  const task = `task-${i}`;
  await s.inSpan('core SendMessage', { parent: ctx, attributes: { 'agentport.agent': 'echo', 'agentport.surface': 'a2a' } }, async (core) => {
    const traceparent = s.traceparentOf(core);
    await s.inSpan('invoke_agent echo', { parent: core, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'echo', 'agentport.task.id': task } }, (run) =>
      s.inSpan('store.commit', { parent: run, attributes: { 'agentport.task.id': task, 'agentport.commit.events': 3 } }, async () => traceparent.length + traceId.length),
    );
  });
  span.updateName('SendMessage');
  span.setAttributes({
    'url.path': '/a2a/echo',
    'http.response.status_code': 200,
    'agentport.request_id': `req-${i}`,
    'agentport.binding': 'a2a-jsonrpc',
    'rpc.method': 'SendMessage',
    'agentport.agent': 'echo',
    'agentport.task.id': task,
    'agentport.context.id': `ctx-${i}`,
  });
  span.end();
}

for (let i = 0; i < o.requests; i++) {
  await request(i);
  await new Promise((resolve) => setImmediate(resolve));
  if (o.flushEvery > 0 && (i + 1) % o.flushEvery === 0) await tracing.flush();
}
await tracing.close();
