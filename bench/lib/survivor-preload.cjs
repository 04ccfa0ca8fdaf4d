// Loaded into the server by bench/survivor-sites.js (node --require, with --expose-gc): on the first
// SIGUSR2 it starts probing, on the second it writes the probes' sum to $AGENTPORT_SURVIVOR_OUT.
// A probe starts V8's sampling heap profiler (freed objects dropped), forces a young-generation
// collection 100 ms later and takes the samples still alive: what a scavenge at that moment copies
// of the last 100 ms's allocation (the requests in flight, and anything kept longer), by the
// function that allocated it. The forced collections and the profiler slow the server: read the
// bytes, not the times.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new inspector.Session();
session.connect();
const interval = Number(process.env.AGENTPORT_SURVIVOR_INTERVAL || 64);
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
let probing = false;
const probes = [];

async function probe() {
  await post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: false, includeObjectsCollectedByMinorGC: false });
  await new Promise((r) => setTimeout(r, 100));
  globalThis.gc({ type: 'minor' });
  const { profile } = await post('HeapProfiler.getSamplingProfile');
  await post('HeapProfiler.stopSampling');
  probes.push(profile);
}

async function loop() {
  await post('HeapProfiler.enable');
  while (probing) {
    await probe();
    await new Promise((r) => setTimeout(r, 200));
  }
  writeFileSync(process.env.AGENTPORT_SURVIVOR_OUT, JSON.stringify(probes));
}

process.on('SIGUSR2', () => {
  if (!probing) {
    probing = true;
    loop().catch((err) => process.stderr.write(`survivor probe: ${err.message}\n`));
  } else probing = false;
});
