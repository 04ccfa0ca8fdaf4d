#!/usr/bin/env node
// MCP benchmark: `npm run bench:mcp` (= node bench/mcp.js).
//
// tools/call on an echo tool, 32 keep-alive connections, loopback, in both MCP eras:
//   modern  - 2026-07-28: per-request _meta envelope, MCP-Protocol-Version/Mcp-Method/Mcp-Name
//   legacy  - 2025-11-25 stateless: no initialize, MCP-Protocol-Version: 2025-11-25
// against three targets, each a fresh child process per era:
//   bare      - bench/targets/bare-http.mjs (node:http, fixed JSON answer: the ceiling)
//   sdk       - bench/targets/mcp-sdk-echo.mjs (@modelcontextprotocol/server 2.4.0, stateless)
//   agentport - node <its shipped node options> bin/agentport.js serve (auth: none, echo agent,
//               durable SQLite tasks; --node-defaults: without them, ADR 0081)
// Every request carries a unique message; each target's answer is checked before measuring.
// Prints req/s, latency and the ratios agentport/sdk and agentport/bare; writes
// bench/results/mcp-latest.json. See docs/benchmarks.md (MCP).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { runAutocannon, runWrk, ensureWrk } from './lib/load.mjs';
import { treeCpuSeconds } from './lib/proc.mjs';
import net from 'node:net';
import { freePort, sleep } from './lib/net.mjs';
import { flag, parseCommandLine, value } from './lib/options.mjs';
import { shippedNodeOptions } from './lib/shipped-node-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: npm run bench:mcp -- [--duration S] [--warmup S] [--connections N] [--targets bare,sdk,agentport,agentport-usage-off] [--eras modern,legacy] [--out FILE] [--node-defaults]
  --node-defaults  start Agentport with Node's defaults, without the node options it ships with (its
                   bin/agentport.js shebang, --max-semi-space-size=64: ADR 0081); sdk and bare always do`;

const opts = { duration: 10, warmup: 3, connections: 32, targets: ['bare', 'sdk', 'agentport'], eras: ['modern', 'legacy'], out: path.join(ROOT, 'bench/results/mcp-latest.json'), nodeDefaults: false };
parseCommandLine(HELP, {
  '--duration': value((v) => (opts.duration = Number(v))),
  '--warmup': value((v) => (opts.warmup = Number(v))),
  '--connections': value((v) => (opts.connections = Number(v))),
  '--targets': value((v) => (opts.targets = v.split(','))),
  '--eras': value((v) => (opts.eras = v.split(','))),
  '--out': value((v) => (opts.out = path.resolve(v))),
  '--node-defaults': flag(() => (opts.nodeDefaults = true)),
});

const MODERN = '2026-07-28';
const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
// The message text is the variable part: prefix + runId-counter + suffix.
const ERAS = {
  modern: {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_echo","arguments":{"message":"hello ',
    bodySuffix: `"},"_meta":${JSON.stringify(envelope)}}}`,
  },
  legacy: {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_echo","arguments":{"message":"hello ',
    bodySuffix: '"}}}',
  },
};

const TARGETS = {
  bare: { command: ({ port }) => [process.execPath, ['bench/targets/bare-http.mjs', '--port', String(port)]], check: () => true },
  sdk: { command: ({ port }) => [process.execPath, ['bench/targets/mcp-sdk-echo.mjs', '--port', String(port)]], check: echoed },
  agentport: { command: (c) => agentportCommand(c, true), check: echoed },
  // usage records off: what recording every call costs (issue 13: at most 3%)
  'agentport-usage-off': { command: (c) => agentportCommand(c, false), check: echoed },
};

function agentportCommand({ port, dataDir }, usage) {
  const config = path.join(dataDir, 'agentport.yaml');
  writeFileSync(
    config,
    `server: { host: 127.0.0.1, port: ${port}, dataDir: ${JSON.stringify(dataDir)}, logLevel: error, grpc: { port: 0 } }\nauth: { mode: none }\nusage: { enabled: ${usage} }\nagents:\n  - { id: echo, builtin: echo }\n`,
  );
  const shipped = opts.nodeDefaults ? [] : shippedNodeOptions(path.join(ROOT, 'bin', 'agentport.js'));
  return [process.execPath, [...shipped, 'bin/agentport.js', 'serve', '--config', config]];
}

/** The JSON body, or the last `data:` message of an SSE body, carries the echoed text. */
function echoed(text, message) {
  const data = text.includes('data: ')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .pop()
        .slice(6)
    : text;
  const r = JSON.parse(data).result;
  return r && !r.isError && r.content?.[0]?.text === message;
}

const live = new Set();
process.on('exit', () => live.forEach((c) => c.kill('SIGKILL')));
process.on('SIGINT', () => process.exit(130));

async function start(name) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `agentport-bench-mcp-${name}-`));
  const [cmd, args] = TARGETS[name].command({ port, dataDir });
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  live.add(child);
  let tail = '';
  const keep = (d) => (tail = (tail + d).slice(-3000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  child.on('exit', () => ((exited = true), live.delete(child)));
  const stop = async () => {
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && !exited; i++) await sleep(50);
    if (!exited) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
    if (exited) break;
    const up = await new Promise((r) =>
      net
        .connect({ port, host: '127.0.0.1' })
        .once('connect', function () {
          this.destroy();
          r(true);
        })
        .once('error', () => r(false)),
    );
    if (up) return { name, port, pid: child.pid, stop, tail: () => tail };
  }
  await stop();
  throw new Error(`${name} did not start:\n${tail}`);
}

async function verify(srv, era) {
  const e = ERAS[era];
  const message = `hello verify-${era}`;
  const res = await fetch(`http://127.0.0.1:${srv.port}/mcp`, { method: 'POST', headers: e.headers, body: `${e.bodyPrefix}verify-${era}${e.bodySuffix}` });
  const text = await res.text();
  if (res.status !== 200 || !TARGETS[srv.name].check(text, message)) throw new Error(`${srv.name} answered the ${era} check wrongly (HTTP ${res.status}): ${text.slice(0, 300)}`);
}

const gen = ensureWrk() ? 'wrk' : 'autocannon';
const load = (srv, era, durationS) =>
  (gen === 'wrk' ? runWrk : runAutocannon)({ url: `http://127.0.0.1:${srv.port}/mcp`, connections: opts.connections, threads: 1, durationS, runId: randomBytes(4).toString('hex'), ...ERAS[era] });

async function main() {
  const results = [];
  console.log(`MCP tools/call echo — ${opts.connections} connections, ${opts.warmup}s warm-up + ${opts.duration}s, generator ${gen}, ${os.cpus().length} CPUs, node ${process.version}`);
  for (const era of opts.eras) {
    for (const name of opts.targets) {
      process.stderr.write(`  ${era} / ${name} ...`);
      const srv = await start(name);
      try {
        await verify(srv, era);
        if (opts.warmup > 0) await load(srv, era, opts.warmup);
        const cpu0 = treeCpuSeconds(srv.pid);
        const r = await load(srv, era, opts.duration);
        const cpu1 = treeCpuSeconds(srv.pid);
        const cpuUs = cpu0 != null && cpu1 != null && r.requests ? ((cpu1 - cpu0) * 1e6) / r.requests : null;
        results.push({ era, target: name, rps: r.rps, requests: r.requests, errors: r.errorsTotal, latencyMs: r.latencyMs, serverCpuUsPerRequest: cpuUs });
        process.stderr.write(` ${Math.round(r.rps)} req/s\n`);
      } finally {
        await srv.stop();
      }
    }
  }
  const rows = results.map((r) => [r.era, r.target, Math.round(r.rps), r.latencyMs.p50.toFixed(2), r.latencyMs.p99.toFixed(2), r.serverCpuUsPerRequest ? Math.round(r.serverCpuUsPerRequest) : '-', r.errors]);
  console.log(['era', 'target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'].join('\t'));
  for (const row of rows) console.log(row.join('\t'));
  const ratios = {};
  for (const era of opts.eras) {
    const of = (t) => results.find((r) => r.era === era && r.target === t)?.rps;
    const ap = of('agentport');
    ratios[era] = { agentportOverSdk: ap && of('sdk') ? ap / of('sdk') : null, agentportOverBare: ap && of('bare') ? ap / of('bare') : null, sdkOverBare: of('sdk') && of('bare') ? of('sdk') / of('bare') : null };
    const f = (x) => (x == null ? 'n/a' : `${x.toFixed(2)}x`);
    console.log(`${era}: agentport/sdk ${f(ratios[era].agentportOverSdk)} (issue 18 target >= 3x), agentport/bare ${f(ratios[era].agentportOverBare)}, sdk/bare ${f(ratios[era].sdkOverBare)}`);
    const off = of('agentport-usage-off');
    if (ap && off) {
      ratios[era].usageOnOverOff = ap / off;
      console.log(`${era}: usage records on/off ${ratios[era].usageOnOverOff.toFixed(3)} (cost of recording: ${((1 - ratios[era].usageOnOverOff) * 100).toFixed(1)}%)`);
    }
  }
  mkdirSync(path.dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, generator: gen, opts, results, ratios }, null, 2));
  console.log(`results: ${path.relative(ROOT, opts.out)}`);
}

main().catch((err) => {
  console.error(`\nbench:mcp failed: ${err.message}`);
  process.exit(1);
});
