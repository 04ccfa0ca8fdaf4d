#!/usr/bin/env node
// Memory of a long run (issue 18, target 5): `node bench/soak.js --requests 1000000` (see --help).
//
// The real CLI on a fresh embedded SQLite store; blocking JSON-RPC SendMessage echos from autocannon
// in a child process, in --chunks equal chunks after a warm-up. After the warm-up and after each
// chunk: a 3 s pause, then the server's RSS and its V8 heap (from /metrics). With --heap-snapshots
// the server also writes a heap snapshot after the warm-up and at the end (each forces a full GC,
// so the heap figure read after it is the live heap), and the growth between them is printed by
// constructor. `npm run bench -- --requests N` measures RSS the same way without the heap detail.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { heapDiff } from './lib/heap-diff.mjs';
import { runAutocannon } from './lib/load.mjs';
import { rssKb } from './lib/proc.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'agentport.js');
const RESULTS = path.join(ROOT, 'bench', 'results');
const METRICS_TOKEN = 'bench-soak-metrics-token';

const HELP = `Usage: node bench/soak.js [options]

  --requests N      requests after the warm-up (default 1000000)
  --warmup N        warm-up requests, not measured (default 30000)
  --chunks N        readings during the run (default 5)
  --connections N   autocannon connections (default 32)
  --heap-snapshots  heap snapshots after the warm-up and at the end, and their difference
  --out FILE        results JSON (default bench/results/soak-latest.json)
`;

function parseArgs(argv) {
  const o = { requests: 1_000_000, warmup: 30_000, chunks: 5, connections: 32, heapSnapshots: false, out: path.join(RESULTS, 'soak-latest.json') };
  const nums = { '--requests': 'requests', '--warmup': 'warmup', '--chunks': 'chunks', '--connections': 'connections' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a in nums) {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      o[nums[a]] = n;
    } else if (a === '--heap-snapshots') o.heapSnapshots = true;
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  return o;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const mb = (bytes) => Math.round(bytes / 104857.6) / 10;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function heap(base) {
  const text = await (await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (name) => Number(new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { usedMb: mb(value('nodejs_heap_size_used_bytes')), totalMb: mb(value('nodejs_heap_size_total_bytes')) };
}

async function waitReady(base, proc) {
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error('server exited during start-up');
    try {
      const res = await fetch(`${base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error('server not ready');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-soak-'));
  const snapDir = path.join(dir, 'snapshots');
  mkdirSync(snapDir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = path.join(dir, 'agentport.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      server: { host: '127.0.0.1', port, dataDir: path.join(dir, 'data'), logLevel: 'warn', grpc: { enabled: false } },
      auth: { mode: 'none' },
      metrics: { token: METRICS_TOKEN },
      agents: [{ id: 'echo', builtin: 'echo' }],
    }),
  );
  const env = { ...process.env, NODE_ENV: 'production' };
  delete env.AGENTPORT_CONFIG;
  const flags = o.heapSnapshots ? ['--heapsnapshot-signal=SIGUSR2'] : [];
  // cwd: where --heapsnapshot-signal writes its files.
  const proc = spawn(process.execPath, [...flags, BIN, 'serve', '--config', config], { env, cwd: snapDir, stdio: ['ignore', 'ignore', 'inherit'] });
  const load = (amount, runId) =>
    runAutocannon({
      url: `${base}/a2a/echo`,
      connections: o.connections,
      amount,
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"',
      bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}',
      runId,
    });
  const snapshot = async () => {
    const before = readdirSync(snapDir).length;
    proc.kill('SIGUSR2');
    while (readdirSync(snapDir).length === before) await sleep(200);
    await sleep(500);
    await waitReady(base, proc);
    return path.join(snapDir, readdirSync(snapDir).sort().at(-1));
  };
  const results = { when: new Date().toISOString(), options: o, machine: { cpus: os.cpus().length, node: process.version, loadavgBefore: os.loadavg() }, readings: [] };
  try {
    await waitReady(base, proc);
    log(`warm-up: ${o.warmup} requests`);
    await load(o.warmup, 'soak-warm');
    await sleep(3000);
    const first = o.heapSnapshots ? await snapshot() : null;
    const reading = async (sent, extra = {}) => {
      const r = { sent, rssMb: mb((rssKb(proc.pid) ?? 0) * 1024), ...(await heap(base)), ...extra };
      results.readings.push(r);
      log(`after ${sent} requests: RSS ${r.rssMb} MB, V8 heap used ${r.usedMb} of ${r.totalMb} MB${extra.rps ? `; ${extra.rps.toFixed(0)} req/s, ${extra.errors} errors` : ''}`);
    };
    await reading(0);
    let sent = 0;
    const t0 = performance.now();
    for (let c = 0; c < o.chunks; c++) {
      const n = Math.floor(o.requests / o.chunks) + (c < o.requests % o.chunks ? 1 : 0);
      const r = await load(n, `soak-${c}`);
      sent += r.requests;
      await sleep(3000);
      await reading(sent, { rps: r.rps, errors: r.errorsTotal });
    }
    results.seconds = (performance.now() - t0) / 1000;
    if (first) {
      const last = await snapshot();
      await reading(sent, { afterSnapshot: true });
      const firstAfterGc = results.readings[0];
      const d = heapDiff(first, last, sent);
      results.heapDiffPerRequest = d;
      log(`live heap (after the forced GC of each snapshot): ${firstAfterGc.usedMb} → ${results.readings.at(-1).usedMb} MB; growth per request ${d.bytes.toFixed(2)} bytes`);
      for (const r of d.top.slice(0, 12)) log(`  ${((r.bytes * sent) / 1048576).toFixed(2).padStart(8)} MB  ${(r.count * sent).toFixed(0).padStart(8)} objects  ${r.key}`);
    }
  } finally {
    proc.kill('SIGTERM');
    await sleep(1000);
    rmSync(dir, { recursive: true, force: true });
  }
  results.machine.loadavgAfter = os.loadavg();
  mkdirSync(path.dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  const r0 = results.readings[0];
  const rEnd = results.readings.filter((r) => !r.afterSnapshot).at(-1);
  process.stdout.write(
    `\n${rEnd.sent} requests in ${results.seconds.toFixed(0)} s: RSS ${r0.rssMb} → ${rEnd.rssMb} MB (${(rEnd.rssMb - r0.rssMb).toFixed(1)} MB), ` +
      `V8 heap used ${r0.usedMb} → ${rEnd.usedMb} MB\nreadings: ${results.readings.map((r) => `${r.sent}: ${r.rssMb}/${r.usedMb}`).join(', ')} (RSS/heap MB)\nresults: ${path.relative(process.cwd(), o.out)}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
