// Load-generator child for when wrk is not installed, and for fixed-count
// (--requests N) runs, which wrk cannot do. Runs autocannon in its own process
// so the generator never shares an event loop with the harness or the server.
//
// Usage: node bench/lib/autocannon-worker.mjs '<json config>'
//   config: { url, connections, duration?, amount?, headers, bodyPrefix,
//             bodySuffix, runId }
// Prints progress lines "AC_PROGRESS <completed>" every second on stderr and
// one line "AC_JSON {...}" on stdout at the end.
import autocannon from 'autocannon';

const cfg = JSON.parse(process.argv[2]);
let seq = 0;

const opts = {
  url: cfg.url,
  connections: cfg.connections,
  method: 'POST',
  headers: cfg.headers,
  // One request template whose body is rebuilt each time, so every request
  // carries a unique messageId.
  requests: [
    {
      method: 'POST',
      setupRequest(req) {
        seq += 1;
        req.body = `${cfg.bodyPrefix}${cfg.runId}-${seq}${cfg.bodySuffix}`;
        return req;
      },
    },
  ],
};
if (cfg.amount) opts.amount = cfg.amount;
else opts.duration = cfg.duration;

let completed = 0;
const instance = autocannon(opts, (err, res) => {
  clearInterval(tick);
  if (err) {
    process.stdout.write(`AC_ERROR ${String(err?.message ? err.message : err)}\n`);
    process.exit(1);
  }
  const out = {
    requests: res.requests.total,
    durationS: res.duration,
    non2xx: res.non2xx,
    errors: res.errors,
    timeouts: res.timeouts,
    resets: res.resets ?? 0,
    statusCodeStats: res.statusCodeStats,
    latencyMs: {
      mean: res.latency.average,
      p50: res.latency.p50,
      p90: res.latency.p90,
      p99: res.latency.p99,
      p999: res.latency.p99_9,
      max: res.latency.max,
    },
  };
  process.stdout.write(`AC_JSON ${JSON.stringify(out)}\n`);
});
instance.on('response', () => {
  completed += 1;
});
const tick = setInterval(() => process.stderr.write(`AC_PROGRESS ${completed}\n`), 1000);
