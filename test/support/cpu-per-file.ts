/**
 * Per-file CPU of a test run, independent of the machine's load (issue 26; docs/testing.md, "Suite
 * time"). Loaded as a setup file only when AGENTPORT_CPU_PER_FILE names an output file
 * (vitest.config.ts): it runs before the file's own imports, and its `afterAll`, registered first,
 * runs after the file's last one (vitest runs after-hooks in reverse order). It appends one JSON
 * line a file: the worker process's CPU over that span from /proc/self/stat, its own (utime +
 * stime) and that of the children it reaped meanwhile (cutime + cstime: Chromium, npm, the CLI,
 * podman), and the wall. Wall time on a shared machine says how busy the machine was; CPU says what
 * the file costs. Wall minus CPU is what the file waited (on children not counted, sockets,
 * timers, or the CPU others held). Files of `unit` and `system-shared` (--no-isolate) run one at a
 * time in a worker, so the deltas are the file's; `system` files have a process each.
 * `node scripts/test-cpu.mjs <output>` prints the table.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

const OUTPUT = process.env.AGENTPORT_CPU_PER_FILE;
const TICKS_PER_SECOND = 100; // USER_HZ: Linux reports /proc times in 1/100 s on every platform node runs on

/** utime, stime, cutime, cstime (fields 14–17), in seconds. */
function processCpu(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces; count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const at = (n: number) => Number(fields[n - 3]) / TICKS_PER_SECOND;
  return { self: at(14) + at(15), children: at(16) + at(17) };
}

const wallStart = performance.now();
const startedAt = Date.now();
const start = processCpu();
const loadAtStart = loadavg()[0] ?? 0;

type Counted = { type?: string; tasks?: Counted[]; filepath?: string; projectName?: string };
const relative = (task: Counted) => path.relative(process.cwd(), task.filepath ?? '').replaceAll(path.sep, '/');
let file = '';
let project = '';

beforeAll((suite) => {
  const task: Counted = suite.file ?? suite;
  file = relative(task);
  project = task.projectName ?? '';
});

afterAll((suite) => {
  if (!OUTPUT) return;
  const end = processCpu();
  const round = (s: number) => Math.round(s * 100) / 100;
  const self = end.self - start.self;
  const children = end.children - start.children;
  const wall = (performance.now() - wallStart) / 1000;
  const tests = countTests(suite.file ?? suite);
  const line = {
    file: file || relative(suite.file ?? suite),
    project,
    pid: process.pid,
    startedAt,
    wall: round(wall),
    cpu: round(self + children),
    self: round(self),
    children: round(children),
    waiting: round(wall - self - children),
    // The worker's CPU before this file's imports: vitest's own start-up in a fresh process (`system`).
    cpuBefore: round(start.self),
    tests,
    load: Math.round(loadAtStart * 10) / 10,
  };
  // One write with O_APPEND: lines from workers running at once do not interleave.
  appendFileSync(OUTPUT, `${JSON.stringify(line)}\n`);
});

function countTests(task: Counted): number {
  if (task.type === 'test') return 1;
  return (task.tasks ?? []).reduce((n, t) => n + countTests(t), 0);
}
