#!/usr/bin/env node
// Streams at scale (issue 18, target 4): `node bench/streams.js` (see --help).
//
// One replica (embedded SQLite) or two (PostgreSQL + Redis) of the real CLI. Child processes
// (bench/lib/sse-clients.mjs) open N idle SSE streams (SendStreamingMessage to a task that stays
// WORKING without a word) and M active ones (a task that emits one artifact update per interval).
// Then, on the first replica:
//   1. quiet window: streams only; the server's CPU per delivered event, and with two replicas the
//      bus fan-out cost: what the other replica (which has no subscriber) and Redis spend per event;
//   2. send window: a closed loop of blocking SendMessage echos (one keep-alive connection, a short
//      pause between sends) measures p50/p99 while the streams keep ticking; with two replicas the
//      sends go to the other replica.
// Server RSS (VmRSS) is sampled every second throughout. Needs dist/ (`npm run build`).
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { machineCpuSeconds, processCpuSeconds, rssKb } from './lib/proc.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'agentport.js');
const AGENT = path.join(ROOT, 'bench', 'agents', 'stream-agent.mjs');
const CLIENT = path.join(ROOT, 'bench', 'lib', 'sse-clients.mjs');

const METRICS_TOKEN = 'bench-streams-metrics-token';

const HELP = `Usage: node bench/streams.js [options]

  --idle N            idle streams (default 10000)
  --active N          active streams, one event per --interval-ms each (default 1000)
  --interval-ms MS    time between two events of an active stream (default 1000)
  --replicas 1|2      1: embedded SQLite; 2: PostgreSQL + Redis, streams on A, sends on B (default 1)
  --quiet S           seconds of the streams-only window (default 20)
  --duration S        seconds of the blocking-send window (default 30)
  --send-gap-ms MS    pause between two blocking sends (default 20)
  --clients N         client child processes holding the streams (default 2)
  --open-concurrency N  streams being opened at once, per client (default 100)
  --pg-url URL        PostgreSQL (default postgres://postgres@127.0.0.1:5432/test)
  --redis-url URL     Redis (default redis://127.0.0.1:6379)
  --cpu-prof          run the first replica with --cpu-prof (profile written to bench/results/)
  --trace-gc          run the first replica with --trace-gc and report its GC pauses per window
  --heap-snapshots    write heap snapshots of the first replica at baseline, after opening and at the end
                      (bench/results/, Heap.*.heapsnapshot; they pause the server: figures are off)
  --node-defaults     start Agentport with Node's defaults, without the node options it ships with
                      (its bin/agentport.js shebang, --max-semi-space-size=64: ADR 0081)
  --out FILE          results JSON (default bench/results/streams-latest.json)
`;

function parseArgs(argv) {
  const o = {
    idle: 10_000,
    active: 1_000,
    intervalMs: 1_000,
    replicas: 1,
    quiet: 20,
    duration: 30,
    sendGapMs: 20,
    clients: 2,
    openConcurrency: 100,
    pgUrl: 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: 'redis://127.0.0.1:6379',
    cpuProf: false,
    heapSnapshots: false,
    traceGc: false,
    nodeDefaults: false,
    out: path.join(ROOT, 'bench', 'results', 'streams-latest.json'),
  };
  const keys = {
    '--idle': 'idle',
    '--active': 'active',
    '--interval-ms': 'intervalMs',
    '--replicas': 'replicas',
    '--quiet': 'quiet',
    '--duration': 'duration',
    '--send-gap-ms': 'sendGapMs',
    '--clients': 'clients',
    '--open-concurrency': 'openConcurrency',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a in keys) {
      const n = Number(next());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a} needs a non-negative number`);
      o[keys[a]] = n;
    } else if (a === '--pg-url') o.pgUrl = next();
    else if (a === '--redis-url') o.redisUrl = next();
    else if (a === '--out') o.out = path.resolve(next());
    else if (a === '--cpu-prof') o.cpuProf = true;
    else if (a === '--heap-snapshots') o.heapSnapshots = true;
    else if (a === '--trace-gc') o.traceGc = true;
    else if (a === '--node-defaults') o.nodeDefaults = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  if (o.replicas !== 1 && o.replicas !== 2) throw new Error('--replicas is 1 or 2');
  o.clients = Math.max(1, Math.floor(o.clients));
  return o;
}

const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

// ---------------------------------------------------------------- the deployment

const live = new Set();

async function startDeployment(o) {
  const stamp = `${Date.now().toString(36)}_${process.pid}`;
  const schema = `bench_streams_${stamp}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-streams-'));
  const replicas = [];
  for (let i = 0; i < o.replicas; i++) {
    const id = String.fromCharCode(65 + i);
    const rdir = path.join(dir, id);
    mkdirSync(path.join(rdir, 'data'), { recursive: true });
    const port = await freePort();
    const config = {
      server: { host: '127.0.0.1', port, dataDir: path.join(rdir, 'data'), logLevel: 'warn', grpc: { enabled: false } },
      auth: { mode: 'none' },
      // The bench reads the server's heap figures from /metrics (prom-client's process metrics).
      metrics: { token: METRICS_TOKEN },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'streams', module: AGENT },
      ],
    };
    if (o.replicas > 1) {
      config.storage = { driver: 'postgres', url: o.pgUrl, schema, maxConnections: 10 };
      config.bus = { driver: 'redis', url: o.redisUrl, prefix: `bench-streams-${stamp}` };
      config.cluster = { replicaId: id };
    }
    const configFile = path.join(rdir, 'agentport.yaml');
    writeFileSync(configFile, JSON.stringify(config));
    replicas.push({ id, port, configFile, base: `http://127.0.0.1:${port}`, proc: null, out: '' });
  }
  const env = { ...process.env, NODE_ENV: 'production' };
  delete env.AGENTPORT_CONFIG;
  if (o.replicas > 1) execFileSync(process.execPath, [BIN, 'db', 'migrate', '--config', replicas[0].configFile], { env, stdio: 'pipe', timeout: 60_000 });
  for (const [i, r] of replicas.entries()) {
    const results = path.join(ROOT, 'bench', 'results');
    mkdirSync(results, { recursive: true });
    const prof = i > 0 ? [] : [...(o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${results}`] : []), ...(o.heapSnapshots ? ['--heapsnapshot-signal=SIGUSR2'] : []), ...(o.traceGc ? ['--trace-gc'] : [])];
    // cwd: where --heapsnapshot-signal writes its files.
    const shipped = o.nodeDefaults ? [] : shippedNodeOptions(BIN);
    r.proc = spawn(process.execPath, [...shipped, ...prof, BIN, 'serve', '--config', r.configFile], { env, cwd: results, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(r.proc);
    const keep = (b) => (r.out = (r.out + b.toString('utf8')).slice(-8_000));
    r.gcPauses = [];
    let lines = '';
    r.proc.stdout.on('data', (b) => {
      if (!o.traceGc || i > 0) return;
      // --trace-gc: `… Mark-Compact 250.1 (270.3) -> 240.2 (268.1) MB, 85.23 / 0.00 ms …`
      lines += b.toString('utf8');
      let cut;
      while ((cut = lines.indexOf('\n')) >= 0) {
        const m = /(Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact)[^,]*, ([\d.]+) \/ [\d.]+ ms/.exec(lines.slice(0, cut));
        if (m) r.gcPauses.push({ at: performance.now(), kind: m[1], ms: Number(m[2]) });
        lines = lines.slice(cut + 1);
      }
    });
    r.proc.stdout.on('data', keep);
    r.proc.stderr.on('data', keep);
    r.proc.on('exit', () => live.delete(r.proc));
  }
  for (const r of replicas) await waitReady(r);
  return {
    replicas,
    async stop() {
      await Promise.all(
        replicas.map(
          (r) =>
            new Promise((resolve) => {
              if (r.proc.exitCode !== null || r.proc.signalCode !== null) return resolve();
              r.proc.once('exit', resolve);
              // SIGINT lets --cpu-prof write its profile.
              r.proc.kill(o.cpuProf ? 'SIGINT' : 'SIGTERM');
              setTimeout(() => r.proc.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
      if (o.replicas > 1) await dropSchema(o.pgUrl, schema).catch((err) => log(`could not drop schema ${schema}: ${err.message}`));
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

async function dropSchema(url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- the stream clients

function startClients(n) {
  return Array.from({ length: n }, () => {
    const child = fork(CLIENT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    live.add(child);
    child.on('exit', () => live.delete(child));
    const ask = (msg, answer) =>
      new Promise((resolve, reject) => {
        const onMsg = (m) => {
          if (m.type !== answer) return;
          child.off('message', onMsg);
          child.off('exit', onExit);
          resolve(m);
        };
        const onExit = (code) => reject(new Error(`stream client exited (${code})`));
        child.on('message', onMsg);
        child.once('exit', onExit);
        child.send(msg);
      });
    return { child, ask };
  });
}

/** Splits `total` into `n` near-equal shares. */
const share = (total, n, i) => Math.floor(total / n) + (i < total % n ? 1 : 0);

// ---------------------------------------------------------------- measurements

/** CPU seconds so far of the PostgreSQL and Redis server processes (every backend). */
function serviceCpuSeconds() {
  const out = { postgres: 0, redis: 0 };
  const tck = 100;
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const raw = readFileSync(`/proc/${n}/stat`, 'utf8');
      const comm = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
      const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(rest[11]) + Number(rest[12])) / tck;
      if (comm === 'postgres' || comm === 'postmaster') out.postgres += cpu;
      else if (comm.startsWith('redis-server')) out.redis += cpu;
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

function cpuSnapshot(d, clients) {
  return {
    at: performance.now(),
    replicas: d.replicas.map((r) => processCpuSeconds(r.proc.pid)),
    clients: clients.reduce((s, c) => s + (processCpuSeconds(c.child.pid) ?? 0), 0),
    services: serviceCpuSeconds(),
    machine: machineCpuSeconds(),
  };
}

function cpuBetween(a, b) {
  const s = (b.at - a.at) / 1000;
  return {
    seconds: s,
    replicaCores: b.replicas.map((x, i) => (x - a.replicas[i]) / s),
    clientCores: (b.clients - a.clients) / s,
    postgresCores: (b.services.postgres - a.services.postgres) / s,
    redisCores: (b.services.redis - a.services.redis) / s,
    machineCores: a.machine && b.machine ? (b.machine.busy - a.machine.busy) / s : null,
  };
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function mergeSorted(arrays) {
  return arrays.flat().sort((a, b) => a - b);
}

/** Blocking SendMessage echos in a closed loop on one keep-alive connection, for `seconds`. */
async function blockingSends(base, seconds, gapMs, runId) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message: { messageId: `${runId}-send-${i}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } } });
    const t0 = performance.now();
    const ok = await new Promise((resolve) => {
      const req = http.request(`${base}/a2a/echo`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(res.statusCode === 200 && text.includes('TASK_STATE_COMPLETED')));
      });
      req.on('error', () => resolve(false));
      req.end(payload);
    });
    const ms = performance.now() - t0;
    if (ok) latencies.push(ms);
    else errors++;
    if (gapMs > 0) await sleep(gapMs);
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { sends: latencies.length, errors, p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] };
}

/** The V8 heap (used / total) and external memory of a replica in MB, from its /metrics. */
async function heapMb(r) {
  try {
    const res = await fetch(`${r.base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await res.text();
    const value = (name) => {
      const m = new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text);
      return m ? Math.round(Number(m[1]) / 104857.6) / 10 : null;
    };
    return { used: value('nodejs_heap_size_used_bytes'), total: value('nodejs_heap_size_total_bytes'), external: value('nodejs_external_memory_bytes') };
  } catch {
    return null;
  }
}

/** GC pauses by kind: how many, total ms, longest ms. */
function gcSummary(pauses) {
  const out = {};
  for (const p of pauses) {
    const k = (out[p.kind] ??= { n: 0, totalMs: 0, maxMs: 0 });
    k.n++;
    k.totalMs = Math.round((k.totalMs + p.ms) * 10) / 10;
    k.maxMs = Math.max(k.maxMs, p.ms);
  }
  return out;
}

/** SIGUSR2 → a heap snapshot (--heapsnapshot-signal); waits until the server answers again. */
async function heapSnapshot(r) {
  log(`heap snapshot of replica ${r.id}…`);
  r.proc.kill('SIGUSR2');
  await sleep(1000);
  await waitReady(r, 300_000);
}

// ---------------------------------------------------------------- main

const mb = (kb) => (kb === null || kb === undefined ? null : Math.round(kb / 102.4) / 10);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const runId = `streams-${Date.now().toString(36)}`;
  log(`${o.replicas} replica(s), ${o.idle} idle + ${o.active} active streams (one event per ${o.intervalMs} ms), ${o.clients} client processes`);
  const loadavg0 = os.loadavg();
  const d = await startDeployment(o);
  const A = d.replicas[0];
  const S = d.replicas[o.replicas - 1]; // where blocking sends go
  const clients = startClients(o.clients);
  const rss = [];
  let phase = 'baseline';
  const sampler = setInterval(() => rss.push({ t: Math.round(performance.now()), phase, kb: d.replicas.map((r) => rssKb(r.proc.pid)) }), 1000);
  const results = { when: new Date().toISOString(), options: o, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavgBefore: loadavg0 } };
  try {
    await sleep(2000);
    results.rssBaselineMb = d.replicas.map((r) => mb(rssKb(r.proc.pid)));
    results.heap = { baseline: await heapMb(A) };
    if (o.heapSnapshots) await heapSnapshot(A);

    phase = 'open';
    const tOpen = performance.now();
    // A run long enough for the whole benchmark; the server is stopped at the end anyway.
    const runMs = (o.quiet + o.duration + 600) * 1000;
    const opened = await Promise.all(
      clients.map((c, i) =>
        c.ask(
          {
            type: 'open',
            url: `${A.base}/a2a/streams`,
            idle: share(o.idle, o.clients, i),
            active: share(o.active, o.clients, i),
            idleMs: runMs,
            ticks: Math.ceil(runMs / o.intervalMs),
            tickMs: o.intervalMs,
            concurrency: o.openConcurrency,
            runId: `${runId}-c${i}`,
          },
          'opened',
        ),
      ),
    );
    results.open = {
      seconds: (performance.now() - tOpen) / 1000,
      ok: opened.reduce((s, r) => s + r.ok, 0),
      failed: opened.reduce((s, r) => s + r.failed, 0),
      errors: opened.flatMap((r) => r.errors).slice(0, 5),
    };
    log(`opened ${results.open.ok} streams in ${results.open.seconds.toFixed(1)} s (${results.open.failed} failed${results.open.failed ? `: ${results.open.errors.join(' | ')}` : ''})`);
    results.rssAfterOpenMb = d.replicas.map((r) => mb(rssKb(r.proc.pid)));
    results.heap.afterOpen = await heapMb(A);
    await sleep(5000);
    if (o.heapSnapshots) await heapSnapshot(A);

    const windowRun = async (name, seconds, during) => {
      phase = name;
      await Promise.all(clients.map((c) => c.ask({ type: 'mark' }, 'marked')));
      const c0 = cpuSnapshot(d, clients);
      const gcFrom = performance.now();
      const extra = await during(seconds);
      const c1 = cpuSnapshot(d, clients);
      const reports = await Promise.all(clients.map((c) => c.ask({ type: 'report' }, 'report')));
      const cpu = cpuBetween(c0, c1);
      const events = reports.reduce((s, r) => s + r.events, 0);
      const late = mergeSorted(reports.map((r) => r.lateMs));
      const eventsPerS = events / cpu.seconds;
      const out = {
        ...cpu,
        events,
        eventsPerS,
        streamsEnded: reports.reduce((s, r) => s + r.ended, 0),
        eventLatenessMs: { p50: percentile(late, 50), p99: percentile(late, 99), max: late[late.length - 1] },
        cpuUsPerEvent: cpu.replicaCores.map((c) => (eventsPerS ? (c / eventsPerS) * 1e6 : null)),
        redisUsPerEvent: eventsPerS ? (cpu.redisCores / eventsPerS) * 1e6 : null,
        postgresUsPerEvent: eventsPerS ? (cpu.postgresCores / eventsPerS) * 1e6 : null,
        rssMaxMb: d.replicas.map((_, i) => mb(Math.max(...rss.filter((s) => s.phase === name).map((s) => s.kb[i] ?? 0)))),
        heapAtEnd: await heapMb(A),
        gc: o.traceGc ? gcSummary(A.gcPauses.filter((g) => g.at >= gcFrom)) : undefined,
        ...extra,
      };
      log(
        `${name}: ${eventsPerS.toFixed(0)} events/s, lateness p50 ${out.eventLatenessMs.p50?.toFixed(1)} p99 ${out.eventLatenessMs.p99?.toFixed(1)} ms; cores ${cpu.replicaCores.map((c) => c.toFixed(2)).join('/')} (pg ${cpu.postgresCores.toFixed(2)}, redis ${cpu.redisCores.toFixed(2)}, clients ${cpu.clientCores.toFixed(2)}, machine ${cpu.machineCores?.toFixed(2)}); µs/event ${out.cpuUsPerEvent.map((c) => c?.toFixed(0)).join('/')}; RSS max ${out.rssMaxMb.join('/')} MB, heap on A ${JSON.stringify(out.heapAtEnd)}${out.gc ? `, GC on A ${JSON.stringify(out.gc)}` : ''}` +
          (extra.send ? `; sends ${extra.send.sends} p50 ${extra.send.p50.toFixed(2)} p99 ${extra.send.p99.toFixed(2)} max ${extra.send.max.toFixed(1)} ms, ${extra.send.errors} errors` : ''),
      );
      return out;
    };
    results.quiet = await windowRun('quiet', o.quiet, async (s) => (await sleep(s * 1000), {}));
    results.sending = await windowRun('send', o.duration, async (s) => ({ send: await blockingSends(S.base, s, o.sendGapMs, runId) }));
    results.rssEndMb = d.replicas.map((r) => mb(rssKb(r.proc.pid)));
    results.rssPeakMb = d.replicas.map((_, i) => mb(Math.max(...rss.map((s) => s.kb[i] ?? 0))));
    results.machine.loadavgAfter = os.loadavg();
    if (o.heapSnapshots) await heapSnapshot(A);
  } finally {
    clearInterval(sampler);
    for (const c of clients) c.child.send({ type: 'close' });
    await sleep(500);
    for (const c of clients) c.child.kill('SIGKILL');
    await d.stop();
  }
  results.rssSamples = rss;
  mkdirSync(path.dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  const s = results.sending.send;
  process.stdout.write(
    `\n${o.replicas} replica(s), ${results.open.ok} streams open (${o.idle} idle + ${o.active} active asked, ${results.open.failed} failed)\n` +
      `RSS MB per replica: baseline ${results.rssBaselineMb.join('/')}, after open ${results.rssAfterOpenMb.join('/')}, peak ${results.rssPeakMb.join('/')}, end ${results.rssEndMb.join('/')}\n` +
      `V8 heap on ${A.id} MB (used/total/external): baseline ${Object.values(results.heap.baseline ?? {}).join('/')}, after open ${Object.values(results.heap.afterOpen ?? {}).join('/')}, end ${Object.values(results.sending.heapAtEnd ?? {}).join('/')}\n` +
      `blocking SendMessage on ${S.id} during the streams: ${s.sends} sends, p50 ${s.p50.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(1)} ms, ${s.errors} errors\n` +
      `events delivered: ${results.quiet.eventsPerS.toFixed(0)}/s quiet, ${results.sending.eventsPerS.toFixed(0)}/s while sending; lateness p99 ${results.quiet.eventLatenessMs.p99?.toFixed(1)} / ${results.sending.eventLatenessMs.p99?.toFixed(1)} ms\n` +
      `CPU per event (quiet window), µs: replicas ${results.quiet.cpuUsPerEvent.map((c) => c?.toFixed(0)).join('/')}, redis ${results.quiet.redisUsPerEvent?.toFixed(0)}, postgres ${results.quiet.postgresUsPerEvent?.toFixed(0)}\n` +
      `results: ${path.relative(process.cwd(), o.out)}\n`,
  );
}

main().catch((err) => {
  for (const p of live) p.kill('SIGKILL');
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
