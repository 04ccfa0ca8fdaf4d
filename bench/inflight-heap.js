#!/usr/bin/env node
// What the blocking echo's requests in flight hold on the heap (issue 26, the p99 at 8
// connections: a scavenge's length follows the bytes that survive it, and those are the requests
// in flight): `npm run build`, then `node bench/inflight-heap.js [options]`.
//
// Starts a built tree's `agentport serve` (durable SQLite, echo agent) with
// bench/lib/snapshot-preload.cjs, warms it up, then N times loads it for a few seconds and writes a
// heap snapshot in the middle of the load; one more snapshot is written idle after the last load.
// For each loaded snapshot it prints the objects the idle one no longer has, as a dominator tree
// with retained bytes (bench/lib/heap-dominators.mjs): which request-path structure keeps what
// alive across a request's awaits. A snapshot stops the server for seconds; the counts are the
// figures, not the load's rate.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAutocannon } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { parseCommandLine, value } from './lib/options.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';
import { inflightDominators } from './lib/heap-dominators.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/inflight-heap.js [--tree DIR] [--config FILE] [--snapshots N] [--connections N] [--min BYTES] [--depth N] [--keep DIR]
  --tree DIR       built tree to run (default: this one)
  --config FILE    agentport.yaml for the server (default: none, the durable SQLite store)
  --snapshots N    snapshots under load (default 3), each in the middle of its own 5 s load
  --connections N  generator connections (default 8)
  --min BYTES      leave out lines retaining less (default 300)
  --depth N        levels of the tree printed (default 12)
  --keep DIR       write the snapshots there and keep them (default: a temporary directory, removed)`;
const o = { tree: ROOT, snapshots: 3, connections: 8, min: 300, depth: 12, keep: '', config: undefined };
parseCommandLine(HELP, {
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--config': value((v) => (o.config = path.resolve(v))),
  '--snapshots': value((v) => (o.snapshots = Number(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--min': value((v) => (o.min = Number(v))),
  '--depth': value((v) => (o.depth = Number(v))),
  '--keep': value((v) => (o.keep = path.resolve(v))),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-inflight-'));
const snapshots = o.keep || work;
const port = await freePort();
const args = ['--require', path.join(ROOT, 'bench', 'lib', 'snapshot-preload.cjs'), ...serveArgs({ entry: path.join(o.tree, 'bin', 'agentport.js'), port, dataDir: work, config: o.config })];
const url = `http://127.0.0.1:${port}${w.path}`;
const { server, stop } = await startBenchServer({ args, cwd: o.tree, env: { AGENTPORT_SNAPSHOT_DIR: snapshots }, url, headers: w.headers, workload: w });
const load = (durationS, runId) => runAutocannon({ url, connections: o.connections, threads: 1, durationS, headers: w.headers, bodyPrefix: w.bodyPrefix, bodySuffix: w.bodySuffix, runId });
const file = (k) => path.join(snapshots, `${String(k).padStart(2, '0')}.heapsnapshot`);
const written = async (k) => {
  while (!existsSync(path.join(snapshots, `${String(k).padStart(2, '0')}.done`))) await sleep(100);
};
try {
  await load(4, 'warmup');
  for (let k = 0; k < o.snapshots; k++) {
    const loaded = load(5, `loaded-${k}`);
    await sleep(3000);
    server.kill('SIGUSR2');
    await loaded;
    await written(k);
  }
  await sleep(2000);
  server.kill('SIGUSR2');
  await written(o.snapshots);
  console.log(`load ${os.loadavg()[0].toFixed(2)}; snapshots in ${snapshots}`);
  for (let k = 0; k < o.snapshots; k++) {
    console.log(`\nsnapshot ${k} (under load) against ${o.snapshots} (idle):`);
    for (const line of inflightDominators(file(k), file(o.snapshots), o.min, o.depth)) console.log(line);
  }
} finally {
  stop();
  await sleep(300);
  if (!o.keep) rmSync(work, { recursive: true, force: true });
}
