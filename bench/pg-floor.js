#!/usr/bin/env node
// The floor of "PostgreSQL one replica ÷ SQLite" on this machine (issue 26, pg15): how close ANY
// server can come, measured beside Agentport in the same run. `node bench/pg-floor.js [options]`.
//
// Six servers, each loaded alone by wrk (32 connections, one thread, as bench/ab.js --sequential),
// the order reversed every other round, `uptime` printed before each round:
//   bare-sqlite-pk / bare-sqlite-idx: bare node:http answering the echo's task JSON after writing one
//     row a request, as wide as a stored echo task (every column of `tasks`, the same values), into
//     embedded SQLite (better-sqlite3, WAL, synchronous=NORMAL), the rows of one event-loop turn
//     in one transaction (a group commit); "pk" the table with its primary key only, "idx" with the
//     secondary indexes `tasks` has (list, context, message id unique, running partial, usage time).
//   bare-pg-pk / bare-pg-idx: the same server writing into PostgreSQL (pg), a turn's rows (at most
//     64) as one multi-row insert prepared once a row count, up to pool − 1 inserts in flight (as
//     src/store/group-commit.ts pipelines), synchronous_commit as the server has it.
//   agentport-sqlite / agentport-pg: `bin/agentport.js serve` with its default store and with
//     PostgreSQL + the Redis bus.
// Prints each req/s, the CPU a request of the server process and of the PostgreSQL backends serving
// it (not the WAL writer's, shared by every client of the server), and the ratios PG ÷ SQLite for the bare pairs and for Agentport. The bare
// pair with indexes is the best a server storing what Agentport stores can do here.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWrk, runWrk } from './lib/load.mjs';
import { backendPids, backendsCpuSeconds } from './lib/pg-backends.mjs';
import { processCpuSeconds } from './lib/proc.mjs';
import { freePort, sleep } from './lib/net.mjs';
import { parseCommandLine, value } from './lib/options.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/pg-floor.js [--rounds N] [--duration S] [--warmup S] [--connections N]
                            [--pg-url URL] [--redis-url URL] [--only a,b,…]
                            [--pg-in-flight N] [--pg-synchronous-commit on|off] [--pg-driver pg|postgres]
  --pg-in-flight            the bare PostgreSQL server's inserts in flight at once (default 9: pool − 1)
  --pg-synchronous-commit   the bare PostgreSQL server's setting (default: the server's own)
  --pg-rows values|json     the bare PostgreSQL server's batch as a multi-row insert of 37 parameters
                            a row (default), or as one JSON text (json_populate_recordset)
  --pg-driver               the bare PostgreSQL server's driver: pg (default, Agentport's) or postgres
                            (porsager's postgres.js, not a dependency: npm install --no-save postgres)
  servers: bare-sqlite-pk, bare-sqlite-idx, bare-pg-pk, bare-pg-idx, agentport-sqlite, agentport-pg`;
const opts = {
  rounds: 3,
  duration: 8,
  warmup: 2,
  connections: 32,
  pgUrl: 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: 'redis://127.0.0.1:6379',
  only: undefined,
  serve: undefined,
  pgInFlight: 9,
  pgSync: undefined,
  pgRows: 'values',
  pgDriver: 'pg',
};
parseCommandLine(HELP, {
  '--rounds': value((v) => (opts.rounds = Number(v))),
  '--duration': value((v) => (opts.duration = Number(v))),
  '--warmup': value((v) => (opts.warmup = Number(v))),
  '--connections': value((v) => (opts.connections = Number(v))),
  '--pg-url': value((v) => (opts.pgUrl = v)),
  '--redis-url': value((v) => (opts.redisUrl = v)),
  '--only': value((v) => (opts.only = v.split(','))),
  '--pg-in-flight': value((v) => (opts.pgInFlight = Number(v))),
  '--pg-synchronous-commit': value((v) => (opts.pgSync = v)),
  '--pg-rows': value((v) => (opts.pgRows = v)),
  '--pg-driver': value((v) => (opts.pgDriver = v)),
  // internal: run one bare server in this process (store:indexes:port:where)
  '--serve': value((v) => (opts.serve = v)),
});

const workload = WORKLOADS.a2a;

// ---------------------------------------------------------------- the bare servers (child side)

// The product's own column lists (dist/), so the bare table stays as wide as `tasks` is.
const { TASK_ROW_COLUMNS } = await import(path.join(ROOT, 'dist', 'store', 'rows.js'));
const { TASK_USAGE_COLUMNS } = await import(path.join(ROOT, 'dist', 'store', 'usage', 'task-usage-columns.js'));
const COLUMNS = [...TASK_ROW_COLUMNS, ...TASK_USAGE_COLUMNS, 'final_events'];
const USAGE_INT = ['usage_time', 'usage_started_at', 'usage_bytes_in', 'usage_prompt_tokens', 'usage_completion_tokens', 'usage_cached_tokens', 'usage_final'];
const INTEGER = new Set(['status_time', 'created_at', 'seq', 'version', 'lease_expires_at', ...USAGE_INT]);

function tableSql(pg) {
  const type = (c) => (c === 'usage_duration_ms' ? 'double precision' : c === 'usage_cost' ? 'numeric' : INTEGER.has(c) ? (pg ? 'bigint' : 'integer') : 'text');
  const notNull = new Set(['id', 'agent_id', 'owner', 'context_id', 'state', 'status_time', 'created_at', 'seq', 'version', 'task']);
  return `create table tasks (${COLUMNS.map((c) => `${c} ${type(c)}${notNull.has(c) ? ' not null' : ''}${c === 'id' ? ' primary key' : ''}`).join(', ')})`;
}

/** The secondary indexes `tasks` has on each store (migrations 0001, 0007/0028, 0023, 0024). */
function indexSql(pg) {
  const running = "state in ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED')";
  return [
    'create index tasks_list_idx on tasks (agent_id, owner, status_time desc, id desc)',
    'create index tasks_context_idx on tasks (context_id)',
    pg ? 'create unique index tasks_origin_message_idx on tasks (origin_message_id, agent_id, owner)' : 'create unique index tasks_origin_message_idx on tasks (agent_id, owner, origin_message_id)',
    `create index tasks_running_idx on tasks (state, lease_expires_at) where ${running}`,
    'create index tasks_usage_time_idx on tasks (usage_time) where usage_time is not null',
  ];
}

/** A UUIDv7-shaped id: time-ordered like the ids Agentport makes, so the primary key appends. */
let idSeq = 0;
function timeId(now) {
  const hex = now.toString(16).padStart(12, '0');
  const n = (idSeq = (idSeq + 1) & 0xfffffff).toString(16).padStart(7, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${n.slice(0, 3)}-b${n.slice(3)}-${process.pid.toString(16).padStart(12, '0').slice(-12)}`;
}

/** One echo task's row, as Agentport stores it (values from a stored echo task). */
function echoRow(messageId) {
  const now = Date.now();
  const id = timeId(now);
  const ctx = timeId(now);
  const at = new Date(now).toISOString();
  const task = `{"id":"${id}","contextId":"${ctx}","status":{"state":"TASK_STATE_COMPLETED","timestamp":"${at}"},"artifacts":[{"artifactId":"artifact-1","parts":[{"text":"hello"}],"name":"echo"}],"history":[{"messageId":"${messageId}","role":"ROLE_USER","parts":[{"text":"hello"}],"contextId":"${ctx}","taskId":"${id}"}]}`;
  const finalEvents = `{"t":3,"e":[[${now},{"task":{"id":0,"contextId":0,"status":{"state":"TASK_STATE_SUBMITTED","timestamp":"${at}"},"history":[0]}}],[${now},{"artifactUpdate":{"taskId":0,"contextId":0,"artifact":0}}],[${now},{"statusUpdate":{"taskId":0,"contextId":0,"status":0}}]]}`;
  const row = {
    id,
    agent_id: 'echo',
    owner: 'anonymous',
    context_id: ctx,
    state: 'TASK_STATE_COMPLETED',
    status_time: now,
    created_at: now,
    seq: 3,
    version: 1,
    task,
    lease_owner: 'vm-floor',
    lease_expires_at: now + 15000,
    origin_message_id: messageId,
    usage_time: now,
    usage_final: 1,
    usage_started_at: now - 40,
    usage_replica: 'vm-floor',
    usage_face: 'a2a-jsonrpc/1.0',
    usage_operation: 'SendMessage',
    usage_skill: 'echo',
    usage_duration_ms: 2,
    usage_prompt_tokens: 0,
    usage_completion_tokens: 0,
    usage_cached_tokens: 0,
    usage_cost: 0,
    final_events: finalEvents,
  };
  // Every column the product has, in its order; the ones an echo leaves empty are null.
  return { task, values: COLUMNS.map((c) => row[c] ?? null) };
}

async function serveBare(spec) {
  const [store, indexes, port, where] = spec.split(':');
  const pg = store === 'pg';
  let write; // (rows) => Promise<void>, one batch
  let concurrency;
  if (pg) {
    const { default: PG } = await import('pg');
    const schema = where;
    const admin = new PG.Client({ connectionString: opts.pgUrl });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade; create schema ${schema}`);
    await admin.end();
    const width = COLUMNS.length;
    const texts = new Map();
    const textFor = (n) => {
      let t = texts.get(n);
      if (!t) {
        const rows = [];
        for (let r = 0; r < n; r++) rows.push(`(${COLUMNS.map((_, c) => `$${r * width + c + 1}`).join(', ')})`);
        t = `insert into tasks (${COLUMNS.join(', ')}) values ${rows.join(', ')}`;
        texts.set(n, t);
      }
      return t;
    };
    // values: 37 parameters a row (the driver encodes each); json: the batch as one text parameter
    const json = `insert into tasks select * from json_populate_recordset(null::tasks, $1::json)`;
    const jsonOf = (rows) => JSON.stringify(rows.map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]]))));
    if (opts.pgDriver === 'postgres') {
      // porsager's postgres.js: the same statements, prepared once a connection, pipelined
      const { default: postgres } = await import('postgres');
      const connection = { search_path: schema, ...(opts.pgSync ? { synchronous_commit: opts.pgSync } : {}) };
      const sql = postgres(opts.pgUrl, { max: opts.pgInFlight + 1, connection, onnotice: () => {} });
      await sql.unsafe(tableSql(true));
      if (indexes === 'idx') for (const s of indexSql(true)) await sql.unsafe(s);
      write = opts.pgRows === 'json' ? (rows) => sql.unsafe(json, [jsonOf(rows)], { prepare: true }) : (rows) => sql.unsafe(textFor(rows.length), rows.flat(), { prepare: true });
    } else {
      const sync = opts.pgSync ? ` -c synchronous_commit=${opts.pgSync}` : '';
      const pool = new PG.Pool({ connectionString: opts.pgUrl, max: opts.pgInFlight + 1, options: `-c search_path=${schema}${sync}` });
      await pool.query(tableSql(true));
      if (indexes === 'idx') for (const s of indexSql(true)) await pool.query(s);
      write =
        opts.pgRows === 'json'
          ? (rows) => pool.query({ name: 'floor_insert_json', text: json, values: [jsonOf(rows)] })
          : (rows) => pool.query({ name: `floor_insert_${rows.length}`, text: textFor(rows.length), values: rows.flat() });
    }
    concurrency = opts.pgInFlight;
  } else {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(where, 'floor.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(tableSql(false));
    if (indexes === 'idx') for (const s of indexSql(false)) db.exec(s);
    const insert = db.prepare(`insert into tasks (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    const batch = db.transaction((rows) => {
      for (const r of rows) insert.run(r);
    });
    write = async (rows) => batch(rows);
    concurrency = 1;
  }
  // A group commit: the rows of one event-loop turn go as one batch; a batch waits while
  // `concurrency` are in flight, and the rows arriving meanwhile join the next one.
  let queue = [];
  let inFlight = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled || inFlight >= concurrency || queue.length === 0) return;
    scheduled = true;
    setImmediate(drain);
  };
  function drain() {
    scheduled = false;
    while (inFlight < concurrency && queue.length > 0) {
      const batch = queue.slice(0, 64);
      queue = queue.slice(batch.length);
      inFlight++;
      write(batch.map((b) => b.values)).then(
        () => settle(batch, undefined),
        (err) => settle(batch, err),
      );
    }
  }
  function settle(batch, err) {
    inFlight--;
    for (const b of batch) b.done(err);
    schedule();
  }
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const m = /"messageId":"([^"]*)"/.exec(body);
      const row = echoRow(m ? m[1] : `none-${Math.random()}`);
      queue.push({
        values: row.values,
        done: (err) => {
          if (err) {
            res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err.message) }));
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":1,"result":{"task":${row.task}}}`);
        },
      });
      schedule();
    });
  });
  server.listen(Number(port), '127.0.0.1');
}

if (opts.serve) {
  await serveBare(opts.serve);
} else {
  await main();
}

// ---------------------------------------------------------------- the harness

async function waitReady(child, url, label) {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${label} exited`);
    try {
      const res = await fetch(url, { method: 'POST', headers: workload.headers, body: `${workload.bodyPrefix}check-${label}-${Date.now()}${workload.bodySuffix}` });
      const text = await res.text();
      if (res.status === 200 && text.includes('TASK_STATE_COMPLETED')) return;
      throw new Error(`${label} answered ${res.status}: ${text.slice(0, 200)}`);
    } catch (err) {
      if (i > 600) throw err;
      await sleep(100);
    }
  }
}

async function startServer(name, work, tag) {
  const port = await freePort();
  const dir = path.join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let args;
  if (name.startsWith('bare-')) {
    const [, store, indexes] = name.split('-');
    const pgArgs = ['--pg-url', opts.pgUrl, '--pg-in-flight', String(opts.pgInFlight), '--pg-rows', opts.pgRows, '--pg-driver', opts.pgDriver, ...(opts.pgSync ? ['--pg-synchronous-commit', opts.pgSync] : [])];
    args = [fileURLToPath(import.meta.url), '--serve', `${store}:${indexes}:${port}:${store === 'pg' ? `pgfloor_${tag}_${indexes}` : dir}`, ...pgArgs];
  } else {
    const config = path.join(work, `${name}.yaml`);
    const pgYaml = `storage: {driver: postgres, url: "${opts.pgUrl}", schema: pgfloor_${tag}_ap, maxConnections: 10}\nbus: {driver: redis, url: "${opts.redisUrl}", prefix: pgfloor-${tag}}\n`;
    writeFileSync(config, name === 'agentport-pg' ? pgYaml : '');
    args = [path.join(ROOT, 'bin/agentport.js'), 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dir, '--auth', 'none', '--config', config];
  }
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  let stderr = ''; // Agentport writes its banner here; kept to explain an exit
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  process.on('exit', () => child.exitCode === null && child.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}${workload.path}`;
  await waitReady(child, url, name).catch((err) => {
    throw new Error(`${err.message}\n${stderr.trim()}`);
  });
  return { name, child, url };
}

function uptime() {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function main() {
  if (!ensureWrk()) {
    console.error('wrk is not installed: apt-get install -y wrk');
    process.exit(2);
  }
  const names = opts.only ?? ['bare-sqlite-pk', 'bare-sqlite-idx', 'bare-pg-pk', 'bare-pg-idx', 'agentport-sqlite', 'agentport-pg'];
  const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-pg-floor-'));
  const tag = `${process.pid}`;
  const servers = [];
  for (const n of names) servers.push(await startServer(n, work, tag));
  const rps = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const { default: PG } = await import('pg');
  const admin = new PG.Client({ connectionString: opts.pgUrl });
  await admin.connect();
  const pgPort = Number(new URL(opts.pgUrl).port || 5432);
  const load = (s, durationS, runId) => runWrk({ url: s.url, connections: opts.connections, threads: 1, durationS, headers: workload.headers, bodyPrefix: workload.bodyPrefix, bodySuffix: workload.bodySuffix, runId });
  for (let round = 1; round <= opts.rounds; round++) {
    console.log(`round ${round}: load average ${uptime()}`);
    const order = round % 2 === 1 ? servers : [...servers].reverse();
    for (const s of order) {
      if (opts.warmup > 0) await load(s, opts.warmup, `w${round}-${s.name}-${tag}`);
      // the backends the warm-up left open: a pool keeps them while it is loaded
      const backends = s.name.includes('pg') ? await backendPids(admin, s.child.pid, pgPort) : [];
      const before = { server: processCpuSeconds(s.child.pid), db: backendsCpuSeconds(backends) };
      const r = await load(s, opts.duration, `r${round}-${s.name}-${tag}`);
      const serverUs = ((processCpuSeconds(s.child.pid) - before.server) * 1e6) / r.requests;
      const dbUs = ((backendsCpuSeconds(backends) - before.db) * 1e6) / r.requests;
      rps[s.name].push(r.rps);
      cpu[s.name].push(serverUs + dbUs);
      const db = backends.length ? `, its ${backends.length} backends ${dbUs.toFixed(1)} µs` : '';
      console.log(`  ${s.name.padEnd(17)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.latencyMs.p50.toFixed(2)} ms  errors ${r.errorsTotal}  CPU a request: server ${serverUs.toFixed(1)} µs${db}  (load ${uptime()})`);
    }
  }
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  console.log(`\nmean req/s over ${opts.rounds} round(s), load average at the end ${uptime()}`);
  for (const n of names)
    console.log(`  ${n.padEnd(17)} ${mean(rps[n]).toFixed(0).padStart(7)}   rounds ${rps[n].map((x) => x.toFixed(0)).join(', ')}   CPU a request (server + its backends) ${mean(cpu[n]).toFixed(1)} µs`);
  const ratio = (a, b) => {
    if (!rps[a] || !rps[b]) return;
    const perRound = rps[a].map((x, i) => (x / rps[b][i]).toFixed(3)).join(', ');
    console.log(`  ${a} ÷ ${b} = ${mean(rps[a]).toFixed(0)} ÷ ${mean(rps[b]).toFixed(0)} = ${(mean(rps[a]) / mean(rps[b])).toFixed(3)}   (rounds ${perRound})`);
  };
  console.log('\nPG ÷ SQLite');
  ratio('bare-pg-pk', 'bare-sqlite-pk');
  ratio('bare-pg-idx', 'bare-sqlite-idx');
  ratio('agentport-pg', 'agentport-sqlite');
  for (const s of servers) s.child.kill('SIGTERM');
  await sleep(500);
  // The bare servers' schemas are this run's own; Agentport's is left as the store made it.
  for (const i of ['pk', 'idx', 'ap']) await admin.query(`drop schema if exists pgfloor_${tag}_${i} cascade`);
  await admin.end();
  rmSync(work, { recursive: true, force: true });
}
