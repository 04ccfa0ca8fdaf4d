#!/usr/bin/env node
// What survives each young-generation collection (issue 26, the p99 at 8 connections):
// `npm run build`, then `node bench/gc-survivors.js [options]`.
//
// Starts a built tree's `agentport serve` (durable SQLite, echo agent) under `--trace-gc-nvp`, warms
// it up, loads it for the measured seconds and prints, for the scavenges of those seconds only, the
// bytes that survived (`new_space_survived`: copied or promoted) and were promoted, per scavenge and
// per request, and the bytes allocated on the V8 heap per request (`allocated`: each scavenge's
// bytes allocated since the collection before it, so the sum over the measured scavenges is the
// window's allocation within one scavenge's worth). These counts depend on what the server keeps alive, not on how busy the machine is,
// so they compare trees, settings and workloads on a loaded machine where wall times do not.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAutocannon } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';

const HELP = `node bench/gc-survivors.js [options]
  --tree DIR          built tree to run (default: this one)
  --config FILE       agentport.yaml for the server (default: none)
  --connections N     generator connections (default 8)
  --duration S        measured seconds (default 8)
  --warmup S          seconds of load before measuring (default 3)
  --method NAME       A2A JSON-RPC method: SendMessage (blocking echo, default) or GetTask (unknown id)
  --node-args "..."   V8/Node flags for the server (e.g. "--max-semi-space-size=4")
  --bare BYTES        run bench/targets/bare-http.mjs --alloc BYTES instead (bare node:http allocating
                      about BYTES a request): the same scavenge figures with almost no old generation
  --log FILE          also keep the measured scavenges' --trace-gc-nvp lines in FILE
  --phases            also print each scavenge phase's mean ms (every scavenge.* / background.* field
                      of --trace-gc-nvp), largest first: what a scavenge's pause is spent on`;

const o = { tree: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), connections: 8, duration: 8, warmup: 3, method: 'SendMessage', nodeArgs: '', phases: false, log: '', bare: 0 };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--config': value((v) => (o.config = path.resolve(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
  '--method': value((v) => (o.method = v)),
  '--node-args': value((v) => (o.nodeArgs = v)),
  '--phases': flag(() => (o.phases = true)),
  '--log': value((v) => (o.log = path.resolve(v))),
  '--bare': value((v) => (o.bare = Number(v))),
});

// GetTask of an id no task has: the same listener, edge, JSON-RPC binding and store read, no task.
const workload = o.method === 'GetTask' ? { ...WORKLOADS.a2a, bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"', bodySuffix: '"}}' } : WORKLOADS.a2a;
const dir = mkdtempSync(path.join(os.tmpdir(), 'gc-survivors-'));
const log = path.join(dir, 'gc.log');
const fd = openSync(log, 'w');
const port = await freePort();
const target =
  o.bare > 0
    ? [path.join(path.dirname(fileURLToPath(import.meta.url)), 'targets', 'bare-http.mjs'), '--port', String(port), '--alloc', String(o.bare)]
    : serveArgs({ entry: path.join(o.tree, 'bin/agentport.js'), port, dataDir: dir, config: o.config });
const args = [...o.nodeArgs.split(' ').filter(Boolean), '--trace-gc-nvp', ...target];
const url = `http://127.0.0.1:${port}${workload.path}`;
const { stop } = await startBenchServer({ args, cwd: o.tree, url, headers: workload.headers, workload, stdout: fd });

try {
  const load = (durationS, runId) => runAutocannon({ url, connections: o.connections, threads: 1, durationS, headers: workload.headers, bodyPrefix: workload.bodyPrefix, bodySuffix: workload.bodySuffix, runId });
  await load(o.warmup, 'warmup');
  const linesBefore = readFileSync(log, 'utf8').split('\n').length;
  const m = await load(o.duration, 'measured');
  const scavenges = readFileSync(log, 'utf8')
    .split('\n')
    .slice(linesBefore)
    .filter((l) => l.includes('gc=s '));
  if (o.log) writeFileSync(o.log, `${scavenges.join('\n')}\n`);
  const sum = (key) => scavenges.reduce((s, l) => s + Number(new RegExp(`\\b${key}=([0-9.]+)`).exec(l)?.[1] ?? 0), 0);
  const n = scavenges.length;
  console.log(
    JSON.stringify({
      method: o.method,
      connections: o.connections,
      requests: m.requests,
      rps: Math.round(m.rps),
      scavenges: n,
      survivedKBPerScavenge: Math.round(sum('new_space_survived') / n / 1024),
      promotedKBPerScavenge: Math.round(sum('promoted') / n / 1024),
      scavengesPer1kRequests: Number(((n / m.requests) * 1000).toFixed(2)),
      allocatedBytesPerRequest: Math.round(sum('allocated') / m.requests),
      survivedBytesPerRequest: Math.round(sum('new_space_survived') / m.requests),
      promotedBytesPerRequest: Math.round(sum('promoted') / m.requests),
      meanScavengeMs: Number((sum('pause') / n).toFixed(2)),
      // array-buffer sweeping inside the pause (it grows with the ArrayBuffers allocated since the last one)
      meanArrayBufferSweepMs: Number(((sum('scavenge.sweep_array_buffers') + sum('complete.sweep_array_buffers')) / n).toFixed(3)),
      maxScavengeMs: Math.max(...scavenges.map((l) => Number(/\bpause=([0-9.]+)/.exec(l)?.[1] ?? 0))),
    }),
  );
  if (o.phases) {
    // every timed field of a scavenge line, mean over the measured scavenges (ms); the counts
    // (bytes, rates) are the other fields and are left out
    const keys = new Set(scavenges.flatMap((l) => [...l.matchAll(/\b((?:scavenge|background|incremental|complete|heap|evacuate)[a-z_.]*)=([0-9.]+)/g)].map((m) => m[1])));
    const phases = [...keys].map((k) => [k, Number((sum(k.replace(/\./g, '\\.')) / n).toFixed(3))]).sort((a, b) => b[1] - a[1]);
    console.log(JSON.stringify(Object.fromEntries(phases), null, 1));
  }
} finally {
  stop();
  await sleep(500);
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
