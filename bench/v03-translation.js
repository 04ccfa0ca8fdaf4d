#!/usr/bin/env node
// What v0.3 translation costs, measured A/B on ONE Agentport server: short rounds of the blocking
// echo as a v1.0 client sends it (SendMessage, A2A-Version: 1.0) and as a v0.3 client sends it
// (message/send, `kind`s, no version header), in ABBA order so that drift (a growing database,
// other people's load on a shared machine) falls on both alike. Reports the median over round
// pairs of the req/s ratio and of the server CPU per request ratio.
//
// On a busy machine those ratios scatter by tens of percent per round, so it first measures the
// translation by itself, in this process, on CPU time: decoding the request and encoding the
// result each way (dist/, so `npm run build` first), the one place the two paths differ. Set
// against the server CPU per request, that is the translation's share of a request.
//
//   node bench/v03-translation.js [--rounds N] [--round-seconds S] [--connections C] [--micro-only]
//
// `npm run bench -- --targets agentport --bindings jsonrpc,jsonrpc-v03` measures the same two
// workloads on fresh servers one after the other instead (bench/run.js).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { runAutocannon } from './lib/load.mjs';
import { machineCpuSeconds, treeCpuSeconds } from './lib/proc.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const WORKLOADS = {
  'v1.0': {
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"',
    bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}',
    completed: (b) => b?.result?.task?.status?.state === 'TASK_STATE_COMPLETED',
  },
  'v0.3': {
    headers: { 'Content-Type': 'application/json' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"',
    bodySuffix: '","role":"user","parts":[{"kind":"text","text":"hello"}]}}}',
    completed: (b) => b?.result?.kind === 'task' && b.result.status?.state === 'completed',
  },
};

/** CPU µs per call of `fn`, best of 5 batches (the least disturbed). */
function cpuUsPerCall(fn, n) {
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(i);
    const t = process.cpuUsage(t0);
    best = Math.min(best, (t.user + t.system) / n);
  }
  return best;
}

/** Edge work of one blocking echo on each path: parse + decode the request, encode the result. */
async function micro() {
  const dist = (p) => import(path.join(ROOT, 'dist', p));
  const v = await dist('protocol/a2a/validate.js');
  const { sendParamsToV1 } = await dist('protocol/a2a-v03/requests.js');
  const { sendResultFromV1 } = await dist('protocol/a2a-v03/events.js');
  const body = (w, i) => `${w.bodyPrefix}m-${i}${w.bodySuffix}`;
  const task = {
    id: '019a0000-0000-7000-8000-000000000001',
    contextId: '019a0000-0000-7000-8000-000000000002',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-22T07:00:00.000Z' },
    artifacts: [{ artifactId: 'artifact-1', name: 'echo', parts: [{ text: 'hello' }] }],
    history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }], contextId: '019a0000-0000-7000-8000-000000000002', taskId: '019a0000-0000-7000-8000-000000000001' }],
  };
  const n = 50_000;
  const v1 = cpuUsPerCall((i) => {
    const msg = JSON.parse(body(WORKLOADS['v1.0'], i));
    v.sendMessageRequest(msg.params);
    JSON.stringify({ task });
  }, n);
  const v03 = cpuUsPerCall((i) => {
    const msg = JSON.parse(body(WORKLOADS['v0.3'], i));
    sendParamsToV1(msg.params);
    JSON.stringify(sendResultFromV1({ task }));
  }, n);
  process.stdout.write(`edge work per request (CPU, best of 5 x ${n}): v1.0 ${v1.toFixed(2)} us, v0.3 ${v03.toFixed(2)} us, translation adds ${(v03 - v1).toFixed(2)} us\n`);
  return v03 - v1;
}

function args() {
  const o = { rounds: 4, roundSeconds: 5, connections: 32, microOnly: false };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const v = Number(a[i + 1]);
    if (a[i] === '--micro-only') {
      o.microOnly = true;
      continue;
    }
    if (a[i] === '--rounds') o.rounds = v;
    else if (a[i] === '--round-seconds') o.roundSeconds = v;
    else if (a[i] === '--connections') o.connections = v;
    else throw new Error(`unknown option ${a[i]}`);
    i++;
  }
  return o;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r3 = (x) => Math.round(x * 1000) / 1000;

async function verify(url, w) {
  const body = `${w.bodyPrefix}verify-${randomBytes(4).toString('hex')}${w.bodySuffix}`;
  const res = await fetch(url, { method: 'POST', headers: w.headers, body });
  const json = await res.json();
  if (!w.completed(json)) throw new Error(`verification failed: ${JSON.stringify(json).slice(0, 300)}`);
}

async function main() {
  const o = args();
  const addedUs = await micro();
  if (o.microOnly) return;
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-v03-'));
  const child = spawn(process.execPath, ['bin/agentport.js', 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dataDir, '--auth', 'none'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const url = `http://127.0.0.1:${port}/a2a/echo`;
  try {
    for (let i = 0; ; i++) {
      try {
        await verify(url, WORKLOADS['v1.0']);
        break;
      } catch (err) {
        if (i > 60) throw err;
        await sleep(500);
      }
    }
    await verify(url, WORKLOADS['v0.3']);
    const load = (name, durationS) => runAutocannon({ url, connections: o.connections, durationS, ...WORKLOADS[name], runId: randomBytes(4).toString('hex') });
    process.stdout.write(`warm-up (3 s each)\n`);
    await load('v1.0', 3);
    await load('v0.3', 3);

    const rows = [];
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? ['v1.0', 'v0.3'] : ['v0.3', 'v1.0'];
      const pair = {};
      for (const name of order) {
        const cpu0 = treeCpuSeconds(child.pid);
        const m0 = machineCpuSeconds();
        const r = await load(name, o.roundSeconds);
        const cpu1 = treeCpuSeconds(child.pid);
        const m1 = machineCpuSeconds();
        const usPerReq = ((cpu1 - cpu0) * 1e6) / Math.max(1, r.requests);
        const foreign = m0 && m1 ? Math.max(0, (m1.busy - m0.busy - (cpu1 - cpu0)) / r.durationS) : null;
        pair[name] = { rps: r.rps, usPerReq, errors: r.errorsTotal };
        process.stdout.write(
          `round ${round + 1} ${name}: ${Math.round(r.rps)} req/s, server ${Math.round(usPerReq)} us/req, errors ${r.errorsTotal}, other load ${foreign == null ? '?' : foreign.toFixed(2)} cores (incl. generator)\n`,
        );
      }
      rows.push({
        rps: pair['v0.3'].rps / pair['v1.0'].rps,
        cpu: pair['v0.3'].usPerReq / pair['v1.0'].usPerReq,
        v1Us: pair['v1.0'].usPerReq,
        errors: pair['v0.3'].errors + pair['v1.0'].errors,
      });
    }
    const rps = r3(median(rows.map((x) => x.rps)));
    const cpu = r3(median(rows.map((x) => x.cpu)));
    const v1Us = median(rows.map((x) => x.v1Us));
    process.stdout.write(`translation share of a v1.0 request's server CPU (${Math.round(v1Us)} us): ${r3((addedUs / v1Us) * 100)}%\n`);
    process.stdout.write(`\nv0.3 / v1.0 over ${o.rounds} round pairs (median): req/s x${rps}, server CPU per request x${cpu}; errors ${rows.reduce((a, x) => a + x.errors, 0)}\n`);
  } finally {
    child.kill('SIGTERM');
    await sleep(500);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
