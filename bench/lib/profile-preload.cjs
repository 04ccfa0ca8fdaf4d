// Loaded into the server by bench/profile.js (node --require): the V8 CPU profiler, started on the
// first SIGUSR2 and written to $AGENTPORT_PROFILE_OUT on the second, so the profile holds the
// measured seconds only (no start-up, no warm-up).
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new inspector.Session();
session.connect();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
    return;
  }
  session.post('Profiler.stop', (err, result) => {
    if (err) process.stderr.write(`profile: ${err.message}\n`);
    else writeFileSync(process.env.AGENTPORT_PROFILE_OUT, JSON.stringify(result.profile));
    running = false;
  });
});
