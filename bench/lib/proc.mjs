// /proc helpers: resident memory and CPU time of a server process and its
// descendants (in case a target forks workers). Linux only; on other systems
// the readers return null and the harness prints "n/a".
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // keep the Linux default
}

function readStat(pid, file = `/proc/${pid}/stat`) {
  try {
    const raw = readFileSync(file, 'utf8');
    // The command name is in parentheses and may contain spaces.
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); ppid is field 4, utime 14, stime 15.
    return { ppid: Number(rest[1]), utime: Number(rest[11]), stime: Number(rest[12]) };
  } catch {
    return null;
  }
}

/** pid plus every descendant pid, found by walking /proc ppid links. */
export function processTree(pid) {
  const children = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pid];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(name);
    if (!st) continue;
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(Number(name));
  }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    out.push(p);
    for (const c of children.get(p) ?? []) stack.push(c);
  }
  return out;
}

/** VmRSS in kB of one process, or null. */
export function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** { mainKb, totalKb, processes } for a pid and its descendants. */
export function treeRss(pid) {
  const pids = processTree(pid);
  const mainKb = rssKb(pid);
  if (mainKb === null) return null;
  let totalKb = 0;
  for (const p of pids) totalKb += rssKb(p) ?? 0;
  return { mainKb, totalKb, processes: pids.length };
}

/** User+system CPU seconds consumed so far by a pid and its descendants. */
export function treeCpuSeconds(pid) {
  let ticks = 0;
  let found = false;
  for (const p of processTree(pid)) {
    const st = readStat(p);
    if (!st) continue;
    found = true;
    ticks += st.utime + st.stime;
  }
  return found ? ticks / clockTicks : null;
}

/** Machine-wide CPU seconds { busy, total } from /proc/stat, or null. */
export function machineCpuSeconds() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest is inside user)
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = f[3] + (f[4] || 0);
    return { busy: (total - idle) / clockTicks, total: total / clockTicks };
  } catch {
    return null;
  }
}

/** CPU seconds used by this process plus its reaped children (e.g. wrk). */
export function selfAndReapedChildrenCpuSeconds() {
  try {
    const raw = readFileSync('/proc/self/stat', 'utf8');
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // utime 14, stime 15, cutime 16, cstime 17 (rest[0] is field 3)
    return (Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14])) / clockTicks;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) of one process, all its threads; null when unreadable. */
export function processCpuSeconds(pid) {
  const st = readStat(pid);
  return st ? (st.utime + st.stime) / clockTicks : null;
}

/** CPU seconds of a process's main thread (its event loop, for Node); null when unreadable. */
export function mainThreadCpuSeconds(pid) {
  const st = readStat(pid, `/proc/${pid}/task/${pid}/stat`);
  return st ? (st.utime + st.stime) / clockTicks : null;
}
