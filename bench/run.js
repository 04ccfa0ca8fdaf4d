#!/usr/bin/env node
// Agentport benchmark harness: `npm run bench` (= node bench/run.js).
//
// Measures blocking SendMessage echo over JSON-RPC and HTTP+JSON, on loopback,
// against three targets started as child processes:
//   bare      - bench/targets/bare-http.mjs (node:http, fixed JSON answer)
//   a2a-js    - bench/targets/a2a-js-echo.mjs (@a2a-js/sdk 1.3, Express, in-memory store)
//   agentport - node bin/agentport.js serve (durable SQLite default, echo agent at /a2a/echo)
// Each (target, binding) pair gets a fresh server process. A target that fails
// to start or answers the verification request wrongly is skipped with a reason.
//
// See docs/benchmarks.md, or run with --help.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { runAutocannon, runWrk, ensureWrk, autocannonVersion } from './lib/load.mjs';
import { machineCpuSeconds, selfAndReapedChildrenCpuSeconds, treeCpuSeconds, treeRss } from './lib/proc.mjs';
import { createBenchKey } from './lib/api-key.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { flag, parseOptions, value } from './lib/options.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

// ---------------------------------------------------------------- options

const HELP = `Usage: npm run bench -- [options]      (or: node bench/run.js [options])

  --duration S        measured seconds per target x binding (default 10)
  --warmup S          warm-up seconds before measuring, not recorded (default 3)
  --connections N     concurrent keep-alive connections (default 32)
  --threads N         wrk threads (default 1)
  --targets LIST      comma list of bare,a2a-js,agentport,agentport-usage-off,agentport-2proc,
                      agentport-metrics-off
                      agentport-tracing (traces to an OTLP sink in this process)
  --tracing-ratio R   sampling ratio of agentport-tracing (default 1; 0 measures what
                      tracing costs before any span is recorded: context propagation)
                      (default: the first three; with --requests: agentport)
  --bindings LIST     comma list of jsonrpc,rest (default: both;
                      with --requests: jsonrpc)
  --retry-busy N      redo a run up to N times when other processes used more than
                      0.15 cores during it; keep the least disturbed (default 2)
  --runs N            repeat each target x binding N times, each on a fresh
                      server, and report the run with the median req/s among the
                      undisturbed runs (default 1)
  --requests N        memory mode: send exactly N requests (autocannon) after the
                      warm-up and report server RSS growth, e.g. --requests 1000000
  --generator G       auto | wrk | autocannon (default auto: wrk, installed from Debian's packages when missing and root; else autocannon)
  --api-key           Agentport authenticates every call: auth required, an API key made
                      with "agentport keys create" in its fresh database, sent as X-API-Key
  --agentport-args S  extra arguments appended to "agentport serve"
  --agentport-bin F   Agentport entry point (default bin/agentport.js)
  --node-defaults     start Agentport with Node's defaults, without the node options it ships
                      with (its entry point's shebang, --max-semi-space-size=64: ADR 0081);
                      a2a-js and bare always run with Node's defaults
  --startup-timeout S seconds to wait for a server to listen (default 30)
  --wait-idle S       before each run, wait up to S seconds for the machine to be
                      >= 85% idle (default 30; 0 = don't wait)
  --out FILE          results file (default bench/results/latest.json, or
                      bench/results/latest-memory.json with --requests)
  --help
`;

function parseArgs(argv) {
  const o = {
    duration: 10,
    warmup: 3,
    connections: 32,
    threads: 1,
    targets: null,
    bindings: null,
    requests: 0,
    generator: 'auto',
    agentportArgs: '',
    agentportBin: path.join(ROOT, 'bin', 'agentport.js'),
    nodeDefaults: false,
    startupTimeout: 30,
    waitIdle: 30,
    runs: 1,
    retryBusy: 2,
    tracingRatio: 1,
    out: null,
  };
  const num = (name, v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a non-negative number, got ${v}`);
    return n;
  };
  const list = (v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  parseOptions(argv, HELP, {
    '--tracing-ratio': value((v) => {
      o.tracingRatio = num('--tracing-ratio', v);
      if (o.tracingRatio > 1) throw new Error('--tracing-ratio is a number from 0 to 1');
    }),
    '--duration': value((v) => (o.duration = num('--duration', v))),
    '--warmup': value((v) => (o.warmup = num('--warmup', v))),
    '--connections': value((v) => (o.connections = Math.max(1, Math.floor(num('--connections', v))))),
    '--threads': value((v) => (o.threads = Math.max(1, Math.floor(num('--threads', v))))),
    '--targets': value((v) => (o.targets = list(v))),
    '--bindings': value((v) => (o.bindings = list(v))),
    '--requests': value((v) => (o.requests = Math.floor(num('--requests', v)))),
    '--generator': value((v) => (o.generator = v)),
    '--agentport-args': value((v) => (o.agentportArgs = v)),
    '--agentport-bin': value((v) => (o.agentportBin = path.resolve(v))),
    '--startup-timeout': value((v) => (o.startupTimeout = num('--startup-timeout', v))),
    '--wait-idle': value((v) => (o.waitIdle = num('--wait-idle', v))),
    '--retry-busy': value((v) => (o.retryBusy = Math.floor(num('--retry-busy', v)))),
    '--api-key': flag(() => (o.apiKey = true)),
    '--node-defaults': flag(() => (o.nodeDefaults = true)),
    '--runs': value((v) => (o.runs = Math.max(1, Math.floor(num('--runs', v))))),
    '--out': value((v) => (o.out = path.resolve(v))),
  });
  const memory = o.requests > 0;
  o.targets ??= memory ? ['agentport'] : ['bare', 'a2a-js', 'agentport'];
  o.bindings ??= memory ? ['jsonrpc'] : ['jsonrpc', 'rest'];
  for (const t of o.targets) if (!TARGETS[t]) throw new Error(`unknown target ${t} (${Object.keys(TARGETS).join(', ')})`);
  for (const b of o.bindings) if (!BINDINGS[b]) throw new Error(`unknown binding ${b} (jsonrpc, rest)`);
  if (!['auto', 'wrk', 'autocannon'].includes(o.generator)) throw new Error(`unknown generator ${o.generator}`);
  o.out ??= path.join(RESULTS_DIR, memory ? 'latest-memory.json' : 'latest.json');
  return o;
}

// ---------------------------------------------------------------- workload

const BINDINGS = {
  jsonrpc: {
    label: 'JSON-RPC',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"',
    bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}',
    taskOf: (body) => body?.result?.task,
    errorOf: (body) => body?.error,
  },
  // The same echo as a v0.3 client sends it (slash method, `kind`s, no A2A-Version): measures what
  // translating at the edge costs against 'jsonrpc' (docs/benchmarks.md, v0.3 translation).
  'jsonrpc-v03': {
    label: 'JSON-RPC v0.3',
    headers: { 'Content-Type': 'application/json' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"',
    bodySuffix: '","role":"user","parts":[{"kind":"text","text":"hello"}]}}}',
    taskOf: (body) => (body?.result?.kind === 'task' ? body.result : undefined),
    errorOf: (body) => body?.error,
    completedState: 'completed',
  },
  rest: {
    label: 'HTTP+JSON',
    headers: { 'Content-Type': 'application/a2a+json', 'A2A-Version': '1.0' },
    bodyPrefix: '{"message":{"messageId":"',
    bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]}}',
    taskOf: (body) => body?.task,
    errorOf: (body) => body?.error,
  },
};

const TARGETS = {
  bare: {
    label: 'bare node:http',
    command: ({ port }) => [process.execPath, [path.join('bench', 'targets', 'bare-http.mjs'), '--port', String(port)]],
    paths: { jsonrpc: '/', rest: '/message:send' },
  },
  'a2a-js': {
    label: 'a2a-js 1.3 echo',
    command: ({ port }) => [process.execPath, [path.join('bench', 'targets', 'a2a-js-echo.mjs'), '--port', String(port)]],
    paths: { jsonrpc: '/a2a/jsonrpc', rest: '/a2a/rest/message:send' },
  },
  agentport: {
    label: 'Agentport',
    precheck: (opts) => (existsSync(opts.agentportBin) ? null : `${path.relative(ROOT, opts.agentportBin)} does not exist (not written yet?)`),
    command: ({ port, dataDir, opts }) => [
      process.execPath,
      [
        ...(opts.nodeDefaults ? [] : shippedNodeOptions(opts.agentportBin)),
        opts.agentportBin.startsWith(ROOT + path.sep) ? path.relative(ROOT, opts.agentportBin) : opts.agentportBin,
        'serve',
        '--port',
        String(port),
        '--grpc-port',
        '0',
        '--data-dir',
        dataDir,
        '--auth',
        opts.apiKey ? 'required' : 'none',
        ...(opts.agentportArgs ? opts.agentportArgs.split(/\s+/).filter(Boolean) : []),
      ],
    ],
    paths: { jsonrpc: '/a2a/echo', 'jsonrpc-v03': '/a2a/echo', rest: '/a2a/echo/message:send' },
  },
  // Two processes (node:cluster) over one SQLite file: the multi-process option issue 18 asks to
  // measure (bench/targets/agentport-processes.mjs says what this rig is and is not).
  'agentport-2proc': {
    label: 'Agentport, 2 processes, one SQLite',
    precheck: (opts) => TARGETS.agentport.precheck(opts),
    command: (c) => {
      // the node options stay before the script (node:cluster's workers inherit them); the entry point goes
      const [node, args] = TARGETS.agentport.command(c);
      const entry = args.indexOf('serve') - 1;
      return [node, [...args.slice(0, entry), path.join('bench', 'targets', 'agentport-processes.mjs'), '--workers', '2', ...args.slice(entry + 1)]];
    },
    paths: { jsonrpc: '/a2a/echo', rest: '/a2a/echo/message:send' },
  },
  // The same server with usage records off: what recording every call costs (issue 13: at most 3%).
  'agentport-usage-off': {
    label: 'Agentport, usage off',
    precheck: (opts) => TARGETS.agentport.precheck(opts),
    command: (c) => {
      const file = path.join(c.dataDir, 'usage-off.yaml');
      mkdirSync(c.dataDir, { recursive: true });
      writeFileSync(file, 'usage:\n  enabled: false\n');
      const [node, args] = TARGETS.agentport.command(c);
      return [node, [...args, '--config', file]];
    },
    paths: { jsonrpc: '/a2a/echo', 'jsonrpc-v03': '/a2a/echo', rest: '/a2a/echo/message:send' },
  },
  // The same server with Prometheus metrics off: what counting every call costs (issue 14: at most 3%).
  'agentport-metrics-off': {
    label: 'Agentport, metrics off',
    precheck: (opts) => TARGETS.agentport.precheck(opts),
    command: (c) => {
      const file = path.join(c.dataDir, 'metrics-off.yaml');
      mkdirSync(c.dataDir, { recursive: true });
      writeFileSync(file, 'metrics:\n  enabled: false\n');
      const [node, args] = TARGETS.agentport.command(c);
      return [node, [...args, '--config', file]];
    },
    paths: { jsonrpc: '/a2a/echo', 'jsonrpc-v03': '/a2a/echo', rest: '/a2a/echo/message:send' },
  },
  // The same server with every request traced (sampling ratio 1.0), exported over OTLP/HTTP to a
  // sink in the bench process that accepts and discards: what tracing costs (issue 14: at most 10%).
  'agentport-tracing': {
    label: 'Agentport, tracing',
    precheck: (opts) => TARGETS.agentport.precheck(opts) ?? (otlpSink ? null : 'the OTLP sink is not running'),
    command: (c) => {
      const file = path.join(c.dataDir, 'tracing.yaml');
      mkdirSync(c.dataDir, { recursive: true });
      writeFileSync(file, `tracing:\n  enabled: true\n  endpoint: ${otlpSink.url}\n  samplingRatio: ${c.opts.tracingRatio}\n`);
      const [node, args] = TARGETS.agentport.command(c);
      return [node, [...args, '--config', file]];
    },
    paths: { jsonrpc: '/a2a/echo', 'jsonrpc-v03': '/a2a/echo', rest: '/a2a/echo/message:send' },
  },
};

/** The OTLP/HTTP sink the tracing target exports to: reads each export and answers 200, keeping nothing. */
let otlpSink = null;
/** --tracing-ratio, for the report */
let tracingRatio = 1;

async function startOtlpSink() {
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (d) => (bytes += d.length));
    req.on('end', () => {
      otlpSink.exports++;
      otlpSink.bytes += bytes;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, exports: 0, bytes: 0, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

// ---------------------------------------------------------------- servers

const live = new Set();

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Foreign CPU (cores) above which a run counts as contaminated by other work on the machine. */
const FOREIGN_CPU_LIMIT = 0.15;

class StartError extends Error {}

/** A key for the bench (bench/lib/api-key.mjs); a failure is a start failure of this target. */
function createApiKey(dataDir, opts) {
  try {
    return createBenchKey(opts.agentportBin, dataDir);
  } catch (err) {
    throw new StartError(err.message);
  }
}

async function startServer(name, opts) {
  const t = TARGETS[name];
  const pre = t.precheck?.(opts);
  if (pre) throw new StartError(pre);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `agentport-bench-${name}-`));
  const headers = name.startsWith('agentport') && opts.apiKey ? { 'X-API-Key': createApiKey(dataDir, opts) } : {};
  const [cmd, args] = t.command({ port, dataDir, opts });
  const child = spawn(cmd, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  live.add(child);
  // Always drain the pipes (a chatty logger must never block on a full pipe);
  // keep the tail for error messages.
  let tail = '';
  const keep = (d) => {
    tail = (tail + d).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    live.delete(child);
  });
  child.on('error', (err) => {
    exited = { code: null, signal: null, err };
    live.delete(child);
  });
  const srv = {
    name,
    headers,
    child,
    pid: child.pid,
    port,
    dataDir,
    cmdline: [cmd === process.execPath ? 'node' : cmd, ...args].join(' '),
    tail: () => tail.trim().split('\n').slice(-15).join('\n'),
    exited: () => exited,
  };
  const deadline = Date.now() + opts.startupTimeout * 1000;
  for (;;) {
    if (exited) {
      await stopServer(srv);
      throw new StartError(`exited during start-up (${exited.err ? exited.err.message : `code ${exited.code}, signal ${exited.signal}`})${srv.tail() ? `; output:\n${indent(srv.tail())}` : ''}`);
    }
    if (await canConnect(port)) return srv;
    if (Date.now() > deadline) {
      await stopServer(srv);
      throw new StartError(`did not listen on 127.0.0.1:${port} within ${opts.startupTimeout}s${srv.tail() ? `; output:\n${indent(srv.tail())}` : ''}`);
    }
    await sleep(100);
  }
}

async function stopServer(srv) {
  const { child } = srv;
  if (!srv.exited()) {
    child.kill('SIGTERM');
    const t0 = Date.now();
    while (!srv.exited() && Date.now() - t0 < 5000) await sleep(50);
    if (!srv.exited()) {
      child.kill('SIGKILL');
      while (!srv.exited() && Date.now() - t0 < 7000) await sleep(50);
    }
  }
  rmSync(srv.dataDir, { recursive: true, force: true });
}

function killAll() {
  for (const c of live) {
    try {
      c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

function indent(s) {
  return s
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

// ---------------------------------------------------------------- checks

/** One request; 200 + a COMPLETED task whose artifacts echo "hello". */
async function verify(url, binding, extraHeaders = {}) {
  const b = BINDINGS[binding];
  const body = `${b.bodyPrefix}verify-${randomBytes(6).toString('hex')}${b.bodySuffix}`;
  let res;
  let text;
  try {
    res = await fetch(url, { method: 'POST', headers: { ...b.headers, ...extraHeaders }, body, signal: AbortSignal.timeout(10_000) });
    text = await res.text();
  } catch (err) {
    return { ok: false, reason: `request failed: ${err.cause?.message ?? err.message}` };
  }
  const snippet = text.length > 400 ? `${text.slice(0, 400)}…` : text;
  if (res.status !== 200) return { ok: false, reason: `HTTP ${res.status}: ${snippet}` };
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: `response is not JSON: ${snippet}` };
  }
  const err = b.errorOf(json);
  if (err) return { ok: false, reason: `error response: ${JSON.stringify(err).slice(0, 400)}` };
  const task = b.taskOf(json);
  if (!task) return { ok: false, reason: `no task in response: ${snippet}` };
  const completed = b.completedState ?? 'TASK_STATE_COMPLETED';
  if (task.status?.state !== completed) {
    return { ok: false, reason: `task state is ${task.status?.state}, expected ${completed}: ${snippet}` };
  }
  const echoed = (task.artifacts ?? []).some((a) => (a.parts ?? []).some((p) => p.text === 'hello'));
  if (!echoed) return { ok: false, reason: `no artifact part with the echoed text "hello": ${snippet}` };
  return { ok: true, responseBytes: Buffer.byteLength(text) };
}

// ---------------------------------------------------------------- measuring

/**
 * The machine is shared (other people's builds and tests land on the same two
 * cores), so: wait a while for it to be quiet before a run, and afterwards
 * report how much CPU was used by processes other than the server under test,
 * the load generator and this harness ("foreign" CPU).
 */
async function waitForIdle(maxS) {
  const t0 = Date.now();
  let idlePct = null;
  let quiet = 0;
  for (;;) {
    const a = machineCpuSeconds();
    await sleep(1000);
    const b = machineCpuSeconds();
    if (!a || !b) return { idlePct: null, waitedS: 0 };
    const total = b.total - a.total;
    idlePct = total > 0 ? Math.round((1 - (b.busy - a.busy) / total) * 1000) / 10 : null;
    quiet = idlePct != null && idlePct >= 85 ? quiet + 1 : 0;
    const waitedS = Math.round((Date.now() - t0) / 100) / 10;
    // two quiet seconds in a row, so a short lull between someone's test files doesn't count
    if (idlePct == null || quiet >= 2 || waitedS >= maxS) return { idlePct, waitedS };
  }
}

function cpuProbe(pid) {
  return { t: Date.now(), machine: machineCpuSeconds(), self: selfAndReapedChildrenCpuSeconds(), server: treeCpuSeconds(pid) };
}

/** Foreign CPU (cores) between two probes: machine busy - server - harness/generator. */
function foreignCores(a, b) {
  if (!a.machine || !b.machine || a.self == null || b.self == null || a.server == null || b.server == null) return null;
  const wall = (b.t - a.t) / 1000;
  const foreign = b.machine.busy - a.machine.busy - (b.server - a.server) - (b.self - a.self);
  return Math.max(0, Math.round((foreign / wall) * 100) / 100);
}

function loadOptions(url, binding, { headers, ...extra }) {
  const b = BINDINGS[binding];
  return {
    url,
    headers: { ...b.headers, ...headers },
    bodyPrefix: b.bodyPrefix,
    bodySuffix: b.bodySuffix,
    runId: randomBytes(4).toString('hex'),
    ...extra,
  };
}

function generate(gen, o) {
  return gen === 'wrk' ? runWrk(o) : runAutocannon(o);
}

const mb = (kb) => (kb == null ? null : Math.round((kb / 1024) * 10) / 10);

async function measureThroughput(srv, binding, opts, gen) {
  const url = `http://127.0.0.1:${srv.port}${TARGETS[srv.name].paths[binding]}`;
  const rssBefore = treeRss(srv.pid);
  if (opts.warmup > 0) {
    await generate(gen, loadOptions(url, binding, { headers: srv.headers, connections: opts.connections, threads: opts.threads, durationS: opts.warmup }));
  }
  const rssAfterWarmup = treeRss(srv.pid);
  const p0 = cpuProbe(srv.pid);
  const r = await generate(gen, loadOptions(url, binding, { headers: srv.headers, connections: opts.connections, threads: opts.threads, durationS: opts.duration }));
  const p1 = cpuProbe(srv.pid);
  const cpu0 = p0.server;
  const cpu1 = p1.server;
  const rssAfter = treeRss(srv.pid);
  if (srv.exited()) throw new Error(`server exited during the run; output:\n${indent(srv.tail())}`);
  return {
    ...loadSummary(url, r),
    serverCpuUsPerRequest: cpu0 != null && cpu1 != null && r.requests ? ((cpu1 - cpu0) * 1e6) / r.requests : null,
    serverCpuCores: cpu0 != null && cpu1 != null ? (cpu1 - cpu0) / r.durationS : null,
    generatorAndHarnessCpuCores: p0.self != null && p1.self != null ? (p1.self - p0.self) / ((p1.t - p0.t) / 1000) : null,
    foreignCpuCores: foreignCores(p0, p1),
    rssMb: { before: mb(rssBefore?.totalKb), afterWarmup: mb(rssAfterWarmup?.totalKb), after: mb(rssAfter?.totalKb) },
    serverProcesses: rssAfter?.processes ?? null,
  };
}

/** What every measurement reports of its load run. */
function loadSummary(url, r) {
  return {
    url,
    generator: r.generator,
    requests: r.requests,
    durationS: r.durationS,
    rps: r.rps,
    latencyMs: r.latencyMs,
    errors: r.errors,
    errorsTotal: r.errorsTotal,
  };
}

async function measureMemory(srv, binding, opts, gen) {
  const url = `http://127.0.0.1:${srv.port}${TARGETS[srv.name].paths[binding]}`;
  const rssStart = treeRss(srv.pid);
  if (opts.warmup > 0) {
    await generate(gen, loadOptions(url, binding, { headers: srv.headers, connections: opts.connections, threads: opts.threads, durationS: opts.warmup }));
  }
  await sleep(1000);
  const rssBefore = treeRss(srv.pid);
  const samples = [];
  let completed = 0;
  const p0 = cpuProbe(srv.pid);
  const t0 = Date.now();
  let lastPrint = 0;
  const sampler = setInterval(() => {
    const r = treeRss(srv.pid);
    if (!r) return;
    const s = { t: Math.round((Date.now() - t0) / 100) / 10, completed, rssMb: mb(r.totalKb) };
    samples.push(s);
    if (process.stdout.isTTY || s.t - lastPrint >= 10) {
      lastPrint = s.t;
      const pct = ((completed / opts.requests) * 100).toFixed(1);
      process.stdout.write(`    t=${s.t}s ${completed}/${opts.requests} (${pct}%) RSS ${s.rssMb} MB\n`);
    }
  }, 1000);
  let r;
  try {
    r = await runAutocannon(
      loadOptions(url, binding, {
        headers: srv.headers,
        connections: opts.connections,
        amount: opts.requests,
        onProgress: (n) => {
          completed = n;
        },
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  const p1 = cpuProbe(srv.pid);
  const rssAfter = treeRss(srv.pid);
  await sleep(5000);
  const rssSettled = treeRss(srv.pid);
  if (srv.exited()) throw new Error(`server exited during the run; output:\n${indent(srv.tail())}`);
  const peak = Math.max(...samples.map((s) => s.rssMb), mb(rssAfter?.totalKb) ?? 0);
  const before = mb(rssBefore?.totalKb);
  const after = mb(rssAfter?.totalKb);
  const settled = mb(rssSettled?.totalKb);
  return {
    ...loadSummary(url, r),
    foreignCpuCores: foreignCores(p0, p1),
    rssMb: { start: mb(rssStart?.totalKb), before, after, settled5s: settled, peak },
    growthMb: after != null && before != null ? Math.round((after - before) * 10) / 10 : null,
    growthBytesPerRequest: settled != null && before != null && r.requests ? Math.round(((settled - before) * 1024 * 1024) / r.requests) : null,
    samples,
  };
}

// ---------------------------------------------------------------- output

function fmt(n, digits = 0) {
  if (n == null || Number.isNaN(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function table(headers, rows) {
  if (!rows.length) return '(no results)';
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  return [line(headers), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

function ratio(a, b) {
  return a != null && b ? Math.round((a / b) * 1000) / 1000 : null;
}

function computeRatios(results) {
  const out = {};
  for (const binding of Object.keys(BINDINGS)) {
    const rps = (t) => results.find((r) => r.target === t && r.binding === binding && r.rps != null)?.rps;
    const cpu = (t) => results.find((r) => r.target === t && r.binding === binding && r.rps != null)?.serverCpuUsPerRequest;
    const ap = rps('agentport');
    const js = rps('a2a-js');
    const bare = rps('bare');
    if (ap == null && js == null && bare == null) continue;
    out[binding] = {
      agentportOverA2aJs: ratio(ap, js),
      agentportOverBare: ratio(ap, bare),
      a2aJsOverBare: ratio(js, bare),
      usageOnOverOff: ratio(ap, rps('agentport-usage-off')),
      metricsOnOverOff: ratio(ap, rps('agentport-metrics-off')),
      // server CPU per request, on over off: >1 is what metrics cost per call, less sensitive to a busy machine than req/s
      metricsCpuOnOverOff: ratio(cpu('agentport'), cpu('agentport-metrics-off')),
      tracingOnOverOff: ratio(rps('agentport-tracing'), ap),
    };
  }
  return out;
}

/** Agentport's v0.3 JSON-RPC echo against its v1.0 one, from the same run; undefined unless both ran. */
function v03TranslationRatio(results) {
  const of = (b) => results.find((r) => r.target === 'agentport' && r.binding === b && r.rps != null);
  const v1 = of('jsonrpc');
  const v03 = of('jsonrpc-v03');
  if (!v1 || !v03) return undefined;
  const rpsRatio = ratio(v03.rps, v1.rps);
  return {
    rpsRatio,
    cpuRatio: v1.serverCpuUsPerRequest && v03.serverCpuUsPerRequest ? ratio(v03.serverCpuUsPerRequest, v1.serverCpuUsPerRequest) : null,
  };
}

function printThroughput(results, ratios, skipped) {
  const rows = results.map((r) => {
    const bareRps = results.find((x) => x.target === 'bare' && x.binding === r.binding)?.rps;
    const jsRps = results.find((x) => x.target === 'a2a-js' && x.binding === r.binding)?.rps;
    return [
      TARGETS[r.target].label,
      BINDINGS[r.binding].label,
      fmt(r.rps),
      fmt(r.latencyMs.p50, 2),
      fmt(r.latencyMs.p99, 2),
      r.errorsTotal ? `${r.errorsTotal} (${r.errors.non2xx} non-2xx)` : '0',
      fmt(r.rssMb.before, 1),
      fmt(r.rssMb.after, 1),
      fmt(r.serverCpuUsPerRequest),
      `${fmt(r.foreignCpuCores, 2)}${r.contaminated ? ' (!)' : ''}`,
      jsRps ? `${fmt(r.rps / jsRps, 2)}x` : 'n/a',
      bareRps ? `${fmt(r.rps / bareRps, 3)}x` : 'n/a',
    ];
  });
  process.stdout.write(`\n${table(['target', 'binding', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MB before', 'RSS MB after', 'srv CPU us/req', 'foreign CPU', 'vs a2a-js', 'vs bare'], rows)}\n`);
  if (results.some((r) => r.contaminated)) {
    process.stdout.write(`(!) other processes used more than ${FOREIGN_CPU_LIMIT} cores during this run: figures are contaminated\n`);
  }
  for (const [binding, r] of Object.entries(ratios)) {
    process.stdout.write(`${BINDINGS[binding].label}: agentport/a2a-js = ${r.agentportOverA2aJs ?? 'n/a'}, ` + `agentport/bare = ${r.agentportOverBare ?? 'n/a'}, a2a-js/bare = ${r.a2aJsOverBare ?? 'n/a'}\n`);
    if (r.usageOnOverOff != null) process.stdout.write(`${BINDINGS[binding].label}: usage records on/off = ${r.usageOnOverOff} (cost of recording: ${fmt((1 - r.usageOnOverOff) * 100, 1)}%)\n`);
    if (r.metricsOnOverOff != null) {
      process.stdout.write(
        `${BINDINGS[binding].label}: metrics on/off = ${r.metricsOnOverOff} (cost of metrics: ${fmt((1 - r.metricsOnOverOff) * 100, 1)}%); server CPU per request on/off = ${r.metricsCpuOnOverOff ?? 'n/a'}\n`,
      );
    }
    if (r.tracingOnOverOff != null) process.stdout.write(`${BINDINGS[binding].label}: tracing at ratio ${tracingRatio} / off = ${r.tracingOnOverOff} (cost of tracing: ${fmt((1 - r.tracingOnOverOff) * 100, 1)}%)\n`);
  }
  const v03 = v03TranslationRatio(results);
  if (v03)
    process.stdout.write(
      `v0.3 translation: agentport JSON-RPC v0.3 / v1.0: req/s x${v03.rpsRatio}, server CPU per request x${v03.cpuRatio} (fresh servers one after the other; bench/v03-translation.js measures A/B on one server)\n`,
    );
  printSkipped(skipped);
}

function printMemory(results, skipped) {
  const rows = results.map((r) => [
    TARGETS[r.target].label,
    BINDINGS[r.binding].label,
    fmt(r.requests),
    fmt(r.rps),
    r.errorsTotal ? `${r.errorsTotal} (${r.errors.non2xx} non-2xx)` : '0',
    fmt(r.rssMb.before, 1),
    fmt(r.rssMb.peak, 1),
    fmt(r.rssMb.after, 1),
    fmt(r.rssMb.settled5s, 1),
    fmt(r.growthMb, 1),
    fmt(r.growthBytesPerRequest),
  ]);
  process.stdout.write(`\n${table(['target', 'binding', 'requests', 'req/s', 'errors', 'RSS MB before', 'peak', 'after', 'after +5s', 'growth MB', 'B/request'], rows)}\n`);
  printSkipped(skipped);
}

function printSkipped(skipped) {
  for (const s of skipped) process.stdout.write(`SKIPPED ${s.target}${s.binding ? ` (${s.binding})` : ''}: ${s.reason}\n`);
}

// ---------------------------------------------------------------- one run

/** Fresh server, verify, wait for quiet, measure, stop. */
async function runOnce(target, binding, opts, gen, memory) {
  let srv;
  try {
    srv = await startServer(target, opts);
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    return { startFailed: true, reason: `failed to start: ${err.message}` };
  }
  try {
    process.stdout.write(`  started pid ${srv.pid} on port ${srv.port}: ${srv.cmdline}\n`);
    const url = `http://127.0.0.1:${srv.port}${TARGETS[target].paths[binding]}`;
    let v;
    for (let attempt = 0; attempt < 5; attempt++) {
      v = await verify(url, binding, srv.headers);
      if (v.ok) break;
      await sleep(500);
    }
    if (!v.ok) return { reason: `verification failed at POST ${TARGETS[target].paths[binding]}: ${v.reason}` };
    process.stdout.write(`  verified: 200, COMPLETED task echoing "hello" (${v.responseBytes} B response)\n`);
    let idle = null;
    if (opts.waitIdle > 0) {
      idle = await waitForIdle(opts.waitIdle);
      if (idle.idlePct != null && idle.idlePct < 85) {
        process.stdout.write(`  WARNING: machine only ${idle.idlePct}% idle after waiting ${idle.waitedS}s; measuring anyway\n`);
      } else if (idle.waitedS > 3) {
        process.stdout.write(`  waited ${idle.waitedS}s for the machine to be idle\n`);
      }
    }
    const m = memory ? await measureMemory(srv, binding, opts, gen) : await measureThroughput(srv, binding, opts, gen);
    process.stdout.write(`  ${fmt(m.rps)} req/s, p50 ${fmt(m.latencyMs.p50, 2)} ms, p99 ${fmt(m.latencyMs.p99, 2)} ms, ` + `errors ${m.errorsTotal}, RSS ${fmt(m.rssMb.before, 1)} -> ${fmt(m.rssMb.after, 1)} MB\n`);
    if (m.foreignCpuCores != null && m.foreignCpuCores > FOREIGN_CPU_LIMIT) {
      process.stdout.write(`  WARNING: other processes used ${m.foreignCpuCores} cores during the run; these figures are contaminated\n`);
    }
    if (m.errorsTotal) process.stdout.write(`  WARNING: ${m.errorsTotal} errors: ${JSON.stringify(m.errors)}\n`);
    return { row: { target, binding, ...m, responseBytes: v.responseBytes, idleBeforePct: idle?.idlePct ?? null } };
  } catch (err) {
    return { reason: `run failed: ${err.message}` };
  } finally {
    await stopServer(srv);
  }
}

// ---------------------------------------------------------------- main

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  const memory = opts.requests > 0;
  const wrk = ensureWrk();
  let gen = opts.generator;
  if (gen === 'auto') gen = wrk ? 'wrk' : 'autocannon';
  if (gen === 'wrk' && !wrk) {
    process.stderr.write('wrk is not installed (apt-get install -y wrk), use --generator autocannon\n');
    process.exit(2);
  }
  const cpus = os.cpus();
  const machine = {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    generator: gen === 'wrk' ? `wrk ${wrk}` : `autocannon ${autocannonVersion() ?? '?'}`,
    note: 'load generator and servers share the same cores (loopback)',
  };
  process.stdout.write(
    `Agentport bench: ${memory ? `memory mode, ${fmt(opts.requests)} requests` : `${opts.duration}s measured after ${opts.warmup}s warm-up`}, ` +
      `${opts.connections} connections, generator ${machine.generator}${gen === 'wrk' ? ` -t${opts.threads}` : ''}\n` +
      `machine: ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GB, ${machine.kernel}, node ${machine.node}\n` +
      `targets: ${opts.targets.join(', ')}; bindings: ${opts.bindings.join(', ')}\n`,
  );
  if (memory) process.stdout.write('(memory mode uses autocannon in a child process: wrk cannot stop after N requests)\n');

  if (opts.targets.includes('agentport-tracing')) otlpSink = await startOtlpSink();
  tracingRatio = opts.tracingRatio;
  const startedAt = new Date().toISOString();
  const results = [];
  const skipped = [];
  for (const target of opts.targets) {
    let targetFailed = false;
    for (const binding of opts.bindings) {
      if (targetFailed) break;
      const tag = `${TARGETS[target].label} / ${BINDINGS[binding].label}`;
      process.stdout.write(`\n== ${tag}\n`);
      if (!TARGETS[target].paths[binding]) {
        skipped.push({ target, binding, reason: `${TARGETS[target].label} does not serve ${BINDINGS[binding].label}` });
        continue;
      }
      const runs = [];
      for (let run = 1; run <= (memory ? 1 : opts.runs); run++) {
        if (opts.runs > 1 && !memory) process.stdout.write(`  -- run ${run}/${opts.runs}\n`);
        let out;
        let best = null;
        for (let attempt = 0; ; attempt++) {
          out = await runOnce(target, binding, opts, gen, memory);
          if (!out.row) break;
          const busy = out.row.foreignCpuCores != null && out.row.foreignCpuCores > FOREIGN_CPU_LIMIT;
          out.row.contaminated = busy;
          if (!best || (out.row.foreignCpuCores ?? 0) < (best.row.foreignCpuCores ?? 0)) best = out;
          if (!busy || memory || attempt >= opts.retryBusy) {
            out = best;
            break;
          }
          process.stdout.write(`  retrying: the machine was busy (retry ${attempt + 1}/${opts.retryBusy})\n`);
        }
        if (out.startFailed) {
          process.stdout.write(`  SKIP ${TARGETS[target].label}: ${out.reason}\n`);
          skipped.push({ target, reason: out.reason });
          targetFailed = true; // same process, same failure: don't retry for the other binding
          break;
        }
        if (out.reason) {
          process.stdout.write(`  SKIP: ${out.reason}\n`);
          skipped.push({ target, binding, run, reason: out.reason });
          break;
        }
        runs.push(out.row);
        await sleep(500);
      }
      if (!runs.length) continue;
      // Headline = the run with the median req/s among the undisturbed runs (all
      // runs if none was undisturbed); every run is kept in `runs`.
      const clean = runs.filter((r) => !r.contaminated);
      const sorted = [...(clean.length ? clean : runs)].sort((a, b) => a.rps - b.rps);
      const median = sorted[Math.floor((sorted.length - 1) / 2)];
      const row = { ...median, cleanRuns: clean.length };
      if (runs.length > 1) {
        row.runs = runs.map((r) => ({
          rps: r.rps,
          p50Ms: r.latencyMs.p50,
          p99Ms: r.latencyMs.p99,
          errorsTotal: r.errorsTotal,
          foreignCpuCores: r.foreignCpuCores,
          contaminated: r.contaminated,
          rssMbAfter: r.rssMb.after,
        }));
        process.stdout.write(`  median of ${sorted.length} ${clean.length ? 'undisturbed ' : ''}runs: ${fmt(row.rps)} req/s ` + `(all: ${runs.map((r) => `${fmt(r.rps)}${r.contaminated ? ' (!)' : ''}`).join(' / ')})\n`);
      }
      results.push(row);
    }
  }

  const ratios = memory ? undefined : computeRatios(results);
  const report = {
    mode: memory ? 'memory' : 'throughput',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    config: {
      durationS: memory ? undefined : opts.duration,
      warmupS: opts.warmup,
      connections: opts.connections,
      threads: gen === 'wrk' ? opts.threads : undefined,
      runs: memory ? 1 : opts.runs,
      requests: memory ? opts.requests : undefined,
      targets: opts.targets,
      bindings: opts.bindings,
      workload: 'blocking SendMessage echo, unique messageId per request, A2A-Version: 1.0',
    },
    results,
    ratios,
    v03Translation: memory ? undefined : v03TranslationRatio(results),
    // what the tracing target exported (a sink that received nothing would make its figure meaningless)
    otlpSink: otlpSink ? { tracingRatio, exports: otlpSink.exports, bytes: otlpSink.bytes } : undefined,
    skipped,
  };
  if (otlpSink) {
    process.stdout.write(`OTLP sink: ${otlpSink.exports} exports, ${fmt(otlpSink.bytes / 1e6, 1)} MB received from the tracing target\n`);
    await otlpSink.close();
  }
  mkdirSync(path.dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
  if (memory) printMemory(results, skipped);
  else printThroughput(results, ratios, skipped);
  process.stdout.write(`\nwrote ${path.relative(process.cwd(), opts.out) || opts.out}\n`);
  process.exitCode = results.length ? 0 : 1;
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
