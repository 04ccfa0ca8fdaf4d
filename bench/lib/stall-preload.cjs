// Loaded into the server by bench/stalls.js (node --require): finds what blocks the main thread.
// Between the first and the second SIGUSR2 it records
//   - every timer / immediate callback that ran longer than STALL_MIN_MS, with its wall and the
//     main thread's CPU time it used (CPU separates work from the OS preempting us on a loaded machine);
//   - every GC pause (kind, ms);
//   - loop blocks: a 2 ms sampler's lateness, with the main thread's CPU time meanwhile;
//   - each HTTP request's time in the server (request event to response finish), so the tail
//     seen by the load generator can be compared with the tail the server itself causes;
//   - the event loop delay histogram (perf_hooks.monitorEventLoopDelay).
// On the second SIGUSR2 it writes all of it as JSON to $AGENTPORT_STALLS_OUT.
const { performance, PerformanceObserver, monitorEventLoopDelay } = require('node:perf_hooks');
const http = require('node:http');
const { openSync, readSync, writeFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const MIN_MS = Number(process.env.STALL_MIN_MS ?? 2);
let on = false;
let t0 = 0;
const callbacks = [];
const gcs = [];
const blocks = [];
const requestMs = [];
const slowRequests = [];
const delay = monitorEventLoopDelay({ resolution: 1 });
// The main thread's own time on a CPU (Linux schedstat, ns): unlike wall time or process.cpuUsage()
// it excludes the OS running other processes, the checkpoint thread and GC helper threads.
const stat = isMainThread ? openSync('/proc/thread-self/schedstat', 'r') : -1;
const buf = Buffer.alloc(128);
const cpuMs = () => {
  const n = readSync(stat, buf, 0, 128, 0);
  const s = buf.toString('latin1', 0, n);
  return Number(s.slice(0, s.indexOf(' '))) / 1e6;
};

function label(kind, fn, ms) {
  const src = String(fn).replace(/\s+/g, ' ').slice(0, 90);
  return `${kind}${ms !== undefined ? `(${ms})` : ''} ${fn.name || ''} ${src}`;
}

function wrap(kind, fn, ms) {
  if (typeof fn !== 'function') return fn;
  return function timed(...args) {
    if (!on) return fn.apply(this, args);
    const w = performance.now();
    const c = cpuMs();
    try {
      return fn.apply(this, args);
    } finally {
      const wall = performance.now() - w;
      if (wall >= MIN_MS) callbacks.push({ at: w - t0, wall, cpu: cpuMs() - c, what: label(kind, fn, ms) });
    }
  };
}

if (isMainThread) install();
function install() {
  for (const kind of ['setTimeout', 'setInterval']) {
    const orig = globalThis[kind];
    globalThis[kind] = function (fn, ms, ...rest) {
      return orig.call(this, wrap(kind, fn, ms), ms, ...rest);
    };
  }
  const origImmediate = globalThis.setImmediate;
  globalThis.setImmediate = function (fn, ...rest) {
    return origImmediate.call(this, wrap('setImmediate', fn), ...rest);
  };

  const KINDS = { 1: 'scavenge', 2: 'minor-mc', 4: 'mark-compact', 8: 'incremental', 16: 'weak-cb' };
  new PerformanceObserver((list) => {
    if (!on) return;
    for (const e of list.getEntries()) gcs.push({ at: e.startTime - t0, ms: e.duration, kind: KINDS[e.detail?.kind ?? e.kind] ?? String(e.detail?.kind) });
  }).observe({ entryTypes: ['gc'] });

  const origEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (ev, ...args) {
    const res = args[1];
    if (ev === 'request' && on) {
      const s = performance.now();
      res.once('finish', () => {
        const ms = performance.now() - s;
        requestMs.push(ms);
        if (ms >= 10) slowRequests.push({ at: s - t0, ms });
      });
    }
    return origEmit.call(this, ev, ...args);
  };

  let last = 0;
  let lastCpu = 0;
  const SAMPLE_MS = 2;
  const sampler = () => {
    const now = performance.now();
    const c = cpuMs();
    const late = now - last - SAMPLE_MS;
    if (on && late >= MIN_MS) blocks.push({ at: last - t0, late, cpu: c - lastCpu });
    last = now;
    lastCpu = c;
  };

  let timer;
  process.on('SIGUSR2', () => {
    if (!on) {
      on = true;
      t0 = performance.now();
      last = t0;
      lastCpu = cpuMs();
      delay.enable();
      timer = setInterval(sampler, SAMPLE_MS);
      timer.unref();
      return;
    }
    on = false;
    clearInterval(timer);
    delay.disable();
    const pct = (p) => delay.percentile(p) / 1e6;
    writeFileSync(
      process.env.AGENTPORT_STALLS_OUT,
      JSON.stringify({
        seconds: (performance.now() - t0) / 1000,
        loopDelayMs: { p50: pct(50), p99: pct(99), p999: pct(99.9), max: delay.max / 1e6, mean: delay.mean / 1e6 },
        callbacks,
        gcs,
        blocks,
        requestMs,
        slowRequests,
      }),
    );
  });
}
