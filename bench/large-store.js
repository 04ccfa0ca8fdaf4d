#!/usr/bin/env node
// Large stores (issue 18, target 5): `node bench/large-store.js` (see --help).
//
// For SQLite and for PostgreSQL: a fresh store in the real schema (`agentport db migrate`), one real
// echo task sent through a running server as the template, then N tasks and M events written
// straight into the tables (prepared-statement batches in one transaction per batch for SQLite,
// generate_series for PostgreSQL: through the API, 10 M events would take hours). Then, on the
// filled store:
//   - start-up: spawn of the real CLI → GET /readyz answers 200, several starts;
//   - ListTasks over JSON-RPC: the first page, and a page behind a deep cursor (90 % down the
//     list), p50/p99 over --calls sequential calls each;
//   - the plans of the list and count queries (EXPLAIN), printed and kept in the results.
// Every task belongs to one agent and one owner: the worst case for a per-owner list.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { rssKb } from './lib/proc.mjs';
import { freePort, sleep } from './lib/net.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'agentport.js');

const HELP = `Usage: node bench/large-store.js [options]

  --tasks N         tasks (default 1000000)
  --events N        events, spread evenly over the tasks, one per task_events row (default 10000000)
  --stores LIST     sqlite,postgres (default both)
  --calls N         ListTasks calls per query shape (default 300)
  --page-size N     ListTasks pageSize (default 50)
  --starts N        start-ups measured per store (default 3)
  --dir DIR         where the SQLite file goes (default a temp dir; deleted afterwards)
  --keep            keep the SQLite file and the PostgreSQL schema (printed) for a later look
  --pg-url URL      PostgreSQL (default postgres://postgres@127.0.0.1:5432/test)
  --out FILE        results JSON (default bench/results/large-store-latest.json)
`;

function parseArgs(argv) {
  const o = {
    tasks: 1_000_000,
    events: 10_000_000,
    stores: ['sqlite', 'postgres'],
    calls: 300,
    pageSize: 50,
    starts: 3,
    dir: null,
    keep: false,
    pgUrl: 'postgres://postgres@127.0.0.1:5432/test',
    out: path.join(ROOT, 'bench', 'results', 'large-store-latest.json'),
  };
  const nums = { '--tasks': 'tasks', '--events': 'events', '--calls': 'calls', '--page-size': 'pageSize', '--starts': 'starts' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a in nums) {
      const n = Number(next());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      o[nums[a]] = n;
    } else if (a === '--stores') o.stores = next().split(',');
    else if (a === '--dir') o.dir = path.resolve(next());
    else if (a === '--keep') o.keep = true;
    else if (a === '--pg-url') o.pgUrl = next();
    else if (a === '--out') o.out = path.resolve(next());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  for (const s of o.stores) if (s !== 'sqlite' && s !== 'postgres') throw new Error(`unknown store ${s}`);
  if (o.events < o.tasks) throw new Error('--events must be at least --tasks (each task has at least one event)');
  return o;
}

const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------- the server

const ENV = (() => {
  const env = { ...process.env, NODE_ENV: 'production' };
  delete env.AGENTPORT_CONFIG;
  return env;
})();

async function writeConfig(dir, storage) {
  const port = await freePort();
  const file = path.join(dir, 'agentport.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      server: { host: '127.0.0.1', port, dataDir: path.join(dir, 'data'), logLevel: 'warn', grpc: { enabled: false } },
      auth: { mode: 'none' },
      storage,
      agents: [{ id: 'echo', builtin: 'echo' }],
    }),
  );
  return { file, base: `http://127.0.0.1:${port}` };
}

/** Spawns the CLI and resolves once /readyz answers 200, with the ms it took. */
async function startServer(cfg, timeoutMs = 120_000) {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [BIN, 'serve', '--config', cfg.file], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b) => (out = (out + b.toString('utf8')).slice(-8_000));
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', resolve);
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`server exited during start-up:\n${out}`);
    try {
      const res = await fetch(`${cfg.base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return { proc, stop, readyMs: performance.now() - t0 };
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
  await stop();
  throw new Error(`server not ready after ${timeoutMs} ms:\n${out}`);
}

async function rpc(base, method, params) {
  const res = await fetch(`${base}/a2a/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.error) throw new Error(`${method}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.result;
}

// ---------------------------------------------------------------- the template

// Placeholders swapped into the template documents for each generated task.
const TID = '00000000-0000-4000-8000-00000000aaaa';
const CID = '00000000-0000-4000-8000-00000000cccc';
const MID = 'bench-template-message';

/** One real echo task through the real server: its row and its events, with the ids made placeholders. */
async function captureTemplate(cfg, readRows) {
  const s = await startServer(cfg);
  try {
    const result = await rpc(cfg.base, 'SendMessage', { message: { messageId: MID, role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
    const task = result.task;
    if (task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`template task not completed: ${JSON.stringify(result).slice(0, 300)}`);
    await sleep(200);
    const { row, events } = await readRows(task.id);
    const swap = (text) => text.split(task.id).join(TID).split(task.contextId).join(CID);
    // The task_events rows, split into single events: [createdAt, event] each.
    const single = events.flatMap((e) => JSON.parse(e.events).map(([, ev]) => swap(JSON.stringify(ev))));
    return { task: swap(row.task), version: Number(row.version), events: single, statusTimestamp: task.status.timestamp };
  } finally {
    await s.stop();
  }
}

/** The generated tasks: status times one 2.6 s step apart, ending now (1 M tasks ≈ 30 days). */
const STEP_MS = 2_600;

function eventsOf(tpl, perTask) {
  // Repeat the template's middle events (artifact/status updates) so the last one stays the final status.
  const first = tpl.events[0];
  const last = tpl.events[tpl.events.length - 1];
  const middle = tpl.events.slice(1, -1);
  const out = [first];
  for (let i = 0; out.length < perTask - 1; i++) out.push(middle.length ? middle[i % middle.length] : first);
  if (perTask > 1) out.push(last);
  return out.slice(0, perTask);
}

// ---------------------------------------------------------------- SQLite

async function fillSqlite(file, tpl, o) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  const perTask = Math.floor(o.events / o.tasks);
  const extra = o.events - perTask * o.tasks; // the first `extra` tasks get one more event
  const now = Date.now();
  // Sorted ids: rows go into task_events (a WITHOUT ROWID B-tree on task_id, seq) in key order.
  const ids = Array.from({ length: o.tasks }, () => randomUUID()).sort();
  const insTask = db.prepare('insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insEvent = db.prepare('insert into task_events (task_id, seq, first_seq, events, created_at) values (?, ?, ?, ?, ?)');
  const tplEvents = [eventsOf(tpl, perTask), eventsOf(tpl, perTask + 1)];
  const BATCH = 20_000;
  const t0 = performance.now();
  const batch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const id = ids[i];
      const ctx = randomUUID();
      // Spread status times over the ids so the list order is not the id order.
      const statusTime = now - ((i * 7919) % o.tasks) * STEP_MS;
      const iso = new Date(statusTime).toISOString();
      const events = tplEvents[i < extra ? 1 : 0];
      const doc = tpl.task.split(TID).join(id).split(CID).join(ctx).split(tpl.statusTimestamp).join(iso).split(MID).join(`m-${i}`);
      insTask.run(id, 'echo', 'anonymous', ctx, 'TASK_STATE_COMPLETED', statusTime, statusTime, events.length, tpl.version, doc, `m-${i}`);
      for (let s = 0; s < events.length; s++) {
        insEvent.run(id, s + 1, s + 1, `[[${statusTime},${events[s].split(TID).join(id).split(CID).join(ctx)}]]`, statusTime);
      }
    }
  });
  for (let from = 0; from < o.tasks; from += BATCH) {
    batch(from, Math.min(o.tasks, from + BATCH));
    if ((from / BATCH) % 10 === 9) log(`  sqlite: ${from + BATCH} tasks (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('analyze');
  db.close();
  return (performance.now() - t0) / 1000;
}

function explainSqlite(file, cursor, pageSize) {
  const db = new Database(file, { readonly: true });
  try {
    const plan = (sqlText, params) =>
      db
        .prepare(`explain query plan ${sqlText}`)
        .all(...params)
        .map((r) => r.detail);
    return {
      firstPage: plan('select * from tasks where agent_id = ? and owner = ? order by status_time desc, id desc limit ?', ['echo', 'anonymous', pageSize + 1]),
      deepPage: plan('select * from tasks where agent_id = ? and owner = ? and (status_time, id) < (?, ?) order by status_time desc, id desc limit ?', [
        'echo',
        'anonymous',
        cursor.statusTime,
        cursor.taskId,
        pageSize + 1,
      ]),
      count: plan('select count(*) from tasks where agent_id = ? and owner = ?', ['echo', 'anonymous']),
    };
  } finally {
    db.close();
  }
}

function deepCursorSqlite(file, depth) {
  const db = new Database(file, { readonly: true });
  try {
    const r = db.prepare("select status_time, id from tasks where agent_id = 'echo' and owner = 'anonymous' order by status_time desc, id desc limit 1 offset ?").get(depth);
    return { statusTime: Number(r.status_time), taskId: r.id };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------- PostgreSQL

async function pgClient(url, schema) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  if (schema) await c.query(`set search_path to "${schema}"`);
  return c;
}

async function fillPostgres(c, tpl, o) {
  const perTask = Math.floor(o.events / o.tasks);
  const extra = o.events - perTask * o.tasks;
  const now = Date.now();
  const t0 = performance.now();
  await c.query('set synchronous_commit = off');
  await c.query("set maintenance_work_mem = '512MB'");
  // The event log's primary key is built once at the end: faster than 10 M random-order inserts.
  await c.query('alter table task_events drop constraint task_events_pk');
  const CHUNK = 100_000;
  const tplFull = eventsOf(tpl, perTask + 1);
  for (let from = 1; from <= o.tasks; from += CHUNK) {
    const to = Math.min(o.tasks, from + CHUNK - 1);
    // md5 of the index, shaped as a UUID: stable, random-looking ids and contextIds.
    await c.query(
      `insert into tasks (id, agent_id, owner, context_id, state, status_time, created_at, seq, version, task, origin_message_id)
       select g.id, 'echo', 'anonymous', g.ctx, 'TASK_STATE_COMPLETED', g.st, g.st, $6 + (case when g.i <= $7 then 1 else 0 end), $5,
              replace(replace(replace(replace($4::text, $8, g.id), $9, g.ctx), $10, to_char(to_timestamp(g.st / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), $11, 'm-' || g.i),
              'm-' || g.i
       from (select i, md5('t' || i)::uuid::text as id, md5('c' || i)::uuid::text as ctx, $3::bigint - ((i::bigint * 7919) % $12) * ${STEP_MS} as st
             from generate_series($1::int, $2::int) i) g`,
      [from, to, now, tpl.task, tpl.version, perTask, extra, TID, CID, tpl.statusTimestamp, MID, o.tasks],
    );
    await c.query(
      `insert into task_events (task_id, seq, first_seq, events, created_at)
       select g.id, s, s, '[[' || g.st || ',' || replace(replace(($5::text[])[least(s, array_length($5::text[], 1))], $6, g.id), $7, g.ctx) || ']]', g.st
       from (select i, md5('t' || i)::uuid::text as id, md5('c' || i)::uuid::text as ctx, $3::bigint - ((i::bigint * 7919) % $8) * ${STEP_MS} as st
             from generate_series($1::int, $2::int) i) g,
            generate_series(1, $4 + (case when g.i <= $9 then 1 else 0 end)) s`,
      [from, to, now, perTask, tplFull, TID, CID, o.tasks, extra],
    );
    log(`  postgres: ${to} tasks (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await c.query('alter table task_events add constraint task_events_pk primary key (task_id, seq)');
  await c.query('vacuum analyze tasks');
  await c.query('vacuum analyze task_events');
  return (performance.now() - t0) / 1000;
}

/**
 * The rows went in around the commit statement, which keeps task_counts (migration 0014): count
 * them the way that migration does on a store filled before it, and time it. Null on a build
 * without the table.
 */
async function backfillTaskCountsPostgres(c) {
  if (!(await c.query("select to_regclass('task_counts') as t")).rows[0].t) return null;
  const t0 = performance.now();
  await c.query('begin');
  await c.query('lock table tasks in share mode');
  await c.query('delete from task_counts');
  await c.query('insert into task_counts (agent_id, owner, shard, n) select agent_id, owner, 0, count(*) from tasks group by agent_id, owner');
  await c.query('commit');
  return (performance.now() - t0) / 1000;
}

async function explainPostgres(c, cursor, pageSize) {
  const plan = async (sqlText, params) => (await c.query(`explain (analyze, buffers) ${sqlText}`, params)).rows.map((r) => r['QUERY PLAN']);
  return {
    firstPage: await plan('select * from tasks where agent_id = $1 and owner = $2 order by status_time desc, id desc limit $3', ['echo', 'anonymous', pageSize + 1]),
    deepPage: await plan('select * from tasks where agent_id = $1 and owner = $2 and (status_time, id) < ($3, $4) order by status_time desc, id desc limit $5', [
      'echo',
      'anonymous',
      cursor.statusTime,
      cursor.taskId,
      pageSize + 1,
    ]),
    count: await plan('select count(*) from tasks where agent_id = $1 and owner = $2', ['echo', 'anonymous']),
    ...((await c.query("select to_regclass('task_counts') as t")).rows[0].t
      ? { countTable: await plan('select coalesce(sum(n), 0) as n from task_counts where agent_id = $1 and owner = $2', ['echo', 'anonymous']) }
      : {}),
  };
}

async function deepCursorPostgres(c, depth) {
  const r = await c.query("select status_time, id from tasks where agent_id = 'echo' and owner = 'anonymous' order by status_time desc, id desc limit 1 offset $1", [depth]);
  return { statusTime: Number(r.rows[0].status_time), taskId: r.rows[0].id };
}

// ---------------------------------------------------------------- measuring a filled store

async function timeCalls(base, n, params) {
  const ms = [];
  let total;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await rpc(base, 'ListTasks', params);
    ms.push(performance.now() - t0);
    total = r.totalSize;
    if (!Array.isArray(r.tasks) || r.tasks.length === 0) throw new Error(`ListTasks returned no tasks: ${JSON.stringify(r).slice(0, 200)}`);
  }
  ms.sort((a, b) => a - b);
  return { calls: n, totalSize: total, p50: percentile(ms, 50), p90: percentile(ms, 90), p99: percentile(ms, 99), max: ms[ms.length - 1] };
}

async function measure(cfg, cursor, o) {
  const starts = [];
  for (let i = 0; i < o.starts; i++) {
    const s = await startServer(cfg);
    starts.push(Math.round(s.readyMs));
    log(`  start-up ${i + 1}: ${s.readyMs.toFixed(0)} ms to /readyz`);
    if (i < o.starts - 1) await s.stop();
    else {
      try {
        // Warm-up: the first calls compile the routes and fill the caches.
        await timeCalls(cfg.base, 20, { pageSize: o.pageSize });
        const firstPage = await timeCalls(cfg.base, o.calls, { pageSize: o.pageSize });
        log(`  ListTasks first page: p50 ${firstPage.p50.toFixed(2)} ms, p99 ${firstPage.p99.toFixed(2)} ms (totalSize ${firstPage.totalSize})`);
        // The deep position as the server's own token for it: with the total of the listing's first page.
        const token = Buffer.from(JSON.stringify([cursor.statusTime, cursor.taskId, firstPage.totalSize])).toString('base64url');
        const deepPage = await timeCalls(cfg.base, o.calls, { pageSize: o.pageSize, pageToken: token });
        log(`  ListTasks deep cursor: p50 ${deepPage.p50.toFixed(2)} ms, p99 ${deepPage.p99.toFixed(2)} ms`);
        // A token without the total (as servers before it issued them): that page counts again.
        const legacyToken = Buffer.from(JSON.stringify([cursor.statusTime, cursor.taskId])).toString('base64url');
        const deepPageCounting = await timeCalls(cfg.base, Math.min(o.calls, 100), { pageSize: o.pageSize, pageToken: legacyToken });
        log(`  ListTasks deep cursor, token without total: p50 ${deepPageCounting.p50.toFixed(2)} ms, p99 ${deepPageCounting.p99.toFixed(2)} ms`);
        const rssMb = Math.round((rssKb(s.proc.pid) ?? 0) / 102.4) / 10;
        return { startupMs: starts, firstPage, deepPage, deepPageCounting, rssMb };
      } finally {
        await s.stop();
      }
    }
  }
}

async function runSqlite(o) {
  const dir = o.dir ?? mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-large-'));
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const file = path.join(dir, 'large.db');
  try {
    const cfg = await writeConfig(dir, { driver: 'sqlite', file });
    execFileSync(process.execPath, [BIN, 'db', 'migrate', '--config', cfg.file], { env: ENV, stdio: 'pipe' });
    const tpl = await captureTemplate(cfg, async (taskId) => {
      const db = new Database(file, { readonly: true });
      try {
        return { row: db.prepare('select * from tasks where id = ?').get(taskId), events: db.prepare('select * from task_events where task_id = ? order by seq').all(taskId) };
      } finally {
        db.close();
      }
    });
    log(`sqlite: filling ${o.tasks} tasks / ${o.events} events into ${file}…`);
    const fillS = await fillSqlite(file, tpl, o);
    const sizeMb = Math.round(Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]) / 1048576);
    log(`sqlite: filled in ${fillS.toFixed(0)} s, ${sizeMb} MB on disk`);
    const cursor = deepCursorSqlite(file, Math.floor(o.tasks * 0.9));
    const plans = explainSqlite(file, cursor, o.pageSize);
    log(`sqlite plans: ${JSON.stringify(plans)}`);
    return { store: 'sqlite', fillSeconds: fillS, sizeMb, plans, deepCursorDepth: Math.floor(o.tasks * 0.9), ...(await measure(cfg, cursor, o)) };
  } finally {
    if (o.keep) log(`kept ${file}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

async function runPostgres(o) {
  const schema = `bench_large_${Date.now().toString(36)}_${process.pid}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentport-bench-large-pg-'));
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const admin = await pgClient(o.pgUrl);
  try {
    const cfg = await writeConfig(dir, { driver: 'postgres', url: o.pgUrl, schema });
    execFileSync(process.execPath, [BIN, 'db', 'migrate', '--config', cfg.file], { env: ENV, stdio: 'pipe' });
    const c = await pgClient(o.pgUrl, schema);
    try {
      const tpl = await captureTemplate(cfg, async (taskId) => ({
        row: (await c.query('select * from tasks where id = $1', [taskId])).rows[0],
        events: (await c.query('select * from task_events where task_id = $1 order by seq', [taskId])).rows,
      }));
      log(`postgres: filling ${o.tasks} tasks / ${o.events} events into schema ${schema}…`);
      const fillS = await fillPostgres(c, tpl, o);
      const size = await c.query("select pg_size_pretty(sum(pg_total_relation_size(c.oid))) as s from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'", [schema]);
      log(`postgres: filled in ${fillS.toFixed(0)} s, ${size.rows[0].s}`);
      const backfillS = await backfillTaskCountsPostgres(c);
      if (backfillS !== null) log(`postgres: task_counts backfilled (migration 0014's statement) in ${backfillS.toFixed(1)} s`);
      const cursor = await deepCursorPostgres(c, Math.floor(o.tasks * 0.9));
      const plans = await explainPostgres(c, cursor, o.pageSize);
      log(
        `postgres plans:\n${Object.entries(plans)
          .map(([k, v]) => `${k}:\n  ${v.join('\n  ')}`)
          .join('\n')}`,
      );
      return { store: 'postgres', fillSeconds: fillS, taskCountsBackfillSeconds: backfillS, size: size.rows[0].s, plans, deepCursorDepth: Math.floor(o.tasks * 0.9), ...(await measure(cfg, cursor, o)) };
    } finally {
      await c.end();
    }
  } finally {
    if (o.keep) log(`kept schema ${schema}`);
    else await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const results = { when: new Date().toISOString(), options: o, machine: { cpus: os.cpus().length, node: process.version, loadavgBefore: os.loadavg() }, stores: [] };
  for (const s of o.stores) results.stores.push(s === 'sqlite' ? await runSqlite(o) : await runPostgres(o));
  results.machine.loadavgAfter = os.loadavg();
  mkdirSync(path.dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  let text = `\n${o.tasks} tasks, ${o.events} events, one agent and owner; ListTasks pageSize ${o.pageSize}, ${o.calls} calls each\n\n`;
  text += '| store | start-up ms (each start) | first page p50 / p99 ms | deep cursor p50 / p99 ms | totalSize | server RSS MB |\n|---|---|---|---|---|---|\n';
  for (const r of results.stores) {
    text += `| ${r.store} | ${r.startupMs.join(', ')} | ${r.firstPage.p50.toFixed(2)} / ${r.firstPage.p99.toFixed(2)} | ${r.deepPage.p50.toFixed(2)} / ${r.deepPage.p99.toFixed(2)} | ${r.firstPage.totalSize} | ${r.rssMb} |\n`;
  }
  process.stdout.write(`${text}\nresults: ${path.relative(process.cwd(), o.out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
