#!/usr/bin/env node
// How long a write on a second SQLite connection waits for the write lock while the commit thread
// (ADR 0062) commits the blocking echo's tasks: `npm run build`, then `node bench/lock-wait.js`.
//
// The rollup steps, audit appends and management writes stay on the store's main connection, so
// with the thread on they take the write lock from another connection, through SQLite's busy
// handler (sleeps of 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms … up to the busy timeout).
// This starts Agentport (durable SQLite, echo agent, default configuration: the thread on where
// there are two cores), loads it with the echo, and meanwhile, every --every ms, opens a write
// transaction on a connection of its own to the same file (BEGIN IMMEDIATE, the busy timeout the
// store's connection has: 5000 ms) and rolls it back at once: the time BEGIN IMMEDIATE takes is
// the wait such a write meets. It prints that wait's distribution, and how many probes gave up
// (SQLITE_BUSY after the busy timeout).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import { runAutocannon, runWrk, ensureWrk } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { parseCommandLine, value } from './lib/options.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/lock-wait.js [--duration S] [--warmup S] [--connections N] [--every MS] [--busy-timeout MS]
                              [--tree DIR] [--agentport-args "..."]
  --every          the probe's period (default 20 ms)
  --busy-timeout   the probe connection's busy timeout (default 5000 ms, the store's)
  --agentport-args e.g. "--config thread-off.yaml" to compare with the commits on the main connection`;

const o = { duration: 10, warmup: 3, connections: 32, every: 20, busyTimeout: 5000, tree: ROOT, agentportArgs: '' };
parseCommandLine(HELP, {
  '--duration': value((v) => (o.duration = Number(v))),
  '--warmup': value((v) => (o.warmup = Number(v))),
  '--connections': value((v) => (o.connections = Number(v))),
  '--every': value((v) => (o.every = Number(v))),
  '--busy-timeout': value((v) => (o.busyTimeout = Number(v))),
  '--tree': value((v) => (o.tree = path.resolve(v))),
  '--agentport-args': value((v) => (o.agentportArgs = v)),
});
requireBuiltTree(o.tree);

const w = WORKLOADS.a2a;
const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-lock-wait-'));
const port = await freePort();
const args = [...serveArgs({ entry: path.join(o.tree, 'bin', 'agentport.js'), port, dataDir: work }), ...o.agentportArgs.split(' ').filter(Boolean)];
const url = `http://127.0.0.1:${port}${w.path}`;
const { stop } = await startBenchServer({ args, cwd: o.tree, url, headers: w.headers, workload: w });
const file = path.join(work, 'agentport.db');
if (!existsSync(file)) throw new Error(`no database at ${file}`);

const probe = new Sqlite(file);
probe.pragma(`busy_timeout = ${o.busyTimeout}`);
const begin = probe.prepare('BEGIN IMMEDIATE');
const rollback = probe.prepare('ROLLBACK');

const gen = ensureWrk() ? runWrk : runAutocannon;
const load = (durationS, runId) => gen({ url, connections: o.connections, threads: 1, durationS, headers: w.headers, bodyPrefix: w.bodyPrefix, bodySuffix: w.bodySuffix, runId });

/** Probes every `o.every` ms until `until()` says stop; each probe's wait in ms, Infinity when it gave up. */
async function probeWhile(until) {
  const waits = [];
  while (!until()) {
    const t0 = process.hrtime.bigint();
    try {
      begin.run();
      waits.push(Number(process.hrtime.bigint() - t0) / 1e6);
      rollback.run();
    } catch (err) {
      if (err?.code !== 'SQLITE_BUSY') throw err;
      waits.push(Infinity);
    }
    await sleep(o.every);
  }
  return waits;
}

const load0 = os.loadavg()[0];
if (o.warmup > 0) await load(o.warmup, 'warmup');
let done = false;
const running = load(o.duration, 'measured').finally(() => (done = true));
const waits = await probeWhile(() => done);
const measured = await running;
// The same probes with the server idle: what a wait costs with nothing else writing.
let idleDone = false;
setTimeout(() => (idleDone = true), 2000);
const idle = await probeWhile(() => idleDone);
probe.close();
stop();
await sleep(300);
rmSync(work, { recursive: true, force: true });

const sorted = (a) => [...a].sort((x, y) => x - y);
const q = (s, p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
const f = (x) => (Number.isFinite(x) ? x.toFixed(2) : `gave up (${o.busyTimeout} ms)`);
const s = sorted(waits);
const si = sorted(idle);
console.log(
  `${measured.requests} requests in ${measured.durationS.toFixed(1)} s (${Math.round(measured.rps)} req/s, ${o.connections} connections, ${measured.generator}); load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`,
);
console.log(
  `under load: ${s.length} probes, lock wait p50 ${f(q(s, 50))} ms  p90 ${f(q(s, 90))} ms  p99 ${f(q(s, 99))} ms  max ${f(s.at(-1) ?? 0)} ms; waited ≥ 1 ms: ${s.filter((x) => x >= 1).length}; ≥ 100 ms: ${s.filter((x) => x >= 100).length}; gave up: ${s.filter((x) => !Number.isFinite(x)).length}`,
);
console.log(`idle:       ${si.length} probes, lock wait p50 ${f(q(si, 50))} ms  p99 ${f(q(si, 99))} ms  max ${f(si.at(-1) ?? 0)} ms`);
