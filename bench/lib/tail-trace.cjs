// Loaded beside stall-preload.cjs by `bench/stalls.js --trace` (node --require): where each request's
// time in the server went, so the p99 request can be compared with the p50 one by its parts.
// Marks, on the main thread's clock (ms):
//   s      the request event
//   enq    its task commit enqueued in the group committer (the last one, when several)
//   sent   the batch holding it handed to the store (GroupCommitter.apply)
//   rx     the commit thread took the batch's message (its clock converted through timeOrigin)
//   done   the thread's COMMIT returned
//   back   the answer reached the main thread's message handler
//   f      the response finished (its last byte handed to the socket)
//   t, k   the event-loop turn its request event came in (turns counted by a setImmediate scheduled
//          at the first request or finish of a turn, so the counter costs nothing when idle) and how
//          many requests that turn had taken before it; ft, fk the same for its response's finish
//          (how many responses that turn had finished before it); ts, fts the turn's first such event
// and the GC pauses (the main thread's and the commit thread's), so a request's overlap with them can be counted; and each other job the commit
// thread ran (the usage flush's slices: `side`, with the main thread's synchronous part of the
// store's write, `w0`..`w1`, and the plan's length), so a request's overlap with those can be too. A commit is linked to its
// request through the async context (AsyncLocalStorage), entered in the request event.
// Written as JSON to $AGENTPORT_TRACE_OUT at the second SIGUSR2 (stall-preload.cjs turns the
// recording on and off with the same signal).
const { performance, PerformanceObserver } = require('node:perf_hooks');
const { isMainThread, parentPort, Worker } = require('node:worker_threads');
const { AsyncLocalStorage } = require('node:async_hooks');
const http = require('node:http');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { openSync, readSync, writeFileSync } = require('node:fs');

/**
 * This thread's [time on a CPU, time runnable but waiting for one] in ms (Linux schedstat): the
 * second is the OS running something else while this thread had work, i.e. a shared machine's
 * share of a request's time.
 */
function schedstat() {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  const buf = Buffer.alloc(128);
  return () => {
    const n = readSync(fd, buf, 0, 128, 0);
    const [run, wait] = buf.toString('latin1', 0, n).split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  };
}

/** this thread's clock on the process-wide one (ms since the main thread's origin, as sent) */
const abs = () => performance.timeOrigin + performance.now();

if (!isMainThread) {
  // The commit thread: stamp when a batch's message was taken and when its COMMIT returned.
  if (parentPort) {
    let rx = 0;
    let rxStat = [0, 0];
    let lastWait = 0;
    const stat = schedstat();
    // the thread's own GC pauses (its isolate collects on its own), on the process-wide clock, sent with the next answer
    let threadGcs = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) threadGcs.push([performance.timeOrigin + e.startTime, e.duration]);
    }).observe({ entryTypes: ['gc'] });
    const on = parentPort.on;
    parentPort.on = function (ev, fn) {
      if (ev !== 'message') return on.call(this, ev, fn);
      return on.call(this, ev, function (msg) {
        rx = abs();
        rxStat = stat();
        return fn.call(this, msg);
      });
    };
    const post = parentPort.postMessage;
    parentPort.postMessage = function (msg, ...rest) {
      if (msg && typeof msg === 'object' && typeof msg.id === 'number') {
        const done = abs();
        const st = stat();
        // [took, committed, run-queue wait from its last answer to taking this one, during the COMMIT, its CPU]
        msg.__t = [rx, done, rxStat[1] - lastWait, st[1] - rxStat[1], st[0] - rxStat[0]];
        lastWait = st[1];
        if (threadGcs.length > 0) {
          msg.__g = threadGcs;
          threadGcs = [];
        }
      }
      return post.call(this, msg, ...rest);
    };
  }
} else {
  install();
}

function install() {
  let on = false;
  let t0 = 0;
  const reqs = [];
  const batches = [];
  const gcs = [];
  /** the commit thread's GC pauses */
  const threadGcs = [];
  /** the commit thread's other jobs: the usage store's writes */
  const sides = [];
  /** the usage write whose synchronous part is running right now */
  let side;
  const byId = new Map();
  /** a commit → the request that enqueued it */
  const pendingOf = new WeakMap();
  const als = new AsyncLocalStorage();
  /** the batch GroupCommitter.apply is handing to the store right now (its post is synchronous) */
  let current;
  const now = () => performance.now() - t0;
  const stat = schedstat();
  /** the turn counter: one setImmediate a turn, scheduled by the turn's first request or finish */
  let turn = 0;
  let turnPending = false;
  let inTurn = 0;
  let outTurn = 0;
  let turnAt = 0;
  let outAt = 0;
  const nextTurn = () => {
    turn++;
    turnPending = false;
    inTurn = 0;
    outTurn = 0;
  };
  const markTurn = () => {
    if (turnPending) return;
    turnPending = true;
    setImmediate(nextTurn);
  };

  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (ev, ...args) {
    if (ev !== 'request' || !on) return emit.call(this, ev, ...args);
    const st = stat();
    const rec = { s: now(), enq: -1, n: 0, b: -1, cpu: st[0], wait: st[1] };
    markTurn();
    if (inTurn === 0) turnAt = rec.s;
    rec.t = turn;
    rec.k = inTurn++;
    rec.ts = turnAt;
    args[1].once('finish', () => {
      rec.f = now();
      markTurn();
      if (outTurn === 0) outAt = rec.f;
      rec.ft = turn;
      rec.fk = outTurn++;
      rec.fts = outAt;
      const end = stat();
      rec.cpu = end[0] - rec.cpu;
      rec.wait = end[1] - rec.wait;
      if (on) reqs.push(rec);
    });
    return als.run(rec, () => emit.call(this, ev, ...args));
  };

  new PerformanceObserver((list) => {
    if (on) for (const e of list.getEntries()) gcs.push([e.startTime - t0, e.duration]);
  }).observe({ entryTypes: ['gc'] });

  const postMessage = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (current && msg && Array.isArray(msg.plan)) {
      current.post = now();
      byId.set(msg.id, current);
    } else if (side && msg && Array.isArray(msg.plan)) {
      side.post = now();
      side.len = msg.plan.length;
      byId.set(msg.id, side);
    }
    return postMessage.call(this, msg, ...rest);
  };
  const wemit = Worker.prototype.emit;
  Worker.prototype.emit = function (ev, msg, ...rest) {
    if (ev === 'message' && msg && msg.__g && on) for (const [at, d] of msg.__g) threadGcs.push([at - performance.timeOrigin - t0, d]);
    if (ev === 'message' && msg && msg.__t) {
      const b = byId.get(msg.id);
      if (b) {
        byId.delete(msg.id);
        const o = performance.timeOrigin + t0;
        b.rx = msg.__t[0] - o;
        b.done = msg.__t[1] - o;
        b.back = now();
        b.wakeWait = msg.__t[2];
        b.commitWait = msg.__t[3];
        b.commitCpu = msg.__t[4];
      }
    }
    return wemit.call(this, ev, msg, ...rest);
  };

  const tree = process.env.AGENTPORT_TRACE_TREE ?? process.cwd();
  void import(pathToFileURL(path.join(tree, 'dist', 'store', 'group-commit.js')).href).then(({ GroupCommitter }) => {
    const commit = GroupCommitter.prototype.commit;
    GroupCommitter.prototype.commit = function (c) {
      const rec = on ? als.getStore() : undefined;
      if (rec) {
        rec.enq = now();
        rec.n++;
        pendingOf.set(c, rec);
      }
      return commit.call(this, c);
    };
    const apply = GroupCommitter.prototype.apply;
    GroupCommitter.prototype.apply = function (batch) {
      if (!on) return apply.call(this, batch);
      const b = { i: batches.length, sent: now(), size: batch.length, post: -1, rx: -1, done: -1, back: -1 };
      batches.push(b);
      for (const p of batch) {
        const rec = pendingOf.get(p.commit);
        if (rec) rec.b = b.i;
      }
      current = b;
      try {
        return apply.call(this, batch);
      } finally {
        current = undefined;
      }
    };
  });
  void import(pathToFileURL(path.join(tree, 'dist', 'store', 'sqlite', 'sqlite-usage-store.js')).href).then(({ SqliteUsageStore }) => {
    const write = SqliteUsageStore.prototype.write;
    SqliteUsageStore.prototype.write = function (records, amends) {
      if (!on) return write.call(this, records, amends);
      const j = { side: true, w0: now(), records: records.length, amends: amends.length, post: -1, rx: -1, done: -1, back: -1 };
      sides.push(j);
      side = j;
      try {
        return write.call(this, records, amends);
      } finally {
        side = undefined;
        j.w1 = now();
      }
    };
  });
  process.on('SIGUSR2', () => {
    if (!on) {
      on = true;
      t0 = performance.now();
      return;
    }
    on = false;
    writeFileSync(process.env.AGENTPORT_TRACE_OUT, JSON.stringify({ reqs, batches, gcs, sides, threadGcs }));
  });
}
