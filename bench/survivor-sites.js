#!/usr/bin/env node
// What a scavenge copies, by the function that allocated it (issue 26, the scavenge's pause):
// `npm run build`, then `node bench/survivor-sites.js [options]`.
//
// Starts a built tree's `agentport serve` (durable SQLite, blocking echo) as it ships (its shebang's
// node options) with bench/lib/survivor-preload.cjs, loads it, and during the measured seconds probes
// every ~300 ms: the sampling heap profiler for 100 ms, then a forced young-generation collection,
// then the samples still alive. Prints the mean bytes alive a probe by allocating function and by
// file: the bytes the requests in flight (and anything kept longer) make a scavenge copy.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs } from './lib/bench-server.mjs';
import { callFrameNames, runProbed } from './lib/probed-server.mjs';
import { freePort } from './lib/net.mjs';
import { parseCommandLine, value } from './lib/options.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/survivor-sites.js [--tree DIR] [--config FILE] [--duration S] [--warmup S] [--connections N] [--top N] [--interval BYTES]
  --tree DIR      built tree to run (default: this one)
  --config FILE   agentport.yaml for the server (default: none, the durable SQLite store)
  --connections N generator connections (default 32)
  --interval B    mean bytes between samples (default 64)`;
const o = { tree: ROOT, duration: 8, warmup: 3, connections: 32, top: 40, interval: 64, config: undefined };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--config': value((v) => (o.config = path.resolve(v))),
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--top': value((v) => (o.top = Number(v))),
  '--interval': value((v) => (o.interval = Number(v))),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-survivors-'));
const out = path.join(work, 'probes.json');
const port = await freePort();
const entry = path.join(o.tree, 'bin', 'agentport.js');
const args = [...shippedNodeOptions(entry), '--expose-gc', '--require', path.join(ROOT, 'bench', 'lib', 'survivor-preload.cjs'), ...serveArgs({ entry, port, dataDir: work, config: o.config })];
const url = `http://127.0.0.1:${port}${w.path}`;
const env = { AGENTPORT_SURVIVOR_OUT: out, AGENTPORT_SURVIVOR_INTERVAL: String(o.interval) };
const { measured, probe: probes } = await runProbed({ tree: o.tree, args, env, url, headers: w.headers, workload: w, connections: o.connections, warmup: o.warmup, duration: o.duration, outFile: out, what: 'probes' });
rmSync(work, { recursive: true, force: true });

const { shortUrl, site } = callFrameNames(o.tree);
const self = new Map();
const byFile = new Map();
let total = 0;
/** A builtin (`set`, `push`, `then`) is named with its caller: which Map or array it grew. */
function walk(node, parent = '') {
  const key = node.callFrame.url ? site(node.callFrame) : `${site(node.callFrame)} ← ${parent}`;
  const file = node.callFrame.url ? shortUrl(node.callFrame.url) : `(${node.callFrame.functionName || 'vm'})`;
  // The probe's own objects (the profiler's answer) are the inspector's: left out.
  if (file.includes('survivor-preload')) return;
  self.set(key, (self.get(key) ?? 0) + node.selfSize);
  byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const c of node.children) walk(c, node.callFrame.url ? site(node.callFrame) : parent);
}
for (const p of probes) walk(p.head);
const n = probes.length;
const kb = (b) => `${(b / n / 1024).toFixed(2).padStart(7)} KB`;
const top = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, o.top);
console.log(`${n} probes, ${measured.requests} requests, ${Math.round(measured.rps)} req/s under the probes (${o.connections} connections, load ${os.loadavg()[0].toFixed(2)})`);
console.log(`alive after a forced scavenge, of the last 100 ms's allocation: ${kb(total)} a probe\n\nby allocating function (self)`);
for (const [k, b] of top(self)) console.log(`  ${kb(b)}  ${k}`);
console.log('\nby file (self)');
for (const [k, b] of top(byFile)) console.log(`  ${kb(b)}  ${k}`);
