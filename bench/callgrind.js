#!/usr/bin/env node
// Instructions per request, deterministic: `npm run build`, then
// `node bench/callgrind.js [--tree DIR]... [options]`.
//
// On a loaded machine req/s and CPU seconds swing by 10 % or more between runs; the number of
// machine instructions a server executes for a request does not (it moves by well under 1 %). This
// starts each built checkout's server (`--tree`, default this one) under valgrind's callgrind with
// instrumentation off, warms it up with requests sent from here (so the JIT has settled), switches
// instrumentation on for exactly `--requests` requests, dumps, and reports the instructions per
// request of the whole process (all threads) and of its main thread. Two trees measured one after
// the other compare exactly, whatever else the machine is doing; a change is its ratio.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchKey } from './lib/api-key.mjs';
import { WORKLOADS } from './lib/workloads.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { readPerfMap, splitFile } from './lib/callgrind-split.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/callgrind.js [--tree DIR]... [--workload a2a|mcp|mcp-modern] [--warmup N] [--requests N]
                            [--connections N] [--config FILE] [--api-key] [--node-flags FLAGS] [--keep]
                            [--split [--top N]] [--server "SCRIPT ARGS"]
  --tree DIR     a built checkout to measure (repeatable; default: this one); the first is the baseline
  --warmup N     requests before counting (default 10000: the commit and better-sqlite3's
                 transaction are fully optimised only between 3,000 and 10,000 requests)
  --requests N   requests counted (default 1000)
  --config FILE  an agentport.yaml fragment for every server
  --api-key      authentication required, every request with an API key made by each tree's own
                 "agentport keys create" (bench/lib/api-key.mjs, as bench/run.js --api-key)
  --node-flags F Node/V8 flags for the servers (e.g. --single-threaded: V8 then compiles and
                 collects on the main thread too; a warm-up too short for the JIT then shows
                 as compiler work in the count)
  --keep         keep the callgrind output files (for callgrind_annotate; with --split, V8's perf map too)
  --split        also split the main thread's instructions a request by where they ran (the pg
                 driver, the Redis client, Agentport's dist/, Node's own JS, V8 builtins, native
                 code) and list the --top N (default 25) costliest functions: Node runs with
                 --perf-basic-prof and callgrind with --dump-instr=yes (bench/lib/callgrind-split.mjs)
  --server S     run "node S" in each tree instead of Agentport's serve, "{port}" replaced by the
                 port (e.g. "bench/pg-floor.js --serve pg:idx:{port}:myschema", a bare server)

Timers (the usage flush and rollup, the quota re-read, the WAL checkpoint thread) run per second,
not per request: under callgrind a server answers ~50 times slower, so their work weighs ~50 times
more per request than at full speed. Compare trees measured alike; read the ratio.`;

const opts = { trees: [], workload: 'a2a', warmup: 10_000, requests: 1000, connections: 4, config: undefined, apiKey: false, nodeFlags: [], keep: false, split: 0, server: undefined };
parseCommandLine(HELP, {
  '--tree': value((v) => opts.trees.push(path.resolve(v))),
  '--workload': value((v) => (opts.workload = v)),
  '--warmup': value((v) => (opts.warmup = Number(v))),
  '--requests': value((v) => (opts.requests = Number(v))),
  '--connections': value((v) => (opts.connections = Number(v))),
  '--config': value((v) => (opts.config = path.resolve(v))),
  '--api-key': flag(() => (opts.apiKey = true)),
  '--node-flags': value((v) => (opts.nodeFlags = v.split(/\s+/).filter(Boolean))),
  '--keep': flag(() => (opts.keep = true)),
  '--split': flag(() => (opts.split = 25)),
  '--top': value((v) => (opts.split = Number(v))),
  '--server': value((v) => (opts.server = v)),
});
if (opts.trees.length === 0) opts.trees.push(ROOT);
const workload = WORKLOADS[opts.workload];
if (!workload) {
  console.error(`unknown workload ${opts.workload} (a2a, mcp or mcp-modern)`);
  process.exit(2);
}

/**
 * Sends `n` requests over the agent's keep-alive connections (`connections` of them); rejects on a
 * wrong answer. The warm-up and the counted requests share one agent: new connections after the
 * warm-up's had closed met code V8 had optimised for the old sockets' maps ("wrong map" deopts of
 * Node's HTTP and stream functions and the edge, `--log-deopt`), and most of the 1,000 counted
 * requests then ran as baseline code being optimised again; a server under wrk keeps its
 * connections.
 */
async function send(url, n, tag, agent, credential = {}) {
  let next = 0;
  const one = (i) =>
    new Promise((resolve, reject) => {
      const body = `${workload.bodyPrefix}${tag}-${i}${workload.bodySuffix}`;
      const req = http.request(url, { method: 'POST', agent, headers: { ...workload.headers, ...credential, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const data = text.startsWith('{')
            ? text
            : text
                .split('\n')
                .find((l) => l.startsWith('data: '))
                ?.slice(6);
          let json;
          try {
            json = JSON.parse(data ?? '');
          } catch {}
          if (res.statusCode === 200 && workload.ok(json)) resolve();
          else reject(new Error(`bad answer ${res.statusCode}: ${text.slice(0, 300)}`));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  const lane = async () => {
    while (next < n) await one(next++);
  };
  await Promise.all(Array.from({ length: opts.connections }, lane));
}

function totals(file) {
  const text = readFileSync(file, 'utf8');
  const m = /^totals: (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

async function measure(tree, index) {
  const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-cg-'));
  const port = await freePort();
  const args = ['--tool=callgrind', '--instr-atstart=no', '--collect-atstart=yes', '--separate-threads=yes', `--callgrind-out-file=${work}/cg.out`];
  if (opts.split) args.push('--dump-instr=yes', '--dump-line=no');
  const nodeFlags = opts.split ? ['--perf-basic-prof', ...opts.nodeFlags] : opts.nodeFlags;
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir);
  // the key is made in the database the server then opens, by that tree's own CLI
  const credential = opts.apiKey ? { 'x-api-key': createBenchKey(path.join(tree, 'bin/agentport.js'), dataDir) } : {};
  const serve = opts.server
    ? opts.server.replaceAll('{port}', String(port)).split(/\s+/).filter(Boolean)
    : [path.join(tree, 'bin/agentport.js'), 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dataDir, '--auth', opts.apiKey ? 'required' : 'none'];
  if (opts.config && !opts.server) serve.push('--config', opts.config);
  const child = spawn('valgrind', [...args, process.execPath, ...nodeFlags, ...serve], { cwd: tree, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}${workload.path}`;
  const client = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`server exited: ${stderr.trim()}`);
      try {
        await send(url, 1, 'verify', client, credential);
        break;
      } catch (err) {
        // valgrind starts Node slowly, slower still on a busy machine: up to 20 minutes
        if (err.message.startsWith('bad answer') || i > 4800) throw err;
        await sleep(250);
      }
    }
    await send(url, opts.warmup, `warm${index}`, client, credential).catch((err) => {
      throw new Error(`${err.message}; the server said: ${stderr.trim() || '(nothing)'} (exit ${child.exitCode}, ${child.signalCode})`);
    });
    const ctl = (...a) => execFileSync('callgrind_control', [...a, String(child.pid)], { stdio: 'ignore' });
    ctl('-z');
    ctl('-i', 'on');
    await send(url, opts.requests, `count${index}`, client, credential);
    ctl('-i', 'off');
    ctl('-d');
    const files = readdirSync(work).filter((f) => f.startsWith('cg.out') && /\.1(-\d+)?$/.test(f));
    let total = 0;
    let main = 0;
    let mainFile;
    for (const f of files) {
      const n = totals(path.join(work, f));
      total += n;
      if (/\.1-0*1$/.test(f) || f === 'cg.out.1') [main, mainFile] = [n, path.join(work, f)];
    }
    const split = opts.split && mainFile ? splitFile(mainFile, readPerfMap(`/tmp/perf-${child.pid}.map`)) : undefined;
    return { total: total / opts.requests, main: main / opts.requests, work, split };
  } finally {
    client.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
    // the perf map goes with the kept dumps (callgrind-split.mjs reads the two together)
    if (opts.split && opts.keep) renameSync(`/tmp/perf-${child.pid}.map`, path.join(work, 'perf.map'));
    else if (opts.split) rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  }
}

/** The main thread's instructions a request by group, then its costliest functions. */
function printSplit(split) {
  const perRequest = (n) => `${(n / opts.requests / 1e3).toFixed(1).padStart(7)} k`;
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
  console.log('  main thread by where the instructions ran (self, a request):');
  for (const [group, n] of sorted(split.groups)) console.log(`    ${perRequest(n)}  ${group}`);
  console.log(`  the ${opts.split} costliest functions (self, a request):`);
  for (const [name, n] of sorted(split.functions).slice(0, opts.split)) console.log(`    ${perRequest(n)}  ${name.replace(/file:\/\/\S*?\/(node_modules|dist|bench)\//, '$1/').slice(0, 150)}`);
}

const results = [];
for (const [i, tree] of opts.trees.entries()) {
  const r = await measure(tree, i);
  results.push(r);
  const base = results[0];
  console.log(
    `${tree}: ${(r.total / 1e3).toFixed(1)} k instructions/request (main thread ${(r.main / 1e3).toFixed(1)} k)` +
      (i > 0 ? `, ratio to ${opts.trees[0]}: ${(r.total / base.total).toFixed(3)} (main ${(r.main / base.main).toFixed(3)})` : '') +
      (opts.keep ? ` [${r.work}]` : ''),
  );
  if (r.split) printSplit(r.split);
}
