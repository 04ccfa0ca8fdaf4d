#!/usr/bin/env node
// What blocks Agentport's main thread under the blocking echo (issue 26, the p99 tail):
// `npm run build`, then `node bench/stalls.js [options]`.
//
// Starts Agentport (durable SQLite, echo agent) with bench/lib/stall-preload.cjs, warms it up,
// records the measured seconds only, and prints: the generator's p50/p99 beside the server's own
// (request to response finish), the event loop delay, each timer/immediate callback longer than
// 2 ms grouped by its source, GC pauses by kind, and the loop blocks with the main thread's own CPU
// time during them (Linux schedstat: a block with little CPU was the OS running something else on
// a loaded machine, not work of ours). Read counts and CPU, not wall times, on a loaded machine.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAutocannon, runWrk, ensureWrk } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';
import { tailReport } from './lib/tail-report.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/stalls.js [--duration S] [--warmup S] [--connections N] [--tree DIR]
                           [--node-args "..."] [--agentport-args "..."] [--top N] [--json] [--trace] [--bare]
                           [--node-defaults] [--pin]
  --trace       also record where each request's time went (bench/lib/tail-trace.cjs; SQLite
                commit thread) and print the median requests' parts beside the tail's, and the
                requests > 3× the median put on their causes (GC pauses of either thread, usage
                writes, run-queue waits, a late batch before), also for those that waited for no core
  --trace-out F with --trace, also keep the raw per-request trace (JSON) in F
  --bare        then load bare node:http (bench/targets/bare-http.mjs) the same way and print its
                client p50/p99: the load generator's and the OS's own tail on this machine
  --tree DIR    a built Agentport tree to run (default this one), e.g. /work/base for a before/after
  --node-args   extra node options for the server, after those it ships with (the last of a
                flag wins), e.g. "--max-semi-space-size=32"
  --pin         the server's main thread alone on CPU 0; its other threads (the commit thread, V8's
                helpers) and wrk on the others (taskset): the server's own tail with the load
                generator's run-queue waits taken off the main thread (issue 26, tail36). A quiet
                machine's reading; other processes still run on every CPU
  --node-defaults  without the node options Agentport ships with (its bin/agentport.js shebang,
                --max-semi-space-size=64: ADR 0081), i.e. Node's defaults plus --node-args`;

const o = { duration: 8, warmup: 2, connections: 32, tree: ROOT, nodeArgs: '', agentportArgs: '', top: 12, json: false, trace: false, traceOut: '', bare: false, nodeDefaults: false, pin: false };
parseCommandLine(HELP, {
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--node-args': value((v) => (o.nodeArgs = v)),
  '--agentport-args': value((v) => (o.agentportArgs = v)),
  '--top': value((v) => (o.top = Number(v))),
  '--json': flag(() => (o.json = true)),
  '--trace': flag(() => (o.trace = true)),
  '--bare': flag(() => (o.bare = true)),
  '--node-defaults': flag(() => (o.nodeDefaults = true)),
  '--pin': flag(() => (o.pin = true)),
  '--trace-out': value((v) => (o.traceOut = path.resolve(v))),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-stalls-'));
const out = path.join(work, 'stalls.json');
const traceOut = path.join(work, 'trace.json');
const port = await freePort();
const nodeOptions = [...(o.nodeDefaults ? [] : shippedNodeOptions(path.join(o.tree, 'bin', 'agentport.js'))), ...o.nodeArgs.split(' ').filter(Boolean)];
const args = [
  ...nodeOptions,
  '--require',
  path.join(ROOT, 'bench', 'lib', 'stall-preload.cjs'),
  ...(o.trace ? ['--require', path.join(ROOT, 'bench', 'lib', 'tail-trace.cjs')] : []),
  ...serveArgs({ entry: path.join(o.tree, 'bin', 'agentport.js'), port, dataDir: work }),
  ...o.agentportArgs.split(' ').filter(Boolean),
];
const url = `http://127.0.0.1:${port}${w.path}`;
const { server, stop } = await startBenchServer({ args, cwd: o.tree, env: { AGENTPORT_STALLS_OUT: out, AGENTPORT_TRACE_OUT: traceOut, AGENTPORT_TRACE_TREE: o.tree }, url, headers: w.headers, workload: w });

const gen = ensureWrk() ? runWrk : runAutocannon;
const cpus = o.pin ? pin(server.pid) : undefined;
const load = (durationS, runId) => gen({ url, connections: o.connections, threads: 1, durationS, headers: w.headers, bodyPrefix: w.bodyPrefix, bodySuffix: w.bodySuffix, runId, cpus });

/** --pin: every thread of the server on CPUs 1…n−1, then its main thread (tid = pid) alone on CPU 0; the CPUs left for wrk. */
function pin(pid) {
  if (gen !== runWrk) throw new Error('--pin needs wrk');
  const n = os.availableParallelism();
  if (n < 2) throw new Error('--pin needs 2 CPUs');
  const rest = n === 2 ? '1' : `1-${n - 1}`;
  for (const args of [
    ['-a', '-p', '-c', rest, String(pid)],
    ['-p', '-c', '0', String(pid)],
  ]) {
    const r = spawnSync('taskset', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`taskset ${args.join(' ')}: ${r.stderr}`);
  }
  return rest;
}
const load0 = os.loadavg()[0];
if (o.warmup > 0) await load(o.warmup, 'warmup');
server.kill('SIGUSR2');
await sleep(100);
const measured = await load(o.duration, 'measured');
server.kill('SIGUSR2');
for (let i = 0; !existsSync(out); i++) {
  if (i > 100) throw new Error('the server wrote no stalls file');
  await sleep(100);
}
await sleep(200);
const r = JSON.parse(readFileSync(out, 'utf8'));
const trace = o.trace ? tailReport(await readTrace()) : undefined;
if (trace && o.traceOut) copyFileSync(traceOut, o.traceOut);
stop();
rmSync(work, { recursive: true, force: true });
const bare = o.bare ? await measureBare() : undefined;

/**
 * The trace, written by tail-trace.cjs at the same signal as the stalls file but after it: on a
 * loaded machine its JSON can take seconds to write, so wait until the whole file reads (tail39).
 */
async function readTrace() {
  for (let i = 0; ; i++) {
    try {
      return JSON.parse(readFileSync(traceOut, 'utf8'));
    } catch (err) {
      if (i > 300) throw new Error(`the server wrote no readable trace file: ${err.message}`);
      await sleep(100);
    }
  }
}

/** The same load against bare node:http: what the client's p99 ÷ p50 is with no server work at all. */
async function measureBare() {
  const barePort = await freePort();
  const bareUrl = `http://127.0.0.1:${barePort}${w.path}`;
  const started = await startBenchServer({ args: [path.join(ROOT, 'bench', 'targets', 'bare-http.mjs'), '--port', String(barePort)], cwd: ROOT, env: {}, url: bareUrl, headers: w.headers, workload: w });
  const bareLoad = (durationS, runId) => gen({ url: bareUrl, connections: o.connections, threads: 1, durationS, headers: w.headers, bodyPrefix: w.bodyPrefix, bodySuffix: w.bodySuffix, runId });
  if (o.warmup > 0) await bareLoad(o.warmup, 'bare-warmup');
  const result = await bareLoad(o.duration, 'bare-measured');
  started.stop();
  return { rps: result.rps, clientMs: { p50: result.latencyMs.p50, p99: result.latencyMs.p99, max: result.latencyMs.max } };
}

const n = measured.requests;
const per1k = (x) => ((1000 * x) / n).toFixed(2);
const f = (x, d = 2) => x.toFixed(d);
const sorted = [...r.requestMs].sort((a, b) => a - b);
const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const group = (items, key) => {
  const m = new Map();
  for (const it of items) {
    const g = m.get(key(it)) ?? { key: key(it), count: 0, wall: 0, cpu: 0, max: 0, maxCpu: 0, cpuOver2: 0 };
    g.count++;
    g.wall += it.wall ?? it.ms;
    g.cpu += it.cpu ?? 0;
    g.max = Math.max(g.max, it.wall ?? it.ms);
    g.maxCpu = Math.max(g.maxCpu, it.cpu ?? 0);
    if ((it.cpu ?? 0) >= 2) g.cpuOver2++;
    m.set(g.key, g);
  }
  return [...m.values()].sort((a, b) => b.cpu - a.cpu || b.wall - a.wall);
};
const summary = {
  load: { start: load0, end: os.loadavg()[0] },
  nodeOptions,
  generator: measured.generator,
  requests: n,
  rps: measured.rps,
  clientMs: { p50: measured.latencyMs.p50, p99: measured.latencyMs.p99, max: measured.latencyMs.max },
  ...(bare ? { bare } : {}),
  serverMs: { p50: q(50), p90: q(90), p99: q(99), max: sorted.at(-1) ?? 0, over10: r.slowRequests.length },
  loopDelayMs: r.loopDelayMs,
  callbacks: group(r.callbacks, (c) => c.what).slice(0, o.top),
  gc: group(r.gcs, (g) => g.kind).map((g) => ({ ...g, per1kRequests: Number(per1k(g.count)), over2ms: r.gcs.filter((x) => x.kind === g.key && x.ms >= 2).length })),
  blocks: {
    count: r.blocks.length,
    totalMs: r.blocks.reduce((s, b) => s + b.late, 0),
    // the main thread itself ran ≥ 2 ms without coming back to the loop: a stall on a quiet machine too
    worked: r.blocks.filter((b) => b.cpu >= 2).length,
    workedCpuMs: r.blocks.filter((b) => b.cpu >= 2).reduce((s, b) => s + b.cpu, 0),
    cpuHistogram: [2, 5, 10, 20, 50].map((lo, i, a) => ({ fromMs: lo, count: r.blocks.filter((b) => b.cpu >= lo && b.cpu < (a[i + 1] ?? Infinity)).length })),
    longest: [...r.blocks].sort((a, b) => b.cpu - a.cpu).slice(0, o.top),
  },
};
if (o.json) {
  console.log(JSON.stringify(summary, null, 2));
  process.exit(0);
}
console.log(`${n} requests in ${f(measured.durationS, 1)} s (${Math.round(measured.rps)} req/s, ${o.connections} connections, ${measured.generator}); load average ${f(load0, 1)} → ${f(os.loadavg()[0], 1)}`);
console.log(`server node options: ${nodeOptions.join(' ') || "(Node's defaults)"}${cpus ? `; pinned: main thread on CPU 0, its other threads and wrk on ${cpus}` : ''}`);
console.log(`client   p50 ${f(measured.latencyMs.p50)} ms  p99 ${f(measured.latencyMs.p99)} ms  max ${f(measured.latencyMs.max)} ms`);
if (bare)
  console.log(
    `bare     p50 ${f(bare.clientMs.p50)} ms  p99 ${f(bare.clientMs.p99)} ms  (${f(bare.clientMs.p99 / bare.clientMs.p50, 1)}×; node:http, ${Math.round(bare.rps)} req/s: the generator's and the OS's own tail)`,
  );
console.log(`server   p50 ${f(q(50))} ms  p90 ${f(q(90))} ms  p99 ${f(q(99))} ms  max ${f(summary.serverMs.max)} ms  (${r.slowRequests.length} requests ≥ 10 ms)`);
console.log(`loop delay  p50 ${f(r.loopDelayMs.p50)}  p99 ${f(r.loopDelayMs.p99)}  p99.9 ${f(r.loopDelayMs.p999)}  max ${f(r.loopDelayMs.max)} ms`);
console.log(`\nloop blocks ≥ 2 ms late: ${summary.blocks.count} (${f(summary.blocks.totalMs, 0)} ms); with ≥ 2 ms of main-thread CPU: ${summary.blocks.worked} (${f(summary.blocks.workedCpuMs, 0)} ms CPU)`);
console.log(`  by main-thread CPU: ${summary.blocks.cpuHistogram.map((h) => `≥${h.fromMs} ms: ${h.count}`).join(', ')}`);
for (const b of summary.blocks.longest) console.log(`  at ${f(b.at / 1000, 3)} s  ${f(b.late, 1)} ms late, main-thread CPU ${f(b.cpu, 1)} ms`);
console.log('\nGC by kind');
for (const g of summary.gc) console.log(`  ${g.key.padEnd(12)} ${String(g.count).padStart(6)}  (${g.per1kRequests}/1k req)  total ${f(g.wall, 1)} ms  max ${f(g.max)} ms  ≥ 2 ms: ${g.over2ms}`);
console.log('\ncallbacks ≥ 2 ms by source (wall / main-thread CPU)');
for (const c of summary.callbacks) console.log(`  ${String(c.count).padStart(5)}×  wall ${f(c.wall, 1)} ms (max ${f(c.max, 1)})  cpu ${f(c.cpu, 1)} ms (max ${f(c.maxCpu, 1)}, ${c.cpuOver2}× ≥ 2 ms)  ${c.key}`);
if (trace) console.log(`\nwhere the server's time went (ms, means; --trace)\n${trace}`);
