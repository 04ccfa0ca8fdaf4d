#!/usr/bin/env node
// What the OpenTelemetry JS SDK costs per span on this machine, without Agentport: `node
// bench/tracing-floor.js [--modes off,record,sdk,thread] [--spans 5] [--rounds 3] [--duration 8]`.
//
// Starts bench/targets/bare-http-tracing.mjs once per mode (off: no SDK; record: the SDK recording,
// exporting nothing; sdk: the SDK with its
// OTLP/HTTP exporter on the event loop; thread: the same SDK with Agentport's export thread, from
// dist/ — build first), all exporting to one OTLP sink run here, loads them AT THE SAME TIME with
// one wrk each (as bench/ab.js does), and reports main-thread and whole-process CPU per request
// and, against `off`, per span: the floor under which no tracing built on this SDK can go.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWrk, ensureWrk } from './lib/load.mjs';
import { mainThreadCpuSeconds, processCpuSeconds } from './lib/proc.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const opts = { modes: ['off', 'record', 'sdk', 'thread'], spans: 5, rounds: 3, duration: 8, warmup: 3, connections: 16 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const v = () => process.argv[++i];
  if (a === '--help') {
    console.log('Usage: node bench/tracing-floor.js [--modes off,record,sdk,thread] [--spans N] [--rounds N] [--duration S] [--warmup S] [--connections N]');
    process.exit(0);
  } else if (a === '--modes') opts.modes = v().split(',').filter(Boolean);
  else if (a === '--spans') opts.spans = Number(v());
  else if (a === '--rounds') opts.rounds = Number(v());
  else if (a === '--duration') opts.duration = Number(v());
  else if (a === '--warmup') opts.warmup = Number(v());
  else if (a === '--connections') opts.connections = Number(v());
  else {
    console.error(`unknown option ${a}`);
    process.exit(2);
  }
}
if (!ensureWrk()) {
  console.error('wrk is not installed: apt-get install -y wrk');
  process.exit(2);
}

const sinkStats = { exports: 0, bytes: 0 };
const sink = http.createServer((req, res) => {
  sinkStats.exports++;
  req.on('data', (c) => (sinkStats.bytes += c.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${sink.address().port}/v1/traces`;

function start(mode) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/targets/bare-http-tracing.mjs'), '--mode', mode, '--sink', sinkUrl, '--spans', String(opts.spans)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /LISTENING (\d+)/.exec(String(d));
      if (m) resolve({ mode, child, url: `http://127.0.0.1:${m[1]}/a2a/echo` });
    });
    child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
  });
}

const body = { headers: { 'content-type': 'application/json' }, bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"', bodySuffix: '"}}}' };
async function loadAll(servers, durationS, runId) {
  const before = servers.map((s) => ({ main: mainThreadCpuSeconds(s.child.pid), proc: processCpuSeconds(s.child.pid) }));
  const runs = await Promise.all(servers.map((s) => runWrk({ url: s.url, connections: opts.connections, threads: 1, durationS, ...body, runId: `${runId}-${s.mode}` })));
  return servers.map((s, i) => ({
    rps: runs[i].rps,
    mainUs: ((mainThreadCpuSeconds(s.child.pid) - before[i].main) * 1e6) / runs[i].requests,
    procUs: ((processCpuSeconds(s.child.pid) - before[i].proc) * 1e6) / runs[i].requests,
  }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const servers = [];
try {
  for (const m of opts.modes) servers.push(await start(m));
  console.log(`bare node:http, ${opts.spans} spans per request when traced, ${servers.length} servers loaded at once, ${opts.connections} connections each, ${opts.rounds} × ${opts.duration} s`);
  await loadAll(servers, opts.warmup, 'warm');
  const rounds = [];
  for (let r = 1; r <= opts.rounds; r++) {
    const res = await loadAll(servers, opts.duration, `r${r}`);
    rounds.push(res);
    console.log(`round ${r}: ${servers.map((s, i) => `${s.mode} ${res[i].rps.toFixed(0)} req/s ${res[i].mainUs.toFixed(1)} µs main ${res[i].procUs.toFixed(1)} µs proc`).join(' | ')}`);
  }
  const off = servers.findIndex((s) => s.mode === 'off');
  console.log(`\n${'mode'.padEnd(8)}${'req/s'.padStart(8)}${'main µs'.padStart(9)}${'proc µs'.padStart(9)}   per span over off (median of per-round differences): main, process`);
  servers.forEach((s, i) => {
    const col = (k) => median(rounds.map((r) => r[i][k]));
    const perSpan = (k) => (off < 0 || i === off ? '' : (median(rounds.map((r) => r[i][k] - r[off][k])) / opts.spans).toFixed(2));
    console.log(`${s.mode.padEnd(8)}${col('rps').toFixed(0).padStart(8)}${col('mainUs').toFixed(1).padStart(9)}${col('procUs').toFixed(1).padStart(9)}   ${perSpan('mainUs')} ${perSpan('procUs')}`);
  });
  console.log(`OTLP sink: ${sinkStats.exports} exports, ${(sinkStats.bytes / 1e6).toFixed(1)} MB`);
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  sink.close();
}
