#!/usr/bin/env node
// Distributed-mode benchmark: `npm run bench:cluster` (= node bench/cluster.js).
//
// 1. Throughput: blocking JSON-RPC SendMessage echo against 1, 2 and 3 replicas of the real CLI on
//    the machine's PostgreSQL and Redis, the load spread round-robin over the replicas (wrk: one
//    thread per replica; autocannon: connections assigned to the replicas in turn).
// 2. Event latency: a task on replica A emits timestamped artifact chunks; streaming subscribers on
//    A and on B record when each event arrives. Delivery on A happens synchronously at commit (the
//    local bus), so "A → B" is the time from commit on A to delivery on B; "emit → B" adds the
//    commit itself (group commit to PostgreSQL).
//
// Each replica count gets a fresh PostgreSQL schema (dropped afterwards) and Redis channel prefix.
// Run with --help for the options. Needs dist/ (`npm run build`).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { autocannonVersion, runAutocannon, ensureWrk } from './lib/load.mjs';
import { machineCpuSeconds, selfAndReapedChildrenCpuSeconds } from './lib/proc.mjs';
import { freePort, sleep } from './lib/net.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'agentport.js');
const AGENT = path.join(ROOT, 'test', 'fixtures', 'agents', 'cluster-agent.mjs');

const HELP = `Usage: npm run bench:cluster -- [options]      (or: node bench/cluster.js [options])

  --replicas LIST      replica counts for the throughput runs (default 1,2,3)
  --duration S         measured seconds per replica count (default 10)
  --warmup S           warm-up seconds before measuring (default 3)
  --connections N      keep-alive connections in total (default 48, spread over the replicas)
  --generator G        auto | wrk | autocannon (default auto: wrk, installed from Debian's packages when missing and root; else autocannon)
  --events N           events in the latency run (default 500)
  --interval-ms MS     time between events in the latency run (default 10)
  --latency-replicas N replicas in the latency run (default 2: A runs the task, B subscribes)
  --skip-throughput    only the latency run
  --skip-latency       only the throughput runs
  --pg-url URL         PostgreSQL (default postgres://postgres@127.0.0.1:5432/test)
  --redis-url URL      Redis (default redis://127.0.0.1:6379)
  --out FILE           results JSON (default bench/results/cluster-latest.json)
  --help
`;

function parseArgs(argv) {
  const o = {
    replicas: [1, 2, 3],
    duration: 10,
    warmup: 3,
    connections: 48,
    generator: 'auto',
    events: 500,
    intervalMs: 10,
    latencyReplicas: 2,
    skipThroughput: false,
    skipLatency: false,
    pgUrl: 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: 'redis://127.0.0.1:6379',
    out: path.join(ROOT, 'bench', 'results', 'cluster-latest.json'),
  };
  const num = (name, v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a non-negative number, got ${v}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--replicas':
        o.replicas = next()
          .split(',')
          .map((s) => Math.max(1, Math.floor(num(a, s))));
        break;
      case '--duration':
        o.duration = num(a, next());
        break;
      case '--warmup':
        o.warmup = num(a, next());
        break;
      case '--connections':
        o.connections = Math.max(1, Math.floor(num(a, next())));
        break;
      case '--generator':
        o.generator = next();
        break;
      case '--events':
        o.events = Math.max(1, Math.floor(num(a, next())));
        break;
      case '--interval-ms':
        o.intervalMs = Math.floor(num(a, next()));
        break;
      case '--latency-replicas':
        o.latencyReplicas = Math.max(2, Math.floor(num(a, next())));
        break;
      case '--skip-throughput':
        o.skipThroughput = true;
        break;
      case '--skip-latency':
        o.skipLatency = true;
        break;
      case '--pg-url':
        o.pgUrl = next();
        break;
      case '--redis-url':
        o.redisUrl = next();
        break;
      case '--out':
        o.out = path.resolve(next());
        break;
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${a} (see --help)`);
    }
  }
  if (!['auto', 'wrk', 'autocannon'].includes(o.generator)) throw new Error(`unknown generator ${o.generator}`);
  return o;
}

const log = (msg) => process.stderr.write(`${msg}\n`);

// ---------------------------------------------------------------- a deployment of N replicas

const live = new Set();

async function startDeployment(n, o) {
  const stamp = `${Date.now().toString(36)}_${process.pid}`;
  const schema = `bench_${stamp}`;
  const prefix = `bench-${stamp}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-cluster-'));
  const replicas = [];
  for (let i = 0; i < n; i++) {
    const id = String.fromCharCode(65 + i);
    const rdir = path.join(dir, id);
    mkdirSync(path.join(rdir, 'data'), { recursive: true });
    const port = await freePort();
    const grpcPort = await freePort();
    const configFile = path.join(rdir, 'agentport.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        server: { host: '127.0.0.1', port, dataDir: path.join(rdir, 'data'), logLevel: 'warn', grpc: { port: grpcPort } },
        // application_name marks this deployment's backends, so the CPU breakdown can tell them
        // from other clients of a shared PostgreSQL server.
        storage: { driver: 'postgres', url: withApplicationName(o.pgUrl, schema), schema, maxConnections: 10 },
        bus: { driver: 'redis', url: o.redisUrl, prefix },
        cluster: { replicaId: id },
        auth: { mode: 'none' },
        agents: [
          { id: 'echo', builtin: 'echo' },
          { id: 'work', module: AGENT },
        ],
      }),
    );
    replicas.push({ id, port, configFile, base: `http://127.0.0.1:${port}`, proc: null, out: '' });
  }
  const env = { ...process.env, NODE_ENV: 'production' };
  delete env.AGENTPORT_CONFIG;
  execFileSync(process.execPath, [BIN, 'db', 'migrate', '--config', replicas[0].configFile], { env, stdio: 'pipe', timeout: 60_000 });
  for (const r of replicas) {
    r.proc = spawn(process.execPath, [BIN, 'serve', '--config', r.configFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(r.proc);
    const keep = (b) => (r.out = (r.out + b.toString('utf8')).slice(-8_000));
    r.proc.stdout.on('data', keep);
    r.proc.stderr.on('data', keep);
    r.proc.on('exit', () => live.delete(r.proc));
  }
  for (const r of replicas) await waitReady(r);
  return {
    replicas,
    schema,
    async stop() {
      await Promise.all(
        replicas.map(
          (r) =>
            new Promise((resolve) => {
              if (!r.proc || r.proc.exitCode !== null || r.proc.signalCode !== null) return resolve();
              r.proc.once('exit', resolve);
              r.proc.kill('SIGTERM');
              setTimeout(() => r.proc.kill('SIGKILL'), 5_000).unref();
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
      await dropSchema(o.pgUrl, schema).catch((err) => log(`could not drop schema ${schema}: ${err.message}`));
    },
  };
}

async function waitReady(r, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (r.proc.exitCode !== null || r.proc.signalCode !== null) throw new Error(`replica ${r.id} exited during start-up:\n${r.out}`);
    try {
      const res = await fetch(`${r.base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`replica ${r.id} not ready after ${timeoutMs} ms:\n${r.out}`);
}

function withApplicationName(url, name) {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

/**
 * PostgreSQL processes that count as this deployment's: its own backends (by application_name) and
 * the server's shared background processes (WAL writer, checkpointer…). Backends of other clients
 * of the same server are left to "other".
 */
async function postgresPidsOf(url, applicationName) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query("select pid from pg_stat_activity where application_name = $1 or backend_type <> 'client backend'", [applicationName]);
    return new Set(rows.map((r) => Number(r.pid)));
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

async function dropSchema(url, schema) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end().catch(() => {});
  }
}

// ---------------------------------------------------------------- where the CPU goes

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds so far of every live process, by pid: { comm, cpu }. Linux only (else empty). */
function processCpu() {
  const out = new Map();
  let names = [];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const n of names) {
    try {
      const raw = readFileSync(`/proc/${n}/stat`, 'utf8');
      const comm = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
      const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      out.set(Number(n), { comm, cpu: (Number(rest[11]) + Number(rest[12])) / CLK_TCK });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * Cores used per group between two snapshots: the replicas, PostgreSQL, Redis, the generator, the
 * rest. postgresPids, when known, limits "PostgreSQL" to this deployment's processes.
 */
function cpuBreakdown(before, after, replicaPids, seconds, postgresPids) {
  const groups = { replicas: 0, postgres: 0, redis: 0, generator: 0, other: 0 };
  for (const [pid, a] of after) {
    const used = a.cpu - (before.get(pid)?.cpu ?? 0);
    if (used <= 0) continue;
    if (replicaPids.has(pid)) groups.replicas += used;
    else if ((a.comm === 'postgres' || a.comm === 'postmaster') && (!postgresPids || postgresPids.has(pid))) groups.postgres += used;
    else if (a.comm.startsWith('redis-server')) groups.redis += used;
    else if (pid === process.pid)
      continue; // counted with the generator (selfAndReapedChildrenCpuSeconds)
    else groups.other += used;
  }
  for (const k of Object.keys(groups)) groups[k] = groups[k] / seconds;
  return groups;
}

// ---------------------------------------------------------------- throughput

const BODY_PREFIX = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"';
const BODY_SUFFIX = '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}';
const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

function luaString(s) {
  let eq = '=';
  while (s.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${s}]${eq}]`;
}

/** wrk with one thread per replica (thread.addr): connections are split evenly over the replicas. */
async function runWrkRoundRobin(urls, connections, durationS, runId) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-wrk-'));
  const script = path.join(dir, 'rr.lua');
  const addrs = urls.map((u) => new URL(u)).map((u) => `{ ${luaString(u.hostname)}, ${luaString(u.port)} }`);
  writeFileSync(
    script,
    `wrk.method = "POST"
${Object.entries(HEADERS)
  .map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`)
  .join('\n')}
local addrs = { ${addrs.join(', ')} }
local prefix = ${luaString(BODY_PREFIX)}
local suffix = ${luaString(BODY_SUFFIX)}
local run = ${luaString(runId)}
local nthreads = 0
local counter = 0
function setup(thread)
  nthreads = nthreads + 1
  local a = addrs[((nthreads - 1) % #addrs) + 1]
  thread.addr = wrk.lookup(a[1], a[2])[1]
  thread:set("tid", nthreads)
end
function request()
  counter = counter + 1
  return wrk.format(nil, nil, nil, prefix .. run .. "-" .. (tid or 0) .. "-" .. counter .. suffix)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%.0f,"durationUs":%.0f,"errors":%.0f,"p50":%.0f,"p99":%.0f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`,
  );
  try {
    const threads = urls.length;
    const conns = Math.max(threads, Math.round(connections / threads) * threads);
    const out = await new Promise((resolve, reject) => {
      const child = spawn('wrk', [`-t${threads}`, `-c${conns}`, `-d${durationS}s`, '--timeout', '10s', '-s', script, urls[0]], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`wrk exited ${code}: ${stderr.slice(-500)}`))));
    });
    const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
    if (!line) throw new Error(`wrk printed no summary: ${out.slice(-500)}`);
    const j = JSON.parse(line.slice('WRK_JSON '.length));
    const durationS2 = j.durationUs / 1e6;
    return { generator: 'wrk', requests: j.requests, rps: j.requests / durationS2, p50: j.p50 / 1000, p99: j.p99 / 1000, errors: j.errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runLoad(generator, urls, connections, durationS, runId) {
  if (generator === 'wrk') return runWrkRoundRobin(urls, connections, durationS, runId);
  // autocannon assigns its connections to the URLs in turn (connection i → urls[i % n]).
  const conns = Math.max(urls.length, Math.round(connections / urls.length) * urls.length);
  const r = await runAutocannon({ url: urls, connections: conns, durationS, headers: HEADERS, bodyPrefix: BODY_PREFIX, bodySuffix: BODY_SUFFIX, runId });
  return { generator: 'autocannon', requests: r.requests, rps: r.rps, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errors: r.errorsTotal };
}

async function verifyEcho(r) {
  const res = await fetch(`${r.base}/a2a/echo`, { method: 'POST', headers: HEADERS, body: `${BODY_PREFIX}verify-${r.id}${BODY_SUFFIX}` });
  const body = await res.json();
  if (res.status !== 200 || body?.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(`replica ${r.id} answered the verification request with ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

async function throughput(n, o, generator) {
  log(`throughput: starting ${n} replica(s)…`);
  const d = await startDeployment(n, o);
  try {
    for (const r of d.replicas) await verifyEcho(r);
    const urls = d.replicas.map((r) => `${r.base}/a2a/echo`);
    if (o.warmup > 0) await runLoad(generator, urls, o.connections, o.warmup, `warm${n}`);
    const cpu0 = machineCpuSeconds();
    const procs0 = processCpu();
    const t0 = Date.now();
    // The generator has exited by the second snapshot: its CPU is this process's reaped-children time.
    const self0 = selfAndReapedChildrenCpuSeconds();
    const res = await runLoad(generator, urls, o.connections, o.duration, `run${n}-${Date.now().toString(36)}`);
    const wall = (Date.now() - t0) / 1000;
    const cpu1 = machineCpuSeconds();
    const procs1 = processCpu();
    const replicaPids = new Set(d.replicas.map((r) => r.proc.pid));
    const cores = cpuBreakdown(procs0, procs1, replicaPids, wall, await postgresPidsOf(o.pgUrl, d.schema));
    const self1 = selfAndReapedChildrenCpuSeconds();
    cores.generator = self0 !== null && self1 !== null ? (self1 - self0) / wall : NaN;
    const machineCores = cpu0 && cpu1 ? (cpu1.busy - cpu0.busy) / wall : null;
    const row = { replicas: n, ...res, replicaCores: cores.replicas, cores, machineCores };
    log(
      `  ${n} replica(s): ${res.rps.toFixed(0)} req/s, p50 ${res.p50} ms, p99 ${res.p99} ms, errors ${res.errors}; cores: ` +
        Object.entries(cores)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', '),
    );
    return row;
  } finally {
    await d.stop();
  }
}

// ---------------------------------------------------------------- event latency

/** Opens a streaming SubscribeToTask and calls onEvent(data, receivedAtMs) for each event. */
async function subscribeTimed(base, taskId, onEvent) {
  const ac = new AbortController();
  const res = await fetch(`${base}/a2a/work/tasks/${encodeURIComponent(taskId)}:subscribe`, {
    headers: { 'A2A-Version': '1.0', Accept: 'text/event-stream' },
    signal: ac.signal,
  });
  if (res.status !== 200) throw new Error(`subscribe on ${base}: HTTP ${res.status} ${await res.text()}`);
  const done = (async () => {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done: eof } = await reader.read();
        if (eof) return;
        const at = performance.timeOrigin + performance.now();
        buf += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (data) onEvent(JSON.parse(data), at);
        }
      }
    } catch {
      // aborted
    }
  })();
  return { done, close: () => ac.abort() };
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

async function latency(o) {
  log(`latency: starting ${o.latencyReplicas} replicas, ${o.events} events every ${o.intervalMs} ms on A…`);
  const d = await startDeployment(o.latencyReplicas, o);
  try {
    const [A, B] = d.replicas;
    const send = await fetch(`${A.base}/a2a/work`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId: `lat-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: `ticks ${o.events} ${o.intervalMs}` }] },
          configuration: { returnImmediately: true },
        },
      }),
    });
    const taskId = (await send.json())?.result?.task?.id;
    if (!taskId) throw new Error('the latency task was not created');
    const seen = { A: new Map(), B: new Map() };
    const emitted = new Map();
    const record = (who) => (data, at) => {
      const text = data?.artifactUpdate?.artifact?.parts?.[0]?.text;
      const m = typeof text === 'string' ? /^tick (\d+) ([\d.]+)$/.exec(text) : null;
      if (!m) return;
      emitted.set(Number(m[1]), Number(m[2]));
      seen[who].set(Number(m[1]), at);
    };
    const subs = await Promise.all([subscribeTimed(A.base, taskId, record('A')), subscribeTimed(B.base, taskId, record('B'))]);
    const deadline = Date.now() + o.events * o.intervalMs * 3 + 30_000;
    await Promise.race([Promise.all(subs.map((s) => s.done)), sleep(Math.max(0, deadline - Date.now()))]);
    for (const s of subs) s.close();
    const emitToA = [];
    const emitToB = [];
    const aToB = [];
    for (const [i, t] of emitted) {
      const a = seen.A.get(i);
      const b = seen.B.get(i);
      if (a !== undefined) emitToA.push(a - t);
      if (b !== undefined) emitToB.push(b - t);
      if (a !== undefined && b !== undefined) aToB.push(b - a);
    }
    const stats = (xs) => {
      const s = [...xs].sort((x, y) => x - y);
      return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] };
    };
    // Lost on B: events B should have had (after its first one, which follows its subscription) but never got.
    const firstOnB = Math.min(...seen.B.keys());
    const missingOnB = [...seen.A.keys()].filter((i) => i > firstOnB && !seen.B.has(i)).length;
    const out = { events: o.events, intervalMs: o.intervalMs, missingOnB, emitToA: stats(emitToA), emitToB: stats(emitToB), commitAToB: stats(aToB) };
    log(`  A→B p50 ${out.commitAToB.p50.toFixed(2)} ms, p99 ${out.commitAToB.p99.toFixed(2)} ms (${aToB.length} events, ${missingOnB} lost on B)`);
    return out;
  } finally {
    await d.stop();
  }
}

// ---------------------------------------------------------------- main

function fmt(n, digits = 1) {
  return n === null || n === undefined || Number.isNaN(n) ? 'n/a' : Number(n).toFixed(digits);
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows
    .map((r, i) => {
      const line = `| ${r.map((cell, c) => String(cell).padEnd(widths[c])).join(' | ')} |`;
      return i === 0 ? `${line}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|` : line;
    })
    .join('\n');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const wrk = ensureWrk();
  const generator = o.generator === 'auto' ? (wrk ? 'wrk' : 'autocannon') : o.generator;
  if (generator === 'wrk' && !wrk) throw new Error('wrk is not installed (apt-get install -y wrk), or use --generator autocannon');
  const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, generator, generatorVersion: generator === 'wrk' ? wrk : autocannonVersion() };
  log(`machine: ${machine.cpus} CPU(s) ${machine.model}; Node ${machine.node}; load generator ${generator} ${machine.generatorVersion}`);

  const results = { when: new Date().toISOString(), machine, options: o, throughput: [], latency: null };
  const stopAll = () => {
    for (const p of live) p.kill('SIGKILL');
  };
  process.on('SIGINT', () => (stopAll(), process.exit(130)));
  try {
    if (!o.skipThroughput) for (const n of o.replicas) results.throughput.push(await throughput(n, o, generator));
    if (!o.skipLatency) results.latency = await latency(o);
  } finally {
    stopAll();
  }

  mkdirSync(path.dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);

  let text = '';
  if (results.throughput.length) {
    const base = results.throughput[0].rps;
    text += `\nBlocking SendMessage echo (JSON-RPC), ${o.connections} connections round-robin over the replicas, ${o.duration} s, ${generator}:\n\n`;
    text += table([
      ['replicas', 'req/s', 'vs first', 'p50 ms', 'p99 ms', 'errors', 'cores: replicas', 'postgres', 'redis', 'generator', 'other', 'machine'],
      ...results.throughput.map((r) => [
        r.replicas,
        fmt(r.rps, 0),
        `${fmt(r.rps / base, 2)}x`,
        fmt(r.p50),
        fmt(r.p99),
        r.errors,
        fmt(r.cores.replicas, 2),
        fmt(r.cores.postgres, 2),
        fmt(r.cores.redis, 2),
        fmt(r.cores.generator, 2),
        fmt(r.cores.other, 2),
        `${fmt(r.machineCores, 2)} of ${machine.cpus}`,
      ]),
    ]);
    text += '\n';
  }
  if (results.latency) {
    const l = results.latency;
    text += `\nEvent latency, ${l.events} events every ${l.intervalMs} ms from a task on A (${l.missingOnB} lost on B after it subscribed):\n\n`;
    text += table([
      ['path', 'events', 'p50 ms', 'p99 ms', 'max ms'],
      ['commit on A → SSE on B (A→B)', l.commitAToB.n, fmt(l.commitAToB.p50, 2), fmt(l.commitAToB.p99, 2), fmt(l.commitAToB.max, 2)],
      ['emit on A → SSE on A (commit)', l.emitToA.n, fmt(l.emitToA.p50, 2), fmt(l.emitToA.p99, 2), fmt(l.emitToA.max, 2)],
      ['emit on A → SSE on B', l.emitToB.n, fmt(l.emitToB.p50, 2), fmt(l.emitToB.p99, 2), fmt(l.emitToB.max, 2)],
    ]);
    text += '\n';
  }
  process.stdout.write(`${text}\nresults: ${path.relative(process.cwd(), o.out)}\n`);
}

main().catch((err) => {
  for (const p of live) p.kill('SIGKILL');
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
