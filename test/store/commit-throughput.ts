/**
 * Commit throughput of the store: batches of 32 simple commits (a new task with its snapshot
 * event, then a status update on each). SQLite on a temp file in WAL mode by default; with
 * AGENTPORT_BENCH_PG=<url>, PostgreSQL in a throwaway schema.
 *
 *   npx vite-node test/store/commit-throughput.ts [total=200000] [batch=32] [normal|full]
 *
 * On PostgreSQL it also reports the CPU its backends spent (Linux: their /proc stat, found by
 * application_name), the cost a commit puts on the database server.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Task } from '../../src/protocol/a2a/types.js';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store, TaskCommit } from '../../src/store/store.js';

const total = Number(process.argv[2] ?? 200_000);
const batchSize = Number(process.argv[3] ?? 32);
const synchronous = process.argv[4] === 'full' ? 'full' : 'normal';

const pgUrl = process.env.AGENTPORT_BENCH_PG;
const dir = mkdtempSync(join(tmpdir(), 'agentport-bench-'));
const schema = `bench_${process.pid}`;
const store: Store = pgUrl ? await openPostgresStore({ connectionString: withApplicationName(pgUrl, schema), schema }) : await openSqliteStore({ file: join(dir, 'bench.db'), synchronous });
await store.migrate();
const backend = pgUrl ? 'postgres' : `sqlite synchronous=${synchronous}`;

function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

/** CPU seconds of this benchmark's PostgreSQL backends so far; undefined without PostgreSQL or /proc. */
async function backendCpuSeconds(): Promise<number | undefined> {
  if (!pgUrl) return undefined;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [schema]);
    let ticks = 0;
    for (const { pid } of rows) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / 100;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

function newTask(i: number, now: number): TaskCommit {
  const task: Task = {
    id: `task-${i}`,
    contextId: `ctx-${i}`,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(now).toISOString() },
    history: [{ messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'hello agent' }] }],
  };
  return {
    agentId: 'echo',
    owner: 'user-1',
    task,
    expectedVersion: 0,
    seq: 1,
    events: [{ taskId: task.id, seq: 1, event: { task }, createdAt: now }],
    outbox: [],
    createdAt: now,
  };
}

function completed(prev: TaskCommit, now: number): TaskCommit {
  const status = { state: 'TASK_STATE_COMPLETED' as const, timestamp: new Date(now).toISOString() };
  const task: Task = { ...prev.task, status };
  return {
    ...prev,
    task,
    expectedVersion: 1,
    seq: 2,
    events: [{ taskId: task.id, seq: 2, event: { statusUpdate: { taskId: task.id, contextId: task.contextId, status } }, createdAt: now }],
  };
}

async function run(label: string, make: (i: number) => TaskCommit): Promise<void> {
  const commits = Array.from({ length: total }, (_, i) => make(i));
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const db0 = await backendCpuSeconds();
  for (let i = 0; i < total; i += batchSize) await store.commit(commits.slice(i, i + batchSize));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  const db1 = await backendCpuSeconds();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const db = db0 !== undefined && db1 !== undefined ? `; PostgreSQL backends ${((db1 - db0) * 1000).toFixed(0)} ms CPU = ${(((db1 - db0) * 1e6) / total).toFixed(1)} µs/commit` : '';
  // CPU time is the steadier figure on a shared machine; wall time includes waiting for a core.
  console.log(
    `${label}: ${total} commits in ${ms.toFixed(0)} ms wall = ${Math.round((total / ms) * 1000)} commits/s; ` +
      `${cpuMs.toFixed(0)} ms CPU = ${Math.round((total / cpuMs) * 1000)} commits/CPU-s (${((cpuMs * 1000) / total).toFixed(1)} µs/commit)${db}`,
  );
}

const now = Date.now();
const created = new Map<number, TaskCommit>();
await run(`${backend} insert (batch ${batchSize})`, (i) => {
  const c = newTask(i, now);
  created.set(i, c);
  return c;
});
await run(`${backend} update (batch ${batchSize})`, (i) => completed(created.get(i)!, now + 1));
await store.close();
rmSync(dir, { recursive: true, force: true });
if (pgUrl) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}
