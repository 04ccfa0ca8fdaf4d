#!/usr/bin/env node
// Promises a blocking echo makes on the main thread, counted (issue 26: each is a promise, a reaction
// and a job, bytes every scavenge is nearer for): `npm run build`, then
//   node bench/promise-census.js [--tree DIR] [--connections N] [--duration S] [--warmup S]
// Starts Agentport as shipped (durable SQLite, echo agent) with bench/lib/promise-census.cjs, warms
// it up, and counts every promise made (v8.promiseHooks.onInit) while the load runs, divided by the
// requests the server took meanwhile. A count: it holds under load, unlike a time. Run it for two
// trees (--tree) to read a change's promises a request against its base.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAutocannon, runWrk, ensureWrk } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { parseCommandLine, value } from './lib/options.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/promise-census.js [--tree DIR] [--connections N] [--duration S] [--warmup S]
  --tree DIR    a built Agentport tree to run (default this one)`;
const o = { tree: ROOT, connections: 32, duration: 4, warmup: 2 };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-census-'));
const out = path.join(work, 'census.json');
const port = await freePort();
const entry = path.join(o.tree, 'bin', 'agentport.js');
const args = [...shippedNodeOptions(entry), '--require', path.join(ROOT, 'bench', 'lib', 'promise-census.cjs'), ...serveArgs({ entry, port, dataDir: work })];
const url = `http://127.0.0.1:${port}${w.path}`;
const { server, stop } = await startBenchServer({ args, cwd: o.tree, env: { AGENTPORT_CENSUS_OUT: out }, url, headers: w.headers, workload: w });
const gen = ensureWrk() ? runWrk : runAutocannon;
const load = (durationS, runId) => gen({ url, connections: o.connections, threads: 1, durationS, headers: w.headers, bodyPrefix: w.bodyPrefix, bodySuffix: w.bodySuffix, runId });
const load0 = os.loadavg()[0];
if (o.warmup > 0) await load(o.warmup, 'warmup');
server.kill('SIGUSR2');
await sleep(100);
const measured = await load(o.duration, 'measured');
server.kill('SIGUSR2');
for (let i = 0; !existsSync(out); i++) {
  if (i > 100) throw new Error('the server wrote no census file');
  await sleep(100);
}
const r = JSON.parse(readFileSync(out, 'utf8'));
stop();
rmSync(work, { recursive: true, force: true });
console.log(
  `${o.tree}: ${r.promises} promises in ${r.requests} requests: ${(r.promises / r.requests).toFixed(2)} a request (${measured.generator}, ${o.connections} connections, ${Math.round(measured.rps)} req/s; load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)})`,
);
