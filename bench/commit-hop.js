#!/usr/bin/env node
// What one message to the SQLite commit thread and its answer cost, by the ways there are to send
// it (issue 26, tail39): `node bench/commit-hop.js [--messages N] [--commits K] [--rounds R]`.
//
// A thread that answers each batch at once (no SQLite: the hop alone) is sent N batch-shaped plans
// of K commits each, one after another (the next once the answer is back: every message finds the
// thread asleep, as a batch does when the thread is idle), by:
//   post     postMessage and the thread's 'message' event (the store's way, commit-worker.ts)
//   doorbell postMessage, then Atomics.notify on a shared word the thread sleeps on
//            (Atomics.wait), which takes the message with receiveMessageOnPort: no libuv wake-up
//   ring     the plan serialized (v8.serialize, the structured clone's own writer) into a
//            SharedArrayBuffer and Atomics.notify: no MessagePort on the way in
// The answer comes back by postMessage in all three. Printed: each thread's CPU µs a message
// (Linux schedstat, so a loaded machine's waits are not in it), the round trip's wall p50 / p99,
// and the thread's wake-up (notify or post to the thread's first JS) p50 / p99. Rounds alternate
// the ways; read the CPU, not the wall times, on a loaded machine.
import { openSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { parseCommandLine, value } from './lib/options.mjs';

const HELP = 'Usage: node bench/commit-hop.js [--messages N] [--commits K] [--rounds R]';
const o = { messages: 5000, commits: 5, rounds: 3 };
parseCommandLine(HELP, {
  '--messages': value((v) => (o.messages = Number(v))),
  '--commits': value((v) => (o.commits = Number(v))),
  '--rounds': value((v) => (o.rounds = Number(v))),
});

/** An echo's task insert as encodeBatch writes it (commit-batch.ts): 16 values, the task's JSON and its events'. */
function plan(k, n) {
  const out = [];
  for (let c = 0; c < k; c++) {
    const id = `0193a5c2-7d4e-7b3a-9c1d-${String(n * 100 + c).padStart(12, '0')}`;
    const taskJson = `{"id":"${id}","contextId":"ctx-${id}","kind":"task","status":{"state":"completed","timestamp":"2026-12-02T11:00:00.000Z"},"history":[{"kind":"message","messageId":"m-${id}","role":"user","parts":[{"kind":"text","text":"hello"}]}],"artifacts":[{"artifactId":"a-${id}","parts":[{"kind":"text","text":"hello"}]}]}`;
    const events = `[{"seq":1,"kind":"status-update","taskId":"${id}","final":false},{"seq":2,"kind":"artifact-update","taskId":"${id}"},{"seq":3,"kind":"status-update","taskId":"${id}","final":true}]`;
    out.push(-2, id, 16, id, 'echo', 'anonymous', `ctx-${id}`, 'completed', 1764673200000, 1764673200000, 3, 1, taskJson, null, null, `m-${id}`, null, null, events);
  }
  return out;
}

const WORKER = `
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const { openSync, readSync } = require('node:fs');
const v8 = require('node:v8');
const fd = openSync('/proc/thread-self/schedstat', 'r');
const buf = Buffer.alloc(128);
const cpu = () => { const n = readSync(fd, buf, 0, 128, 0); return Number(buf.toString('latin1', 0, n).split(' ')[0]) / 1e3; };
const abs = () => performance.timeOrigin + performance.now();
const word = new Int32Array(workerData.sab, 0, 4);
const bytes = new Uint8Array(workerData.sab, 16);
let cpu0 = 0;
function answer(m, woke) {
  parentPort.postMessage({ id: m.id, woke, n: m.plan.length });
}
if (workerData.way === 'post') {
  parentPort.on('message', (m) => {
    if (m.start) { cpu0 = cpu(); parentPort.postMessage({ started: true }); return; }
    if (m.stop) { parentPort.postMessage({ cpu: cpu() - cpu0 }); return; }
    answer(m, abs());
  });
} else {
  // word[0]: sequence of batches posted; word[1]: taken; word[2]: the ring's length (one slot)
  let taken = 0;
  for (;;) {
    Atomics.wait(word, 0, taken);
    const woke = abs();
    taken = Atomics.load(word, 0);
    let m;
    if (workerData.way === 'doorbell') m = receiveMessageOnPort(parentPort).message;
    else {
      const len = Atomics.load(word, 2);
      m = len === 0 ? { stop: true } : len < 0 ? { start: true } : { id: taken, plan: v8.deserialize(bytes.slice(0, len)) };
    }
    if (m.start) { cpu0 = cpu(); parentPort.postMessage({ started: true }); continue; }
    if (m.stop) { parentPort.postMessage({ cpu: cpu() - cpu0 }); break; }
    answer(m, woke);
  }
}
`;

const fd = openSync('/proc/thread-self/schedstat', 'r');
const sbuf = Buffer.alloc(128);
const cpu = () => {
  const n = readSync(fd, sbuf, 0, 128, 0);
  return Number(sbuf.toString('latin1', 0, n).split(' ')[0]) / 1e3;
};
const abs = () => performance.timeOrigin + performance.now();

async function measure(way) {
  const sab = new SharedArrayBuffer(16 + (1 << 20));
  const word = new Int32Array(sab, 0, 4);
  const bytes = new Uint8Array(sab, 16);
  const w = new Worker(WORKER, { eval: true, workerData: { way, sab } });
  w.on('error', (err) => {
    console.error(way, err);
    process.exit(1);
  });
  let seq = 0;
  const next = () => new Promise((resolve) => w.once('message', resolve));
  const send = (m) => {
    if (way === 'post') return w.postMessage(m);
    if (way === 'doorbell') w.postMessage(m);
    else if (m.plan) {
      const b = v8.serialize(m.plan);
      bytes.set(b);
      Atomics.store(word, 2, b.length);
    } else Atomics.store(word, 2, m.start ? -1 : 0);
    Atomics.store(word, 0, ++seq);
    Atomics.notify(word, 0);
  };
  const plans = Array.from({ length: 64 }, (_, i) => plan(o.commits, i));
  // warm both sides' code first
  for (let i = 0; i < 500; i++) {
    const r = next();
    send({ id: i, plan: plans[i % 64] });
    await r;
  }
  const started = next();
  send({ start: true });
  await started;
  const rtt = [];
  const wake = [];
  const c0 = cpu();
  for (let i = 0; i < o.messages; i++) {
    const r = next();
    const t = abs();
    send({ id: i, plan: plans[i % 64] });
    const a = await r;
    rtt.push(abs() - t);
    wake.push(a.woke - t);
  }
  const mainUs = cpu() - c0;
  const stopped = next();
  send({ stop: true });
  const threadUs = (await stopped).cpu;
  await w.terminate();
  const q = (xs, p) => xs.sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))];
  return { way, mainUs: mainUs / o.messages, threadUs: threadUs / o.messages, rtt50: q(rtt, 0.5), rtt99: q(rtt, 0.99), wake50: q(wake, 0.5), wake99: q(wake, 0.99) };
}

console.log(`${o.messages} messages of ${o.commits} commits (${JSON.stringify(plan(o.commits, 0)).length} bytes of JSON) a round`);
console.log('way        main µs  thread µs   rtt p50   rtt p99  wake p50  wake p99 (ms)');
for (let r = 0; r < o.rounds; r++) {
  const ways = ['post', 'doorbell', 'ring'];
  for (const way of r % 2 ? ways.reverse() : ways) {
    const m = await measure(way);
    console.log(
      `${m.way.padEnd(9)}${m.mainUs.toFixed(1).padStart(9)}${m.threadUs.toFixed(1).padStart(11)}${m.rtt50.toFixed(3).padStart(10)}${m.rtt99.toFixed(3).padStart(10)}${m.wake50.toFixed(3).padStart(10)}${m.wake99.toFixed(3).padStart(10)}`,
    );
  }
}
