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
// `--threads` prints each thread's CPU a request (Linux /proc, 10 ms ticks) from request `--warm`
// (default 2,000: the export thread started and its encoder compiled) to the end, each export
// waited for at both ends: the main thread, the export thread (the thread tracing started) and
// the helpers (V8's garbage collection and compiler threads, shared by both).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { flag, parseCommandLine, value } from './lib/options.mjs';

const HELP = 'Usage: node bench/tracing-echo-spans.js [--tree DIR] [--requests N] [--endpoint URL] [--flush-every N] [--threads [--warm N]]';
const o = { tree: path.resolve(import.meta.dirname, '..'), requests: 10_000, endpoint: 'http://127.0.0.1:4319/v1/traces', flushEvery: 0, threads: false, warm: 2000 };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--requests': value((v) => (o.requests = Number(v))),
  '--endpoint': value((v) => (o.endpoint = v)),
  // every N requests, wait until their spans are exported: none is dropped however slow the thread
  '--flush-every': value((v) => (o.flushEvery = Number(v))),
  '--threads': flag(() => (o.threads = true)),
  '--warm': value((v) => (o.warm = Number(v))),
});
const from = (p) => import(pathToFileURL(path.join(o.tree, 'dist/observability/tracing', p)).href);
const { startTracing } = await from('start-tracing.js');
const { tracingSettings } = await from('tracing-settings.js');
const s = await from('spans.js');
const SERVER = 1; // SpanKind.SERVER
// the settings as a server resolves them (the batch bounds and span limits included), no OTEL_* variables read
const settings = tracingSettings({ enabled: true, endpoint: o.endpoint, samplingRatio: 1, exportDelay: 5000 }, {});
const before = threads();
const tracing = await startTracing(settings, { serviceVersion: '0', instanceId: 'r1' });
const headers = { host: '127.0.0.1', 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': '180' };

/** Each thread's CPU (ms, user and system) and minor page faults so far, from Linux's /proc. */
function threads() {
  const tick = 10; // ms a clock tick (USER_HZ 100)
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, { name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), cpuMs: (Number(f[11]) + Number(f[12])) * tick, systemMs: Number(f[12]) * tick, faults: Number(f[7]) });
  }
  return out;
}

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

let warm;
for (let i = 0; i < o.requests; i++) {
  if (o.threads && i === o.warm) {
    await tracing.flush();
    warm = threads();
  }
  await request(i);
  await new Promise((resolve) => setImmediate(resolve));
  if (o.flushEvery > 0 && (i + 1) % o.flushEvery === 0) await tracing.flush();
}
if (warm) {
  await tracing.flush();
  const end = threads();
  const n = o.requests - o.warm;
  for (const [tid, t] of end) {
    const w = warm.get(tid) ?? { cpuMs: 0, faults: 0 };
    const who = tid === String(process.pid) ? 'main' : before.has(tid) ? 'helper' : 'export thread';
    if (t.cpuMs > w.cpuMs)
      process.stdout.write(
        `${who} ${tid} (${t.name}): ${(((t.cpuMs - w.cpuMs) * 1000) / n).toFixed(2)} µs a request (${t.cpuMs - w.cpuMs} ms, of it ${t.systemMs - w.systemMs} ms system), ${((t.faults - w.faults) / n).toFixed(3)} minor page faults a request\n`,
      );
  }
}
await tracing.close();
