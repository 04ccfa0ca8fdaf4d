#!/usr/bin/env node
// Table Expert benchmark: `npm run bench:table-expert` (= node bench/table-expert.js). Needs `npm run build`.
//
//   1. engine: a Parquet file of N rows (default 10M, written once into the temp dir by DuckDB), then
//      in a fresh process: open + describe (profiles every column), describe again (cached), a
//      GROUP BY through the guarded `query`, and the same question through the planner (`ask`).
//      Time of each step and the process's peak RSS.
//   2. agent: `agentport` serving the Table Expert over the retail sample, and a simple `query`
//      over A2A JSON-RPC (blocking SendMessage) from autocannon: requests/s and latency.
//
// Options: --rows N (10000000), --duration S (10), --warmup S (2), --connections N (16),
//          --only engine|agent, --keep (keep the Parquet file for the next run; default keeps it)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const require = createRequire(import.meta.url);

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const ROWS = Number(opt('rows', 10_000_000));
const DURATION = Number(opt('duration', 10));
const WARMUP = Number(opt('warmup', 2));
const CONNECTIONS = Number(opt('connections', 16));
const ONLY = opt('only', '');
const PHASE = opt('phase', '');

const mb = (kb) => Math.round(kb / 1024);
const ms = (t) => Math.round(t);

function runChild(phase, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--phase', phase, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`${phase} exited with ${code}`))));
  });
}

// ------------------------------------------------------------------ child phases

async function phaseGenerate(file, rows) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const t0 = performance.now();
  // Deterministic values from hash(), not random(): the same file on every machine.
  await conn.run(`COPY (
      SELECT range AS event_id,
             DATE '2021-01-01' + CAST(range % 1461 AS INTEGER) AS event_date,
             'category_' || CAST(hash(range) % 20 AS VARCHAR) AS category,
             ['north', 'south', 'east', 'west'][CAST(hash(range * 7) % 4 AS INTEGER) + 1] AS region,
             CAST(hash(range * 13) % 100000 AS DOUBLE) / 100 AS amount,
             CAST(hash(range * 17) % 10 AS INTEGER) + 1 AS quantity
      FROM range(${rows})
    ) TO '${file.replace(/'/g, "''")}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)`);
  conn.closeSync();
  db.closeSync();
  process.stdout.write(`${JSON.stringify({ ms: ms(performance.now() - t0) })}\n`);
}

async function phaseEngine(file) {
  const { createTableExpertAgent, parseTableExpertOptions } = await import(pathToFileURL(path.join(DIST, 'agents/table-expert/index.js')).href);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'te-bench-'));
  const options = parseTableExpertOptions({ datasets: [{ name: 'events', path: file }], limits: { timeoutMs: '120s', memoryLimit: '2GiB', threads: 2 } }, { index: 0, baseDir: ROOT });
  const { expert } = createTableExpertAgent({ options, dataDir });
  const steps = [];
  const step = async (name, fn) => {
    const t0 = performance.now();
    const out = await fn();
    steps.push({ step: name, ms: ms(performance.now() - t0), rssMb: mb(process.memoryUsage().rss / 1024), peakRssMb: mb(process.resourceUsage().maxRSS) });
    return out;
  };
  const d = await step('open + describe (profile 6 columns)', () => expert.describe({}));
  await step('describe again (cached profile)', () => expert.describe({}));
  const q = await step('query: GROUP BY category (sum, count)', () => expert.query({ sql: 'SELECT category, sum(amount) AS total, count(*) AS n FROM events GROUP BY 1 ORDER BY 1' }));
  const a = await step('ask: "total amount by region in 2023" (planner)', () => expert.ask({ question: 'total amount by region in 2023' }));
  expert.close();
  rmSync(dataDir, { recursive: true, force: true });
  const ok = d.tables[0].rowCount === ROWS && q.result.rowCount === 20 && a.kind === 'answer';
  process.stdout.write(`${JSON.stringify({ ok, rows: d.tables[0].rowCount, steps, peakRssMb: mb(process.resourceUsage().maxRSS) })}\n`);
}

async function phaseServer() {
  const { parseConfig } = await import(pathToFileURL(path.join(DIST, 'config/index.js')).href);
  const { startServer } = await import(pathToFileURL(path.join(DIST, 'server/start.js')).href);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'te-bench-server-'));
  const config = parseConfig({ server: { port: 0, dataDir, logLevel: 'error', grpc: { enabled: false } }, agents: [{ id: 'table-expert', builtin: 'table-expert' }], auth: { mode: 'none' } }, { env: {}, cwd: dataDir });
  const server = await startServer(config);
  process.stdout.write(`${JSON.stringify({ url: `${server.urls.http}/a2a/table-expert` })}\n`);
  const stop = async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// ------------------------------------------------------------------ parent

function startServerChild() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--phase', 'server'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, url: JSON.parse(line).url });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function rpc(url, message) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }) });
  return res.json();
}

function load(url, parts, seconds) {
  const autocannon = require('autocannon');
  let n = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'SendMessage', params: { message: { messageId: `b-${process.pid}-${n}`, role: 'ROLE_USER', parts } } }),
            }),
          },
        ],
      },
      (err, r) => (err ? reject(err) : resolve(r)),
    );
  });
}

async function agentBench() {
  const { child, url } = await startServerChild();
  try {
    const cases = [
      { name: 'query: SELECT count(*) … WHERE status = …', parts: [{ data: { skill: 'query', sql: "SELECT count(*) FROM orders WHERE status = 'cancelled'" } }] },
      { name: 'ask: "How many orders were cancelled?" (planner)', parts: [{ text: 'How many orders were cancelled?' }] },
    ];
    const results = [];
    for (const c of cases) {
      const check = await rpc(url, { messageId: `check-${c.name}`, role: 'ROLE_USER', parts: c.parts });
      if (check.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`${c.name}: ${JSON.stringify(check).slice(0, 300)}`);
      if (WARMUP > 0) await load(url, c.parts, WARMUP);
      const r = await load(url, c.parts, DURATION);
      results.push({ case: c.name, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, serverRssMb: serverRss(child.pid) });
    }
    return results;
  } finally {
    child.kill('SIGTERM');
  }
}

function serverRss(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? mb(Number(m[1])) : null;
  } catch {
    return null;
  }
}

async function main() {
  if (!existsSync(path.join(DIST, 'agents/table-expert/index.js'))) {
    console.error('dist/ is missing or stale: run `npm run build` first');
    process.exit(1);
  }
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model?.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()}`;
  console.log(`Table Expert benchmark — ${machine}`);
  const report = { machine, rows: ROWS };
  if (ONLY !== 'agent') {
    const dir = path.join(os.tmpdir(), 'agentport-bench-table-expert');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `events-${ROWS}.parquet`);
    if (!existsSync(file)) {
      console.log(`writing ${ROWS.toLocaleString('en-US')} rows to ${file} …`);
      const g = await runChild('generate', ['--file', file, '--rows', String(ROWS)]);
      console.log(`  written in ${g.ms} ms`);
    }
    const size = statSync(file).size;
    const e = await runChild('engine', ['--file', file, '--rows', String(ROWS)]);
    report.engine = { file, sizeMb: Math.round(size / 2 ** 20), ...e };
    console.log(`\nEngine over ${ROWS.toLocaleString('en-US')} rows of Parquet (${report.engine.sizeMb} MiB), fresh process, 2 DuckDB threads:`);
    console.log('| step | time | RSS after | peak RSS |\n|---|---|---|---|');
    for (const s of e.steps) console.log(`| ${s.step} | ${s.ms} ms | ${s.rssMb} MiB | ${s.peakRssMb} MiB |`);
    if (!e.ok) console.log('WARNING: a step returned an unexpected result');
  }
  if (ONLY !== 'engine') {
    const a = await agentBench();
    report.agent = a;
    console.log(`\nA2A JSON-RPC SendMessage (blocking), retail sample, ${CONNECTIONS} connections, ${DURATION} s after ${WARMUP} s warm-up:`);
    console.log('| request | req/s | p50 | p99 | errors | server RSS |\n|---|---|---|---|---|---|');
    for (const r of a) console.log(`| ${r.case} | ${r.rps} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx + r.errors} | ${r.serverRssMb ?? 'n/a'} MiB |`);
  }
  console.log(`\n${JSON.stringify(report)}`);
}

if (PHASE === 'generate') await phaseGenerate(opt('file'), Number(opt('rows')));
else if (PHASE === 'engine') await phaseEngine(opt('file'));
else if (PHASE === 'server') await phaseServer();
else await main();
