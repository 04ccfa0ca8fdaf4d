// Loaded into the server by bench/promise-census.js (node --require): counts the promises the main
// thread makes between the first and the second SIGUSR2, and the HTTP requests it took meanwhile;
// on the second it writes { promises, requests } as JSON to $AGENTPORT_CENSUS_OUT. A count, not a
// time: it reads the same on a loaded machine as on a quiet one (issue 26, docs/benchmarks.md tail36).
const { promiseHooks } = require('node:v8');
const dc = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  let on = false;
  let promises = 0;
  let requests = 0;
  promiseHooks.onInit(() => {
    if (on) promises++;
  });
  dc.subscribe('http.server.request.start', () => {
    if (on) requests++;
  });
  process.on('SIGUSR2', () => {
    if (!on) {
      on = true;
      return;
    }
    on = false;
    writeFileSync(process.env.AGENTPORT_CENSUS_OUT, JSON.stringify({ promises, requests }));
  });
}
