// Preload for bench/child-cpu.js: appends one JSON line to $CHILD_CPU_FILE when this process
// exits, with its CPU (user + system, ms, every thread: a worker thread's line repeats the
// process's figure, so the summary keeps the largest line a pid) and its command line. Put in
// NODE_OPTIONS it follows every node child a test file starts (issue 26: which children cost
// the suite its CPU).
import { appendFileSync } from 'node:fs';

const file = process.env.CHILD_CPU_FILE;
const started = Date.now();
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const line = { pid: process.pid, ms: Math.round((user + system) / 1000), wallMs: Date.now() - started, argv: process.argv.slice(1).join(' ').slice(0, 300) };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // a process exiting because its disk is full still exits
    }
  });
}
