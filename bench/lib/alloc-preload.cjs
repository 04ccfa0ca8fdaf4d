// Loaded into the server by bench/alloc-sites.js (node --require): V8's sampling heap profiler,
// started on the first SIGUSR2 and written to $AGENTPORT_ALLOC_OUT on the second. It keeps the
// samples of objects the scavenger and the mark-compactor already freed, so the profile is what
// the measured seconds allocated (what fills the young generation), not what is still alive.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new inspector.Session();
session.connect();
const interval = Number(process.env.AGENTPORT_ALLOC_INTERVAL || 256);
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }));
    return;
  }
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err) process.stderr.write(`alloc profile: ${err.message}\n`);
    else writeFileSync(process.env.AGENTPORT_ALLOC_OUT, JSON.stringify(result.profile));
    running = false;
  });
});
