#!/usr/bin/env node
// Usage analytics over a month on SQLite: `npm run build`, then
// `node bench/usage-query.js [--rows N] [--days N] [--runs N] [--shape workloads|independent] [--keep FILE]`.
//
// Fills a fresh SQLite file with N usage records (default 1,000,000) spread over the last D days
// (default 30) through the usage store's own write path (one transaction per 50,000 records,
// prepared insert), rolls up every hour that closed 10 minutes before "now", then times the
// analytics queries over the whole range: group by agent, by subject + outcome, and by agent per
// day, each run R times (default 20); reports p50 / p95 in ms. The query reads whole days from
// usage_daily, the hours of the current day from usage_hourly and the partial last hour from raw
// rows, as a live query would. How far the rollups compress depends on the traffic's shape (see
// SHAPE below); the figures print the row counts.
// Target (issue 13): under 200 ms.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROWS = Number(arg('rows', 1_000_000));
const DAYS = Number(arg('days', 30));
const RUNS = Number(arg('runs', 20));
const KEEP = arg('keep', undefined);
const SHAPE = arg('shape', 'workloads');
const HOUR = 3_600_000;

const { openSqliteStore } = await import(path.join(ROOT, 'dist/store/index.js'));

// Deterministic pseudo-random numbers (mulberry32), so every run measures the same data.
let seed = 0x5eed;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
/** index in [0, n) skewed towards 0 (a few values take most of the traffic) */
const skewed = (n) => Math.floor(n * random() ** 3);
const pick = (weighted) => {
  let r = random();
  for (const [value, w] of weighted) if ((r -= w) < 0) return value;
  return weighted[weighted.length - 1][0];
};

const AGENTS = Array.from({ length: 12 }, (_, i) => `agent-${i}`);
const SUBJECTS = Array.from({ length: 200 }, (_, i) => `user-${i}`);
const CLIENTS = Array.from({ length: 10 }, (_, i) => `client-${i}`);
const USECASES = ['support', 'sales', 'research', 'ops', 'finance', 'hr'];
const TOOLS = ['search', 'fetch', 'query_table_expert', 'summarize', 'translate', 'classify', 'extract', 'plan'];
const FACES = [
  ['a2a-jsonrpc/1.0', 0.45],
  ['a2a-rest/1.0', 0.1],
  ['a2a-grpc/1.0', 0.05],
  ['mcp/2025-11-25', 0.35],
  ['cards', 0.05],
];
const OUTCOMES = [
  ['TASK_STATE_COMPLETED', 0.82],
  ['TASK_STATE_FAILED', 0.05],
  ['TASK_NOT_FOUND', 0.03],
  ['QUOTA_EXCEEDED', 0.02],
  ['TASK_STATE_CANCELED', 0.08],
];

/**
 * 'workloads' (default): traffic as a gateway sees it: 80 workloads (a subject calling through
 * one face, one client or key, a use case, and one to three agent skills or tools), their volume
 * skewed, plus a 2% tail of one-off callers; outcomes mostly successful.
 * 'independent': every field drawn independently (the worst case for rollups: nearly every
 * record is its own combination, even per day).
 */
const WORKLOADS = Array.from({ length: 80 }, () => {
  const face = pick(FACES);
  const subjectIx = skewed(SUBJECTS.length);
  const agentIx = skewed(AGENTS.length);
  const ops = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ agentIx: random() < 0.7 ? agentIx : skewed(AGENTS.length), skill: skewed(3), tool: TOOLS[skewed(TOOLS.length)] }));
  return { face, subjectIx, ops };
});

function record(i, time) {
  if (SHAPE === 'independent') return independentRecord(i, time, pick(FACES), skewed(AGENTS.length), skewed(SUBJECTS.length), skewed(3), TOOLS[skewed(TOOLS.length)]);
  if (random() < 0.02) return independentRecord(i, time, pick(FACES), skewed(AGENTS.length), Math.floor(random() * SUBJECTS.length), skewed(3), TOOLS[skewed(TOOLS.length)]);
  const w = WORKLOADS[skewed(WORKLOADS.length)];
  const op = w.ops[Math.floor(random() * w.ops.length)];
  return independentRecord(i, time, w.face, op.agentIx, w.subjectIx, op.skill, op.tool);
}

function independentRecord(i, time, face, agentIx, subjectIx, skillIx, tool) {
  const viaClient = subjectIx % 2 === 0;
  const base = {
    id: `u-${i}`,
    time,
    startedAt: time - 50,
    final: true,
    replica: 'r1',
    face,
    agent: AGENTS[agentIx],
    subject: SUBJECTS[subjectIx],
    ...(viaClient ? { clientId: CLIENTS[subjectIx % CLIENTS.length] } : { keyId: `key-${subjectIx}` }),
    usecase: USECASES[subjectIx % USECASES.length],
    latencyMs: Math.exp(random() * 9),
    bytesIn: 200 + Math.floor(random() * 2000),
    bytesOut: 300 + Math.floor(random() * 20000),
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
  };
  if (face === 'cards') return { ...base, kind: 'call', operation: 'GET /.well-known/agent-card.json', outcome: 'OK', error: false };
  if (face.startsWith('mcp')) {
    const failed = random() < 0.04;
    return { ...base, kind: 'call', operation: 'tools/call', tool, outcome: failed ? 'TOOL_ERROR' : 'OK', error: failed };
  }
  if (random() < 0.15) {
    const missing = random() < 0.5;
    return { ...base, kind: 'call', operation: 'GetTask', outcome: missing ? 'TASK_NOT_FOUND' : 'OK', error: missing };
  }
  const outcome = pick(OUTCOMES);
  const prompt = Math.floor(random() * 3000);
  const completion = Math.floor(random() * 800);
  return {
    ...base,
    kind: 'task',
    operation: 'SendMessage',
    skill: `skill-${agentIx}-${skillIx}`,
    taskId: base.id,
    outcome,
    error: outcome !== 'TASK_STATE_COMPLETED' && outcome !== 'TASK_STATE_CANCELED',
    durationMs: Math.exp(random() * 12),
    model: 'gpt-x',
    promptTokens: prompt,
    completionTokens: completion,
    cost: 1 + (prompt + completion) / 1000,
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-usage-'));
const file = KEEP ?? path.join(dir, 'usage.db');
// --keep FILE: an existing file is measured again as it is (no fill), to compare query changes.
const refill = !KEEP || !existsSync(KEEP);
const store = await openSqliteStore({ file });
try {
  await store.migrate();
  const now = Date.UTC(2026, 0, 31, 15, 42);
  const start = now - DAYS * 24 * HOUR;
  const step = (now - start) / ROWS;
  let t0 = performance.now();
  const CHUNK = 50_000;
  for (let i = 0; refill && i < ROWS; i += CHUNK) {
    const batch = [];
    for (let j = i; j < Math.min(ROWS, i + CHUNK); j++) batch.push(record(j, Math.floor(start + j * step)));
    await store.usage.write(batch, []);
  }
  const fillS = (performance.now() - t0) / 1000;

  t0 = performance.now();
  const hours = await store.usage.rollup(now - 10 * 60_000);
  const rollupS = (performance.now() - t0) / 1000;

  const Sqlite = (await import('better-sqlite3')).default;
  const peek = new Sqlite(file, { readonly: true });
  const hourlyRows = peek.prepare('select count(*) as n from usage_hourly').get().n;
  const dailyRows = peek.prepare('select count(*) as n from usage_daily').get().n;
  peek.close();

  console.log(`usage-query: ${ROWS.toLocaleString('en')} records over ${DAYS} days (${SHAPE}), file ${(statSync(file).size / 1e6).toFixed(0)} MB`);
  console.log(
    `  fill ${fillS.toFixed(1)} s (${Math.round(ROWS / fillS).toLocaleString('en')} records/s); rollup of ${hours} hours ${rollupS.toFixed(1)} s -> ${hourlyRows.toLocaleString('en')} hourly rows, ${dailyRows.toLocaleString('en')} daily rows`,
  );

  const queries = [
    ['group by agent', { groupBy: ['agent'] }],
    ['group by subject, outcome', { groupBy: ['subject', 'outcome'] }],
    ['group by agent, per day', { groupBy: ['agent'], bucket: 'day' }],
  ];
  const results = [];
  for (const [name, q] of queries) {
    const query = { filters: {}, from: start, to: now, ...q };
    let groups = [];
    const times = [];
    const cpu = [];
    // one warm-up run, then the measured ones
    for (let r = 0; r <= RUNS; r++) {
      const c0 = process.cpuUsage();
      const t = performance.now();
      groups = await store.usage.query(query);
      const c = process.cpuUsage(c0);
      if (r > 0) {
        times.push(performance.now() - t);
        cpu.push((c.user + c.system) / 1000);
      }
    }
    const at = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];
    const calls = groups.reduce((s, g) => s + g.calls, 0);
    results.push({ name, p50: at(times, 0.5), p95: at(times, 0.95), cpu50: at(cpu, 0.5), cpu95: at(cpu, 0.95), groups: groups.length, calls });
  }
  // Wall time includes waiting for a core on a busy machine; CPU time is what the query costs.
  const f = (x) => x.toFixed(1).padStart(7);
  for (const r of results) {
    console.log(`  ${r.name.padEnd(28)} wall p50 ${f(r.p50)} p95 ${f(r.p95)} ms   cpu p50 ${f(r.cpu50)} p95 ${f(r.cpu95)} ms   (${r.groups} groups, ${r.calls.toLocaleString('en')} calls)`);
  }
  const worst = Math.max(...results.map((r) => r.p95));
  const worstCpu = Math.max(...results.map((r) => r.cpu95));
  console.log(`  slowest p95: wall ${worst.toFixed(1)} ms, cpu ${worstCpu.toFixed(1)} ms (target 200 ms); load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
} finally {
  await store.close();
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
}
