'use strict';
// A bench preload (issue 26, tail40): the server's threads at another niceness, to read whether the
// scheduler's choice between the main thread, the SQLite commit thread and the load generator moves
// the tail. AGENTPORT_BENCH_THREAD_NICE sets each worker thread's (the commit thread's), and
// AGENTPORT_BENCH_MAIN_NICE the main thread's, by its own tid (Linux: setpriority on a tid is that
// thread's alone). A negative value needs CAP_SYS_NICE; it is reported and left, not fatal.
const { readlinkSync } = require('node:fs');
const os = require('node:os');
const { isMainThread } = require('node:worker_threads');

const want = process.env[isMainThread ? 'AGENTPORT_BENCH_MAIN_NICE' : 'AGENTPORT_BENCH_THREAD_NICE'];
if (want !== undefined && want !== '') {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  try {
    os.setPriority(tid, Number(want));
  } catch (err) {
    process.stderr.write(`thread-nice: tid ${tid} to ${want}: ${err.message}\n`);
  }
}
