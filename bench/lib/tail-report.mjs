// The per-request decomposition written by tail-trace.cjs (`bench/stalls.js --trace`): the
// requests around the median and those at or past the 99th percentile, each part's mean, so the
// tail's extra time can be put on its part (before the commit, waiting for a batch, the thread's
// wake-up, its COMMIT, the answer's way back, writing the response, GC pauses meanwhile).

const PARTS = [
  ['before commit', (r) => r.enq - r.s],
  ['batch wait', (r, b) => b.sent - r.enq],
  ['post → thread', (_r, b) => b.rx - b.post],
  ['thread COMMIT', (_r, b) => b.done - b.rx],
  ['thread → main', (_r, b) => b.back - b.done],
  ['after answer', (r, b) => r.f - b.back],
];
/** the OS's share (Linux schedstat run-queue waits) and the main thread's CPU during the request */
const OS = [
  ['main CPU', (r) => r.cpu],
  ['main rq wait', (r) => r.wait],
  ['thread rq wait', (_r, b) => b.wakeWait + b.commitWait],
];

/** the GC pause time inside [from, to] */
function gcWithin(gcs, from, to) {
  let ms = 0;
  for (const [at, d] of gcs) ms += Math.max(0, Math.min(to, at + d) - Math.max(from, at));
  return ms;
}

/** a request whose threads waited less than this for a core (run-queue) counts as unaffected by the machine's load */
const QUIET_WAIT_MS = 0.05;

/** whether [a0, a1] and [b0, b1] overlap */
const overlaps = (a0, a1, b0, b1) => a0 < b1 && b0 < a1;

/**
 * The requests slower than 3× the median (what puts the p99 past the target), each put on the
 * first cause that applies, in this order, beside how often each applies to all requests: a GC
 * pause inside it; a GC pause of the commit thread's while its batch was posted there; its batch's time on the commit thread (post to COMMIT returned) overlapping a
 * usage write there; the usage write's synchronous part on the main thread inside it; the main
 * thread's run-queue wait over half its time (the OS running other work); its batch held up by
 * the one before (itself delayed by one of these); the answer waiting for a busy main thread.
 */
function causes(traced, gcs, sides, threadGcs, p50, label = 'requests') {
  const done = sides.filter((j) => j.done >= 0);
  const rules = [
    ['a GC pause inside', ({ r }) => gcWithin(gcs, r.s, r.f) > 0],
    ["a commit-thread GC pause in its batch's time there", ({ b }) => gcWithin(threadGcs, b.post, b.done) > 0],
    ['its batch behind a usage write on the thread', ({ b }) => done.some((j) => overlaps(b.post, b.done, j.rx, j.done))],
    ["a usage write's main-thread part inside", ({ r }) => sides.some((j) => overlaps(r.s, r.f, j.w0, j.w1))],
    ['main thread runnable, no core, half its time', ({ r }) => r.wait > (r.f - r.s) / 2],
    // one batch in flight (ADR 0062): a batch held up by any of the above holds up the next one's requests too
    ['its batch waited longer than a median request for the batch before', ({ r, b }) => b.sent - r.enq > p50],
    ["the thread's answer waited longer than a median request for the main thread", ({ b }) => b.back - b.done > p50],
  ];
  const slow = traced.filter((x) => x.ms > 3 * p50);
  const counts = rules.map(() => 0);
  let none = 0;
  for (const x of slow) {
    const i = rules.findIndex(([, test]) => test(x));
    if (i < 0) none++;
    else counts[i]++;
  }
  const pct = (k, of) => `${((100 * k) / Math.max(1, of)).toFixed(2)} %`;
  const lines = [`${label} > 3× their p50 (${(3 * p50).toFixed(3)} ms): ${slow.length} of ${traced.length} (${pct(slow.length, traced.length)}); first cause that applies (how often it applies to all of them):`];
  rules.forEach(([name, test], i) => lines.push(`  ${String(counts[i]).padStart(6)}  ${name} (${pct(traced.filter(test).length, traced.length)})`));
  lines.push(`  ${String(none).padStart(6)}  none of these`);
  const amends = done.reduce((s, j) => s + j.amends + j.records, 0);
  const mean = (fn) => (done.length ? done.reduce((s, j) => s + fn(j), 0) / done.length : 0);
  lines.push(`usage writes: ${done.length} (${amends} rows), each on the main thread ${mean((j) => j.w1 - j.w0).toFixed(3)} ms, on the commit thread ${mean((j) => j.done - j.rx).toFixed(3)} ms (means)`);
  return lines;
}

/**
 * What the requests slower than 3× the median waited for, beside the median requests, as each
 * part's mean and its share of the slow requests' extra time (issue 26 at 32 connections, where a
 * turn takes many requests at once): a GC pause inside; its place in the turn that took it (the
 * time from that turn's first request event to its own: the requests parsed and handled before
 * it); its place in the turn that finished it (from that turn's first finished response to its
 * own); its commit waiting for a free batch slot (enqueued while every slot was out: it waits for
 * one batch's answer and then its own) or, with a slot free, for the batch's turn to end; the
 * batch's way to the thread (behind the batch before, which the thread is still committing, or the
 * message itself) and back; the thread's COMMIT; the main thread's
 * run-queue wait. The parts overlap (a GC pause inside a turn is in both), so shares need not sum to 1.
 */
function waitedFor(traced, batches, gcs, p50) {
  // batches are in the order they were sent, and only a few are out at once: look back a few from the last one sent
  const LOOK_BACK = 16;
  const outAt = (i, at) => {
    let out = 0;
    for (let j = i; j >= 0 && j > i - LOOK_BACK; j--) if (batches[j].back > at || batches[j].back < 0) out++;
    return out;
  };
  let slots = 1;
  for (let i = 0; i < batches.length; i++) slots = Math.max(slots, outAt(i, batches[i].sent));
  /** the last batch sent at or before `at` */
  const lastSent = (at) => {
    let lo = 0;
    let hi = batches.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (batches[mid].sent <= at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const full = (at) => outAt(lastSent(at), at) >= slots;
  // the thread takes one message at a time: a batch posted while the one before was on the thread waits for its COMMIT
  const behind = (b) => (b.i > 0 ? Math.min(b.rx - b.post, Math.max(0, batches[b.i - 1].done - b.post)) : 0);
  const parts = [
    ['GC inside', ({ r }) => gcWithin(gcs, r.s, r.f)],
    ['taken late in its turn', ({ r }) => (r.ts === undefined ? 0 : r.s - r.ts)],
    ['before its commit', ({ r }) => r.enq - r.s],
    ['slot wait (missed a batch)', ({ r, b }) => (r.full ? b.sent - r.enq : 0)],
    ['batch gather (slot free)', ({ r, b }) => (r.full ? 0 : b.sent - r.enq)],
    ['to thread: behind a batch', ({ b }) => behind(b)],
    ['to thread: the message', ({ b }) => b.rx - b.post - behind(b)],
    ['back to main: the message', ({ b }) => b.back - b.done],
    ['thread COMMIT', ({ b }) => b.done - b.rx],
    ['after the answer', ({ r, b }) => r.f - b.back],
    ['finished late in its turn', ({ r }) => (r.fts === undefined ? 0 : r.f - r.fts)],
    ['main run-queue wait', ({ r }) => r.wait],
  ];
  // sample the slot test: every request's is a scan of the batches
  const mark = (xs) => {
    for (const x of xs) if (x.r.full === undefined) x.r.full = full(x.r.enq);
  };
  const slow = traced.filter((x) => x.ms > 3 * p50);
  const n = traced.length;
  const mid = traced.slice(Math.floor(0.45 * n), Math.max(Math.floor(0.45 * n) + 1, Math.floor(0.55 * n)));
  mark(slow);
  mark(mid);
  const mean = (xs, fn) => xs.reduce((s, x) => s + fn(x), 0) / Math.max(1, xs.length);
  const extra = mean(slow, (x) => x.ms) - mean(mid, (x) => x.ms);
  const lines = [`what the ${slow.length} requests > 3× p50 waited for, against the p45–p55 ones (ms, means; share of their ${extra.toFixed(3)} ms extra; ${slots} batch slots):`];
  for (const [name, fn] of parts) {
    const a = mean(mid, fn);
    const z = mean(slow, fn);
    lines.push(`  ${name.padEnd(28)}${a.toFixed(3).padStart(8)}${z.toFixed(3).padStart(9)}${((100 * (z - a)) / Math.max(1e-9, extra)).toFixed(0).padStart(6)} %`);
  }
  const k = (xs, fn) => mean(xs, fn).toFixed(1);
  lines.push(
    `  requests before it in its turn: ${k(mid, ({ r }) => r.k ?? 0)} against ${k(slow, ({ r }) => r.k ?? 0)}; responses before its own in its turn: ${k(mid, ({ r }) => r.fk ?? 0)} against ${k(slow, ({ r }) => r.fk ?? 0)}; enqueued with every slot out: ${(100 * mean(mid, ({ r }) => (r.full ? 1 : 0))).toFixed(0)} % against ${(100 * mean(slow, ({ r }) => (r.full ? 1 : 0))).toFixed(0)} %`,
  );
  const noGc = slow.filter(({ r }) => gcWithin(gcs, r.s, r.f) === 0 && r.wait < (r.f - r.s) / 2);
  lines.push(`  of them with no GC pause inside and a core at least half the time: ${noGc.length}; their extra over the median's parts:`);
  const extra2 = mean(noGc, (x) => x.ms) - mean(mid, (x) => x.ms);
  for (const [name, fn] of parts.slice(1)) {
    lines.push(`    ${name.padEnd(26)}${mean(noGc, fn).toFixed(3).padStart(9)}${((100 * (mean(noGc, fn) - mean(mid, fn))) / Math.max(1e-9, extra2)).toFixed(0).padStart(6)} %`);
  }
  return lines;
}

/**
 * The usage flush's slices a request met (issue 26, tail40): how many usage writes' parts (the
 * main thread's synchronous part, or its time on the commit thread) overlap each request, the
 * requests grouped by that count with their p50, p99 and share past 3× the overall median; and the
 * flushes (slices less than 100 ms apart) as windows: the share of requests inside one. A
 * once-a-second flush written slice after slice puts several slices in one request's time.
 */
function usageMet(traced, sides, p50) {
  const done = sides.filter((j) => j.done >= 0).sort((a, b) => a.w0 - b.w0);
  if (done.length === 0) return [];
  const met = (r) => {
    let k = 0;
    for (const j of done) if (overlaps(r.s, r.f, j.w0, j.w1) || overlaps(r.s, r.f, j.rx, j.done)) k++;
    return k;
  };
  const groups = [[], [], [], []];
  for (const x of traced) groups[Math.min(3, met(x.r))].push(x.ms);
  const windows = [];
  for (const j of done) {
    const last = windows.at(-1);
    if (last && j.w0 - last[1] < 100) last[1] = Math.max(last[1], j.done);
    else windows.push([j.w0, j.done]);
  }
  const inWindow = traced.filter(({ r }) => windows.some(([a, b]) => overlaps(r.s, r.f, a, b))).length;
  const pct = (k, of) => `${((100 * k) / Math.max(1, of)).toFixed(2)} %`;
  const lines = [
    `usage flushes: ${windows.length}, ${done.length} slices, mean window ${(windows.reduce((s, [a, b]) => s + b - a, 0) / windows.length).toFixed(2)} ms; requests inside a flush window ${pct(inWindow, traced.length)}`,
    'requests by the usage slices they met (main-thread part or on the commit thread):',
  ];
  const slowAll = traced.filter((x) => x.ms > 3 * p50).length;
  groups.forEach((ms, k) => {
    if (ms.length === 0) return;
    ms.sort((a, b) => a - b);
    const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
    const slow = ms.filter((m) => m > 3 * p50).length;
    lines.push(
      `  ${k === 3 ? '3+' : String(k).padStart(2)}: ${String(ms.length).padStart(7)} (${pct(ms.length, traced.length)})  p50 ${q(0.5).toFixed(3)}  p99 ${q(0.99).toFixed(3)} ms  > 3× p50: ${slow} (${pct(slow, ms.length)} of them, ${pct(slow, slowAll)} of all such)`,
    );
  });
  return lines;
}

export function tailReport({ reqs, batches, gcs, sides = [], threadGcs = [] }) {
  const traced = reqs.filter((r) => r.b >= 0 && batches[r.b].back >= 0).map((r) => ({ r, b: batches[r.b], ms: r.f - r.s }));
  traced.sort((x, y) => x.ms - y.ms);
  const n = traced.length;
  const band = (lo, hi) => traced.slice(Math.floor(lo * n), Math.max(Math.floor(lo * n) + 1, Math.floor(hi * n)));
  const bands = [
    ['p45–p55', band(0.45, 0.55)],
    ['p90–p99', band(0.9, 0.99)],
    ['≥ p99', band(0.99, 1)],
  ];
  const lines = [
    `traced requests: ${n} of ${reqs.length} (one commit each: ${reqs.filter((r) => r.n === 1).length}); batches ${batches.length}, mean size ${(batches.reduce((s, b) => s + b.size, 0) / Math.max(1, batches.length)).toFixed(2)}`,
  ];
  const f = (x) => x.toFixed(3).padStart(8);
  lines.push(
    `${'band'.padEnd(9)}${'total'.padStart(8)}${PARTS.map(([name]) => name.padStart(15)).join('')}${'GC inside'.padStart(11)}${'batch'.padStart(7)}${'behind one'.padStart(11)}${'in a GC'.padStart(9)}${OS.map(([name]) => name.padStart(15)).join('')}`,
  );
  for (const [name, rs] of bands) {
    const mean = (fn) => rs.reduce((s, x) => s + fn(x), 0) / Math.max(1, rs.length);
    // enqueued while the previous batch was still out: it waited for that batch's answer first
    const behind = mean(({ r, b }) => (b.i > 0 && batches[b.i - 1].back > r.enq ? 1 : 0));
    lines.push(
      `${name.padEnd(9)}${f(mean((x) => x.ms))}${PARTS.map(([, fn]) => f(mean((x) => fn(x.r, x.b))).padStart(15)).join('')}${f(mean(({ r }) => gcWithin(gcs, r.s, r.f))).padStart(11)}${mean(({ b }) => b.size)
        .toFixed(2)
        .padStart(
          7,
        )}${(100 * behind).toFixed(0).padStart(10)}%${(100 * mean(({ r }) => (gcWithin(gcs, r.s, r.f) > 0 ? 1 : 0))).toFixed(0).padStart(8)}%${OS.map(([, fn]) => f(mean((x) => fn(x.r, x.b))).padStart(15)).join('')}`,
    );
  }
  const noGc = traced.filter(({ r }) => gcWithin(gcs, r.s, r.f) === 0);
  const at = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]?.ms ?? 0;
  lines.push(`requests inside a GC pause: ${n - noGc.length} (${((100 * (n - noGc.length)) / Math.max(1, n)).toFixed(2)} %); without them p50 ${at(noGc, 0.5).toFixed(3)} p99 ${at(noGc, 0.99).toFixed(3)} ms`);
  // A rough quiet-machine figure: each request's wall less the run-queue waits of the main thread
  // and of its batch on the commit thread (an over-subtraction where both waited at once).
  const less = traced.map(({ r, b }) => Math.max(0, r.f - r.s - r.wait - b.wakeWait - b.commitWait)).sort((x, y) => x - y);
  const lq = (p) => less[Math.min(less.length - 1, Math.floor(p * less.length))] ?? 0;
  lines.push(`wall less run-queue waits: p50 ${lq(0.5).toFixed(3)} p99 ${lq(0.99).toFixed(3)} ms (${(lq(0.99) / Math.max(1e-9, lq(0.5))).toFixed(2)}×)`);
  lines.push(...causes(traced, gcs, sides, threadGcs, at(traced, 0.5)));
  lines.push(...usageMet(traced, sides, at(traced, 0.5)));
  lines.push(...waitedFor(traced, batches, gcs, at(traced, 0.5)));
  // On a shared machine most of the tail is the OS's; the requests that waited for no core (main
  // thread and commit thread alike) are what a quiet machine would show, their tail put on its causes.
  const quiet = traced.filter(({ r, b }) => r.wait < QUIET_WAIT_MS && b.wakeWait + b.commitWait < QUIET_WAIT_MS);
  if (quiet.length > 0) {
    lines.push(`requests that waited < ${QUIET_WAIT_MS} ms for a core: ${quiet.length}; their p50 ${at(quiet, 0.5).toFixed(3)} p99 ${at(quiet, 0.99).toFixed(3)} ms`);
    // (the last line, the usage writes' means, was printed above)
    lines.push(...causes(quiet, gcs, sides, threadGcs, at(quiet, 0.5), 'of those,').slice(0, -1));
  }
  return lines.join('\n');
}
