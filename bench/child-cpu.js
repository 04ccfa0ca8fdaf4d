#!/usr/bin/env node
// The node processes a test file starts, and the CPU each spends (issue 26: the system project is
// CPU-bound, so its time follows what its children burn). Run on single files, not the suite:
//
//   node bench/child-cpu.js test/cli/startup-failures.test.ts [more files]
//
// Runs `npx vitest run <file>` once a file with bench/lib/cpu-at-exit.mjs preloaded through
// NODE_OPTIONS, then prints per file: the children by command (`agentport serve`, `db`, …), how
// many, their CPU in all and each. A child that replaces NODE_OPTIONS is not seen. CPU time is
// less load-dependent than wall time, not independent of it: write the load beside it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = process.argv.slice(2);
if (files.length === 0 || files.includes('--help')) {
  console.log('Usage: node bench/child-cpu.js <test file> [<test file> …]');
  process.exit(files.length === 0 ? 2 : 0);
}

/** One line a process (a worker thread reports its process's CPU too: the largest line wins). */
function byProcess(lines) {
  const seen = new Map();
  for (const line of lines) {
    const had = seen.get(line.pid);
    if (!had || line.ms > had.ms) seen.set(line.pid, { ...line, argv: had?.argv.includes('agentport.js') ? had.argv : line.argv });
  }
  return [...seen.values()];
}

const kindOf = (argv) => {
  const cli = /agentport\.js (\S+)/.exec(argv);
  return cli ? `agentport ${cli[1]}` : path.basename(argv.split(' ')[0] ?? '?');
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'child-cpu-'));
try {
  for (const [i, file] of files.entries()) {
    const out = path.join(dir, `${i}.jsonl`);
    const preload = `--import ${path.join(ROOT, 'bench/lib/cpu-at-exit.mjs')}`;
    const env = { ...process.env, CHILD_CPU_FILE: out, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${preload}`.trim() };
    const load = os.loadavg()[0].toFixed(1);
    const run = spawnSync('npx', ['vitest', 'run', file], { cwd: ROOT, env, encoding: 'utf8' });
    const tests = /Tests\s+(.*)/.exec(run.stdout)?.[1]?.trim() ?? `vitest exited ${run.status}`;
    let lines = [];
    try {
      lines = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      // no child wrote a line
    }
    const groups = new Map();
    for (const p of byProcess(lines)) {
      const g = groups.get(kindOf(p.argv)) ?? { n: 0, ms: 0 };
      g.n++;
      g.ms += p.ms;
      groups.set(kindOf(p.argv), g);
    }
    console.log(`${file} (load ${load} → ${os.loadavg()[0].toFixed(1)}; tests: ${tests})`);
    for (const [kind, g] of [...groups].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(`  ${kind.padEnd(22)} ${String(g.n).padStart(3)}×  ${(g.ms / 1000).toFixed(1).padStart(6)} s CPU  ${String(Math.round(g.ms / g.n)).padStart(5)} ms each`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
