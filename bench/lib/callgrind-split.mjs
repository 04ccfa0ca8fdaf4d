// A thread's instructions split by where they ran (bench/callgrind.js --split).
//
// Under callgrind, V8's compiled JavaScript has no symbols: its cost lands on bare addresses. Node
// started with --perf-basic-prof writes every code object's address range and name (the function
// and its file) to /tmp/perf-<pid>.map, and V8 then does not move code; callgrind run with
// --dump-instr=yes writes each instruction address's own cost. Joining the two gives the
// instructions a request spent in the code of each package (self cost: a builtin or a C++ runtime
// function the package calls counts in the "V8 builtins" or "native" group, not in the package).

import { readFileSync } from 'node:fs';

/** The groups, first match wins; the test is on the perf map's name (JS) or callgrind's (native). */
const GROUPS = [
  ['pg driver', /node_modules\/(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|postgres-array|postgres-bytea|postgres-date|postgres-interval|pgpass|postgres)\//],
  ['redis client', /node_modules\/(ioredis|@ioredis\/[^/]+|redis-parser|redis-errors|denque|cluster-key-slot|standard-as-callback)\//],
  ['agentport (or the bare server)', /\/dist\/|\/bench\/pg-floor\.js/],
  ['other packages', /node_modules\//],
  ['node core JS', /\bnode:/],
  ['V8 builtins', /^(Builtin|BytecodeHandler|Handler|Stub|RegExp|Function):|^(JS|LazyCompile|Script|Eval):\S*\s*$/],
];

/** Sorted code ranges from a perf map; a later entry at the same start replaces an earlier one. */
export function readPerfMap(file) {
  const byStart = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) byStart.set(parseInt(m[1], 16), { start: parseInt(m[1], 16), end: parseInt(m[1], 16) + parseInt(m[2], 16), name: m[3] });
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

function lookup(ranges, addr) {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= addr) lo = mid + 1;
    else hi = mid - 1;
  }
  const r = ranges[hi];
  return r && addr < r.end ? r : undefined;
}

export function groupOf(name, js) {
  for (const [group, re] of GROUPS) if (re.test(name)) return group;
  return js ? 'other JS' : 'native (V8 runtime, GC, libuv, OpenSSL, libc)';
}

/**
 * Self instructions of one callgrind output file (one thread, --dump-instr=yes), by group and by
 * JS function. Positions may be relative ("+n", "-n" in decimal, "*") to the previous cost line's, call
 * lines included; a call's cost line (after "calls=") is inclusive and is not counted.
 */
export function splitFile(file, ranges) {
  const names = new Map();
  let fn = '';
  let last = 0;
  let skipNext = false;
  let positions = 1;
  const groups = new Map();
  const functions = new Map();
  const add = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n);
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const c = line.charCodeAt(0);
    const isCost = c === 48 /* 0 */ || c === 43 /* + */ || c === 45 /* - */ || c === 42; /* * */
    if (!isCost) {
      if (line.startsWith('positions:')) positions = line.split(/\s+/).length - 1;
      else if (line.startsWith('fn=')) {
        const m = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
        if (m) {
          if (m[2] !== undefined) names.set(m[1], m[2]);
          fn = names.get(m[1]) ?? '';
        } else fn = line.slice(3);
      } else if (line.startsWith('cfn=')) {
        const m = /^cfn=\((\d+)\) (.*)$/.exec(line);
        if (m) names.set(m[1], m[2]);
      } else if (line.startsWith('calls=')) skipNext = true;
      continue;
    }
    // the instruction's position first, then the line's when --dump-line=yes, then the cost
    const fields = line.split(' ');
    const pos = fields[0];
    const cost = fields[positions];
    if (pos === '*') {
      // same position
    } else if (c === 43) last += Number(pos.slice(1));
    else if (c === 45) last -= Number(pos.slice(1));
    else last = Number(pos);
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const n = Number(cost ?? 0);
    if (!n) continue;
    const r = lookup(ranges, last);
    if (r) {
      add(groups, groupOf(r.name, true), n);
      add(functions, r.name, n);
    } else {
      add(groups, groupOf(fn, false), n);
      add(functions, `[native] ${fn}`, n);
    }
  }
  return { groups, functions };
}
