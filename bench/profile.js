#!/usr/bin/env node
// Where a request's CPU goes: `npm run build`, then `node bench/profile.js [options]`
// (or `npm run bench:profile`).
//
// Starts Agentport (durable SQLite, the built-in echo agent), warms it up with wrk, then records the
// V8 CPU profile of the measured seconds only (bench/lib/profile-preload.cjs) while wrk loads it.
// Prints the time by area (HTTP, SQLite, Agentport's layers, GC, idle), the top functions by self
// and by inclusive time, and writes the profile (.cpuprofile: open it in Chrome DevTools) and an
// SVG flame graph. Profiling slows the server a little; read shares, not req/s, from this.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flameGraphSvg, summarise } from './lib/cpu-profile.mjs';
import { runWrk, ensureWrk } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { createBenchKey } from './lib/api-key.mjs';
import { serveArgs, startBenchServer } from './lib/bench-server.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { requireBuiltTree } from './lib/built-tree.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/profile.js [--workload a2a|mcp|mcp-modern] [--duration S] [--warmup S] [--connections N]
                           [--api-key] [--config FILE] [--out DIR] [--top N]
  --api-key     authentication on, with an API key made by "agentport keys create"
  --config F    an agentport.yaml fragment for the server (metrics off, tracing on, …)
  --out DIR     where the .cpuprofile and the flame graph go (default bench/results)`;

const opts = { workload: 'a2a', duration: 10, warmup: 3, connections: 32, apiKey: false, config: undefined, out: path.join(ROOT, 'bench', 'results'), top: 25 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const v = () => process.argv[++i];
  if (a === '--help') {
    console.log(HELP);
    process.exit(0);
  } else if (a === '--workload') opts.workload = v();
  else if (a === '--duration') opts.duration = Number(v());
  else if (a === '--warmup') opts.warmup = Number(v());
  else if (a === '--connections') opts.connections = Number(v());
  else if (a === '--api-key') opts.apiKey = true;
  else if (a === '--config') opts.config = path.resolve(v());
  else if (a === '--out') opts.out = path.resolve(v());
  else if (a === '--top') opts.top = Number(v());
  else {
    console.error(`unknown option ${a}\n${HELP}`);
    process.exit(2);
  }
}
const workload = WORKLOADS[opts.workload];
if (!workload) {
  console.error(`unknown workload ${opts.workload} (a2a, mcp or mcp-modern)`);
  process.exit(2);
}
if (!ensureWrk()) {
  console.error('wrk is not installed: apt-get install -y wrk');
  process.exit(2);
}
requireBuiltTree(ROOT);

const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-profile-'));
const profileFile = path.join(work, 'server.cpuprofile');
const headers = { ...workload.headers };
if (opts.apiKey) {
  try {
    headers['x-api-key'] = createBenchKey(path.join(ROOT, 'bin', 'agentport.js'), work);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
const port = await freePort();
const args = ['--require', path.join(ROOT, 'bench', 'lib', 'profile-preload.cjs'), ...serveArgs({ entry: 'bin/agentport.js', port, dataDir: work, auth: opts.apiKey ? 'required' : 'none', config: opts.config })];
const url = `http://127.0.0.1:${port}${workload.path}`;
const { server, stop } = await startBenchServer({ args, cwd: ROOT, env: { AGENTPORT_PROFILE_OUT: profileFile }, url, headers: headers, workload: workload });

const load = (durationS, runId) => runWrk({ url, connections: opts.connections, threads: 1, durationS, headers, bodyPrefix: workload.bodyPrefix, bodySuffix: workload.bodySuffix, runId });
if (opts.warmup > 0) await load(opts.warmup, 'warmup');
server.kill('SIGUSR2');
await sleep(200);
const measured = await load(opts.duration, 'measured');
server.kill('SIGUSR2');
for (let i = 0; !existsSync(profileFile); i++) {
  if (i > 100) throw new Error('the server wrote no profile');
  await sleep(100);
}
await sleep(200);
stop();

const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
const s = summarise(profile, opts.top);
mkdirSync(opts.out, { recursive: true });
const base = path.join(opts.out, `profile-${opts.workload}${opts.apiKey ? '-key' : ''}`);
writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile));
const title = `Agentport ${opts.workload === 'a2a' ? 'blocking SendMessage echo (JSON-RPC)' : 'MCP tools/call echo'}, durable SQLite${opts.apiKey ? ', API key' : ''}: ${Math.round(measured.rps)} req/s under profiling, ${opts.connections} connections`;
writeFileSync(`${base}.svg`, flameGraphSvg(profile, { title }));
rmSync(work, { recursive: true, force: true });

const requests = measured.requests;
const pct = (x) => `${(100 * x).toFixed(1).padStart(5)} %`;
const us = (ms) => `${((ms * 1000) / requests).toFixed(1).padStart(6)} µs/req`;
console.log(`${title}\n${requests} requests in ${measured.durationS.toFixed(1)} s; p50 ${measured.latencyMs.p50.toFixed(2)} ms, p99 ${measured.latencyMs.p99.toFixed(2)} ms`);
console.log(`main thread: ${s.totalMs.toFixed(0)} ms sampled\n\nby area`);
for (const r of s.areas) console.log(`  ${pct(r.share)}  ${us(r.ms)}  ${r.name}`);
console.log('\ntop functions by self time');
for (const r of s.self) console.log(`  ${pct(r.share)}  ${us(r.ms)}  ${r.name}`);
console.log('\ntop functions by inclusive time');
for (const r of s.inclusive) console.log(`  ${pct(r.share)}  ${us(r.ms)}  ${r.name}`);
console.log(`\nwrote ${path.relative(process.cwd(), `${base}.cpuprofile`)} and ${path.relative(process.cwd(), `${base}.svg`)}`);
