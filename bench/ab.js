#!/usr/bin/env node
// What a feature costs: `npm run build`, then `node bench/ab.js [options]` (or `npm run bench:ab`).
//
// Starts Agentport with its default configuration (the baseline: everything on) and once per
// variant (the same server with one thing switched), then loads ALL of them AT THE SAME TIME, each
// with its own wrk, for every round; each round starts them anew (--keep-servers: once). Each server therefore meets the same machine (other
// processes, CPU frequency, the disk) during the same seconds, and the ratios between them hold on
// a noisy machine where sequential runs of bench/run.js swing by 10 % or more. The absolute req/s
// are lower than bench/run.js's (the servers share the cores); the ratios are what this measures.
//
// Reports, per variant and round: req/s, main-thread CPU per request (the event loop:
// /proc/<pid>/task/<pid>/stat) and whole-process CPU per request (worker threads included), and
// the ratios baseline/variant, so "usage-off" at 0.97 means usage records cost 3 %.
//
// Variants (--variants, comma list): usage-off, metrics-off, tracing (ratio 1.0, exported to a
// sink this script runs), tracing-0 (the same at ratio 0: installed, nothing sampled), api-key
// (authentication required, every request with a stored API key: what the key path costs), NAME=FILE
// for any agentport.yaml fragment, NAME=node:FLAGS for the same server under other Node/V8 flags
// (`semi64=node:--max-semi-space-size=64`), or NAME=tree:DIR for another built checkout
// (`before=tree:/tmp/old`, its dist/ built): a change against its parent. Any variant may end in
// @DIR to run it from another built checkout (`tracing@/tmp/old,tracing`: the old and the new
// code traced, loaded at the same time).
// Workloads (--workload): a2a (blocking SendMessage on /a2a/echo, JSON-RPC) or mcp (tools/call
// echo_echo, MCP 2025-11-25 stateless).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchKey } from './lib/api-key.mjs';
import { runWrk, ensureWrk } from './lib/load.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { mainThreadCpuSeconds, processCpuSeconds, rssKb } from './lib/proc.mjs';
import { freePort } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/ab.js [--variants usage-off,metrics-off,tracing,tracing-0,api-key,NAME=FILE|node:FLAGS|tree:DIR][@DIR]
                       [--workload a2a|mcp|mcp-modern] [--rounds N] [--duration S] [--warmup S] [--connections N per server]
                       [--sequential] [--api-key] [--keep-servers] [--control] [--node-defaults]

  --sequential   load the servers one after another within each round instead of at once: for
                 variants whose bound is not the CPU (a PostgreSQL store waits on the database), where
                 sharing the cores with the baseline would flatter the variant
  --api-key      every server requires authentication and every request carries an API key made
                 in its database by its tree's own "agentport keys create" (bench/lib/api-key.mjs)
  --keep-servers start the servers once for all rounds, in the listed order (before session 25's
                 change, the only way). By default every round starts them anew, on fresh data
                 directories, in the listed order on odd rounds and reversed on even ones: with one
                 set of processes the same tree loaded against itself came out ~5 % worse in the
                 baseline's slot, which a change's A/B would read as the change's cost
  --control      add a server of the baseline's own build and configuration ("control") and also
                 print each variant's ratios divided by the control's: what is left of a ratio once
                 the slot's own bias is taken off
  --node-defaults every server with Node's defaults: without the node options its tree ships with
                 (the tree's bin/agentport.js shebang, --max-semi-space-size=64 since ADR 0081);
                 a node:FLAGS variant's flags come after them (the last of a flag wins)`;

const opts = { variants: ['usage-off'], workload: 'a2a', rounds: 3, duration: 8, warmup: 3, connections: 16, sequential: false, apiKey: false, keepServers: false, control: false, nodeDefaults: false };
parseCommandLine(HELP, {
  '--variants': value((v) => (opts.variants = v.split(',').filter(Boolean))),
  '--workload': value((v) => (opts.workload = v)),
  '--rounds': value((v) => (opts.rounds = Number(v))),
  '--duration': value((v) => (opts.duration = Number(v))),
  '--warmup': value((v) => (opts.warmup = Number(v))),
  '--connections': value((v) => (opts.connections = Number(v))),
  '--sequential': flag(() => (opts.sequential = true)),
  '--api-key': flag(() => (opts.apiKey = true)),
  '--keep-servers': flag(() => (opts.keepServers = true)),
  '--control': flag(() => (opts.control = true)),
  '--node-defaults': flag(() => (opts.nodeDefaults = true)),
});
// The control is the baseline again under another name: same tree, same (empty) configuration.
if (opts.control) opts.variants.push(`control=tree:${ROOT}`);

const workload = WORKLOADS[opts.workload];
if (!workload) {
  console.error(`unknown workload ${opts.workload} (a2a, mcp or mcp-modern)`);
  process.exit(2);
}
if (!ensureWrk()) {
  console.error('wrk is not installed: apt-get install -y wrk');
  process.exit(2);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-ab-'));

/** An OTLP/HTTP endpoint that accepts and discards, for the tracing variant. */
async function startSink() {
  const server = http.createServer((req, res) => {
    req.resume();
    // an empty ExportTraceServiceResponse in the request's encoding, as a collector answers
    req.on('end', () =>
      req.headers['content-type'] === 'application/x-protobuf' ? res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() : res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

let sink;
async function variantConfig(name) {
  if (name === 'baseline') return '';
  if (name === 'usage-off') return 'usage:\n  enabled: false\n';
  if (name === 'metrics-off') return 'metrics:\n  enabled: false\n';
  if (name === 'api-key') return '';
  // tracing-0: the SDK installed but nothing sampled, so what remains is the cost of being ready to trace
  if (name === 'tracing' || name === 'tracing-0') {
    sink ??= await startSink();
    return `tracing:\n  enabled: true\n  endpoint: http://127.0.0.1:${sink.address().port}\n  samplingRatio: ${name === 'tracing' ? 1 : 0}\n`;
  }
  const eq = name.indexOf('=');
  if (eq > 0 && /^(node|tree):/.test(name.slice(eq + 1))) return '';
  if (eq > 0) return readFileSync(name.slice(eq + 1), 'utf8');
  throw new Error(`unknown variant ${name}: usage-off, metrics-off, tracing, tracing-0, api-key, NAME=FILE, NAME=node:FLAGS or NAME=tree:DIR`);
}

async function start(variant, round) {
  const at = variant.indexOf('@');
  const name = at < 0 ? variant : variant.slice(0, at);
  const from = at < 0 ? undefined : path.resolve(variant.slice(at + 1));
  const label = (name.includes('=') ? name.slice(0, name.indexOf('=')) : name) + (from ? `@${path.basename(from)}` : '');
  const dir = path.join(work, `${label}-${round}`);
  const config = path.join(work, `${label}-${round}.yaml`);
  writeFileSync(config, await variantConfig(name));
  const port = await freePort();
  const spec = name.includes('=') ? name.slice(name.indexOf('=') + 1) : '';
  const nodeFlags = spec.startsWith('node:') ? spec.slice(5).split(/\s+/).filter(Boolean) : [];
  const tree = from ?? (spec.startsWith('tree:') ? path.resolve(spec.slice(5)) : ROOT);
  mkdirSync(dir, { recursive: true });
  const keyed = opts.apiKey || name === 'api-key';
  const headers = keyed ? { ...workload.headers, 'X-API-Key': createBenchKey(path.join(tree, 'bin/agentport.js'), dir) } : workload.headers;
  const auth = keyed ? 'required' : 'none';
  const entry = path.join(tree, 'bin/agentport.js');
  const shipped = opts.nodeDefaults ? [] : shippedNodeOptions(entry);
  const child = spawn(process.execPath, [...shipped, ...nodeFlags, entry, 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dir, '--auth', auth, '--config', config], {
    cwd: tree,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}${workload.path}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${label} exited: ${stderr.trim()}`);
    try {
      const res = await fetch(url, { method: 'POST', headers, body: `${workload.bodyPrefix}verify-${label}${workload.bodySuffix}` });
      const text = await res.text();
      if (!workload.ok(parseAnswer(text))) throw new Error(`${label} answered the check request wrongly: ${text.slice(0, 300)}`);
      break;
    } catch (err) {
      if (err.message.includes('wrongly') || i > 300) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { label, child, url, headers };
}

/** A JSON-RPC answer, plain or as the data of an SSE event. */
function parseAnswer(text) {
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6);
  try {
    return JSON.parse(data ?? '');
  } catch {
    return undefined;
  }
}

const mainCpu = mainThreadCpuSeconds;
const processCpu = processCpuSeconds;

async function loadAll(servers, durationS, runId, reverse = false) {
  const before = servers.map((s) => ({ main: mainCpu(s.child.pid), proc: processCpu(s.child.pid) }));
  const load = (s) => runWrk({ url: s.url, connections: opts.connections, threads: 1, durationS, headers: s.headers, bodyPrefix: workload.bodyPrefix, bodySuffix: workload.bodySuffix, runId: `${runId}-${s.label}` });
  const measure = (s, i, r) => ({
    rps: r.rps,
    errors: r.errorsTotal,
    mainUs: ((mainCpu(s.child.pid) - before[i].main) * 1e6) / r.requests,
    procUs: ((processCpu(s.child.pid) - before[i].proc) * 1e6) / r.requests,
    // the generator's p99 and p50 (a variant of the young generation's size moves these) and the
    // server's resident memory as the round ends (what a larger young generation costs)
    p50: r.latencyMs.p50,
    p99: r.latencyMs.p99,
    rssMb: (rssKb(s.child.pid) ?? 0) / 1024,
  });
  if (!opts.sequential) {
    const runs = await Promise.all(servers.map(load));
    return servers.map((s, i) => measure(s, i, runs[i]));
  }
  // One at a time; the order alternates between rounds so neither side always runs second.
  const order = servers.map((_, i) => i);
  if (reverse) order.reverse();
  const out = [];
  for (const i of order) {
    before[i] = { main: mainCpu(servers[i].child.pid), proc: processCpu(servers[i].child.pid) };
    out[i] = measure(servers[i], i, await load(servers[i]));
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n, d = 0) => n.toFixed(d).padStart(8);

const names = ['baseline', ...opts.variants];
let servers = [];

/** Starts every server, in the listed order or reversed, each on a fresh data directory. */
async function startAll(round, reversed) {
  const order = names.map((_, i) => i);
  if (reversed) order.reverse();
  const started = [];
  for (const i of order) started[i] = await start(names[i], round);
  return started;
}

async function stopAll() {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => (s.child.exitCode === null ? new Promise((r) => s.child.once('exit', r)) : undefined)));
  servers = [];
}

try {
  const rounds = [];
  for (let r = 1; r <= opts.rounds; r++) {
    if (r === 1 || !opts.keepServers) {
      await stopAll();
      servers = await startAll(opts.keepServers ? 'all' : `r${r}`, !opts.keepServers && r % 2 === 0);
      if (r === 1) {
        console.log(
          `workload ${opts.workload} (${workload.path})${opts.apiKey ? ' with an API key' : ''}, ${servers.length} servers loaded ${opts.sequential ? 'one after another' : 'at once'}, ${opts.connections} connections each, ${opts.rounds} × ${opts.duration} s, ${opts.keepServers ? 'one set of servers for all rounds' : 'servers started anew each round, reversed on even rounds'}`,
        );
      }
      await loadAll(servers, opts.warmup, `warm${r}`);
    }
    const res = await loadAll(servers, opts.duration, `r${r}`, r % 2 === 0);
    rounds.push(res);
    console.log(`round ${r}: ${servers.map((s, i) => `${s.label} ${res[i].rps.toFixed(0)} req/s, ${res[i].mainUs.toFixed(1)} µs main, p99 ${res[i].p99.toFixed(2)} ms, ${res[i].rssMb.toFixed(0)} MB`).join(' | ')}`);
    if (res.some((x) => x.errors > 0)) console.log(`  errors: ${servers.map((s, i) => `${s.label} ${res[i].errors}`).join(', ')}`);
  }
  console.log(
    `\n${'server'.padEnd(14)}${'req/s'.padStart(8)}${'main µs'.padStart(8)}${'proc µs'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'RSS MB'.padStart(8)}   ratios against the baseline (medians of per-round ratios)`,
  );
  const results = servers.map((s, i) => {
    const rps = median(rounds.map((r) => r[i].rps));
    const mainUs = median(rounds.map((r) => r[i].mainUs));
    const procUs = median(rounds.map((r) => r[i].procUs));
    const p50 = median(rounds.map((r) => r[i].p50));
    const p99 = median(rounds.map((r) => r[i].p99));
    const rssMb = median(rounds.map((r) => r[i].rssMb));
    const rpsRatio = median(rounds.map((r) => r[0].rps / r[i].rps));
    const cpuRatio = median(rounds.map((r) => r[0].mainUs / r[i].mainUs));
    const line = i === 0 ? '' : `   baseline/${s.label}: req/s ${rpsRatio.toFixed(3)}, main-thread CPU per request ${cpuRatio.toFixed(3)}`;
    console.log(`${s.label.padEnd(14)}${fmt(rps)}${fmt(mainUs, 1)}${fmt(procUs, 1)}${fmt(p50, 2)}${fmt(p99, 2)}${fmt(rssMb)}${line}`);
    return { label: s.label, rps, mainUs, procUs, p50, p99, rssMb, rpsRatio, cpuRatio };
  });
  const control = results.find((x) => x.label === 'control');
  if (control) {
    console.log(`\nwith the control's own ratios taken off (variant ratio ÷ control ratio; control: req/s ${control.rpsRatio.toFixed(3)}, CPU ${control.cpuRatio.toFixed(3)})`);
    for (const x of results.slice(1)) {
      if (x !== control) console.log(`  baseline/${x.label}: req/s ${(x.rpsRatio / control.rpsRatio).toFixed(3)}, main-thread CPU per request ${(x.cpuRatio / control.cpuRatio).toFixed(3)}`);
    }
  }
  mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench', 'results', `ab-${opts.workload}.json`), `${JSON.stringify({ when: new Date().toISOString(), opts, results, rounds }, null, 2)}\n`);
} finally {
  await stopAll();
  sink?.close();
  rmSync(work, { recursive: true, force: true });
}
