#!/usr/bin/env node
// Do streams leave anything behind once they close? (issue 18, target 4)
//   node --expose-gc bench/streams-close.js [--streams N] [--idle-ms MS] [--root DIR]
//
// An in-process server (DIR/dist, default this checkout; `npm run build`) with the bench stream
// agent. Opens N SendStreamingMessage streams to tasks that stay WORKING for --idle-ms, then half of
// the clients leave and the other half are ended by their task; prints the live heap (after full
// GCs) at baseline (after a warm-up round), with all streams open, and after all closed, per
// stream. The clients live in the same process: the "open" figure counts their side too.
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const ROOT = path.resolve(opt('--root', path.join(path.dirname(fileURLToPath(import.meta.url)), '..')));
const N = Number(opt('--streams', 2000));
const IDLE_MS = Number(opt('--idle-ms', 6000));
if (!global.gc) throw new Error('run with node --expose-gc');

const { parseConfig } = await import(`${ROOT}/dist/config/index.js`);
const { startServer } = await import(`${ROOT}/dist/server/start.js`);
const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-streams-close-'));
const config = parseConfig(
  {
    auth: { mode: 'none' },
    agents: [{ id: 'streams', module: path.join(ROOT, 'bench/agents/stream-agent.mjs'), streaming: true }],
    server: { host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, grpc: { enabled: false } },
  },
  { env: {}, cwd: dataDir },
);
const server = await startServer(config);
const url = `${server.urls.http}/a2a/streams`;
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function liveHeapMb() {
  for (let i = 0; i < 4; i++) {
    global.gc();
    await sleep(50);
  }
  return process.memoryUsage().heapUsed / 1048576;
}

/** Opens one stream; resolves with its request once the first event arrived. */
function open(i) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' };
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => res.once('data', () => resolve(req)));
    req.on('error', reject);
    const message = { messageId: `close-${process.pid}-${i}`, role: 'ROLE_USER', parts: [{ text: `idle ${IDLE_MS}` }] };
    req.end(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendStreamingMessage', params: { message } }));
  });
}

async function openMany(from, n) {
  const out = [];
  for (let i = 0; i < n; i += 100) out.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, k) => open(from + i + k)))));
  return out;
}

// Warm-up: code compiled and caches filled before the baseline.
for (const r of await openMany(0, 50)) r.destroy();
await sleep(500);
const baseline = await liveHeapMb();
let reqs = await openMany(1000, N);
const opened = await liveHeapMb();
for (let i = 0; i < reqs.length; i += 2) reqs[i].destroy(); // half the clients leave
await sleep(IDLE_MS + 3000); // the other half are ended by their task
for (const r of reqs) r.destroy();
reqs = [];
await sleep(500);
const closed = await liveHeapMb();
const perStreamKb = (mb) => ((mb * 1024) / N).toFixed(2);
console.log(
  JSON.stringify({
    streams: N,
    baselineMb: +baseline.toFixed(1),
    openMb: +opened.toFixed(1),
    closedMb: +closed.toFixed(1),
    openKbPerStream: +perStreamKb(opened - baseline),
    leftKbPerStream: +perStreamKb(closed - baseline),
  }),
);
await server.close();
await rm(dataDir, { recursive: true, force: true });
process.exit(0);
