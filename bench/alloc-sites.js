#!/usr/bin/env node
// Where a request's young-generation allocation comes from (issue 26, the p99 at 8 connections:
// each scavenge lands in some requests, and scavenges follow bytes allocated a request):
// `npm run build`, then `node bench/alloc-sites.js [options]`.
//
// Starts a built tree's `agentport serve` (durable SQLite, blocking echo) with V8's sampling heap
// profiler (bench/lib/alloc-preload.cjs: freed objects kept in the samples), warms it up, records
// the measured seconds only and prints the estimated bytes a request allocated on the V8 heap by
// allocating function (self), by file, and by function with its callees (inclusive). Buffers'
// backing stores (outside the V8 heap) are not in it; bench/gc-survivors.js counts the heap's whole.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs } from './lib/bench-server.mjs';
import { callFrameNames, runProbed } from './lib/probed-server.mjs';
import { freePort } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { createBenchKey } from './lib/api-key.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/alloc-sites.js [--tree DIR] [--duration S] [--warmup S] [--connections N] [--top N]
                              [--interval BYTES] [--out FILE] [--api-key]
  --tree DIR      built tree to run (default: this one)
  --api-key       authentication required, every request with an API key made by the tree's own
                  "agentport keys create" (bench/lib/api-key.mjs, as bench/run.js --api-key)
  --interval B    mean bytes between samples (default 256: finer than V8's 512 KiB, slower)
  --out FILE      also keep the .heapprofile (open it in Chrome DevTools' Memory tab)`;
const o = { tree: ROOT, duration: 6, warmup: 3, connections: 8, top: 30, interval: 256, out: '', apiKey: false };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--top': value((v) => (o.top = Number(v))),
  '--interval': value((v) => (o.interval = Number(v))),
  '--out': value((v) => (o.out = path.resolve(v))),
  '--api-key': flag(() => (o.apiKey = true)),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-alloc-'));
const profileFile = path.join(work, 'server.heapprofile');
const port = await freePort();
const entry = path.join(o.tree, 'bin', 'agentport.js');
const headers = o.apiKey ? { ...w.headers, 'x-api-key': createBenchKey(entry, work) } : w.headers;
const args = ['--require', path.join(ROOT, 'bench', 'lib', 'alloc-preload.cjs'), ...serveArgs({ entry, port, dataDir: work, auth: o.apiKey ? 'required' : 'none' })];
const url = `http://127.0.0.1:${port}${w.path}`;
const env = { AGENTPORT_ALLOC_OUT: profileFile, AGENTPORT_ALLOC_INTERVAL: String(o.interval) };
const { measured, probe: profile } = await runProbed({
  tree: o.tree,
  args,
  env,
  url,
  headers,
  workload: w,
  connections: o.connections,
  warmup: o.warmup,
  duration: o.duration,
  outFile: profileFile,
  pauseMs: 200,
  what: 'allocation profile',
});
if (o.out) writeFileSync(o.out, JSON.stringify(profile));
rmSync(work, { recursive: true, force: true });

const n = measured.requests;
const { shortUrl, site } = callFrameNames(o.tree);
const self = new Map();
const byFile = new Map();
const inclusive = new Map();
let total = 0;
/** Walks the tree; `onStack` keeps a recursive function's bytes from counting twice inclusively. */
function walk(node, onStack) {
  const key = site(node.callFrame);
  const file = node.callFrame.url ? shortUrl(node.callFrame.url) : `(${node.callFrame.functionName || 'vm'})`;
  self.set(key, (self.get(key) ?? 0) + node.selfSize);
  byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
  total += node.selfSize;
  let sub = node.selfSize;
  const fresh = !onStack.has(key);
  if (fresh) onStack.add(key);
  for (const c of node.children) sub += walk(c, onStack);
  if (fresh) {
    inclusive.set(key, (inclusive.get(key) ?? 0) + sub);
    onStack.delete(key);
  }
  return sub;
}
walk(profile.head, new Set());
const perReq = (b) =>
  `${Math.round(b / n)
    .toString()
    .padStart(6)} B/req`;
const top = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, o.top);
console.log(`${n} requests, ${Math.round(measured.rps)} req/s under the sampler (${o.connections} connections, load ${os.loadavg()[0].toFixed(2)})`);
console.log(`sampled V8-heap allocation: ${perReq(total)}\n\nby allocating function (self)`);
for (const [k, b] of top(self)) console.log(`  ${perReq(b)}  ${k}`);
console.log('\nby file (self)');
for (const [k, b] of top(byFile)) console.log(`  ${perReq(b)}  ${k}`);
console.log('\nby function with its callees (inclusive)');
for (const [k, b] of top(inclusive)) console.log(`  ${perReq(b)}  ${k}`);
