#!/usr/bin/env node
// How long a write on the SQLite store's own (main) connection takes while the commit thread
// (ADR 0062) is kept busy with task commits, in one process as in the server: `npm run build`,
// then `node bench/main-write-wait.js`.
//
// bench/lock-wait.js probes from another process, whose waits do not slow the commits down. Here
// the write is the store's own (releaseOutboxLeases: one UPDATE through Kysely on the main
// connection, as the rollup steps, audit appends and management writes are), so while SQLite's
// busy handler sleeps the event loop it also stops the loop from handing the thread its next
// batch: the wait is bounded by what the thread has already been given. `--clients` loops commit
// blocking-echo-sized tasks through the group committer as fast as the thread takes them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, value } from './lib/options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: node bench/main-write-wait.js [--duration S] [--clients N] [--every MS] [--thread on|off] [--tree DIR]
  --thread off   the commits on the main connection too: the write's own time, with no lock to wait for`;
const o = { duration: 10, clients: 32, every: 20, thread: 'on', tree: ROOT };
parseCommandLine(HELP, {
  '--duration': value((v) => (o.duration = Number(v))),
  '--clients': value((v) => (o.clients = Number(v))),
  '--every': value((v) => (o.every = Number(v))),
  '--thread': value((v) => (o.thread = v)),
  '--tree': value((v) => (o.tree = path.resolve(v))),
});
const { openSqliteStore } = await import(path.join(o.tree, 'dist/store/sqlite/sqlite-store.js'));
const { GroupCommitter } = await import(path.join(o.tree, 'dist/store/group-commit.js'));

const work = mkdtempSync(path.join(os.tmpdir(), 'agentport-main-write-'));
const store = await openSqliteStore({ file: path.join(work, 'agentport.db'), commitThread: o.thread === 'on' });
await store.migrate();
if (store.commitsOnThread !== (o.thread === 'on')) throw new Error('the commit thread did not start');
const gc = new GroupCommitter(store);

let n = 0;
/** A blocking echo's one commit: the task, terminal, with its three events. */
function echoCommit() {
  const id = `t-${process.pid}-${n++}`;
  const now = Date.now();
  const message = { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] };
  const task = { id, contextId: `c-${id}`, status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date(now).toISOString() }, history: [message], artifacts: [{ artifactId: 'a', parts: [{ text: 'hello' }] }] };
  const events = [
    { taskId: id, seq: 1, event: { task: { ...task, status: { state: 'TASK_STATE_SUBMITTED' } } }, createdAt: now },
    { taskId: id, seq: 2, event: { artifactUpdate: { taskId: id, contextId: task.contextId, artifact: task.artifacts[0] } }, createdAt: now },
    { taskId: id, seq: 3, event: { statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } }, createdAt: now },
  ];
  return { agentId: 'echo', owner: 'anonymous', task, expectedVersion: 0, seq: 3, events, outbox: [], createdAt: now, originMessageId: message.messageId };
}

let running = true;
let commits = 0;
const clients = Array.from({ length: o.clients }, async () => {
  while (running) {
    await gc.commit(echoCommit());
    commits++;
  }
});

const waits = [];
const t0 = Date.now();
while (Date.now() - t0 < o.duration * 1000) {
  await new Promise((r) => setTimeout(r, o.every));
  const start = process.hrtime.bigint();
  await store.releaseOutboxLeases();
  waits.push(Number(process.hrtime.bigint() - start) / 1e6);
}
running = false;
await Promise.all(clients);
const seconds = (Date.now() - t0) / 1000;
await gc.close();
await store.close();
rmSync(work, { recursive: true, force: true });

const s = [...waits].sort((a, b) => a - b);
const q = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
console.log(`${commits} commits in ${seconds.toFixed(1)} s (${Math.round(commits / seconds)}/s, ${o.clients} clients, thread ${o.thread}); load average ${os.loadavg()[0].toFixed(1)}`);
console.log(
  `main-connection write: ${s.length} writes, p50 ${q(50).toFixed(2)} ms  p90 ${q(90).toFixed(2)} ms  p99 ${q(99).toFixed(2)} ms  max ${(s.at(-1) ?? 0).toFixed(2)} ms; ≥ 1 ms: ${s.filter((x) => x >= 1).length}; ≥ 100 ms: ${s.filter((x) => x >= 100).length}`,
);
