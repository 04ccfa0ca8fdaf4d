#!/usr/bin/env node
// How the projects' files would pack on a quiet machine under a given schedule (issue 26;
// docs/testing.md, "Suite time"), where the shared machine's load makes a measured wall say little.
// A fluid model on CORES (2) cores: each file has its quiet wall w (vitest's line for the file in
// the logs of a clean run, `<dir>/{unit,shared,system}.log`, plus its project's collection time a
// file) and its CPU c (test/support/cpu-per-file.ts's line, times SCALE, 0.8: a loaded run's CPU
// to a quiet one's; a file without a line: 0.3 w). Under contention a file gets a CPU share s and
// takes c/s + (w − c). Files start longest first (test/durations.json), each project with its
// workers; the phases run one after another.
// Usage: node scripts/test-packing.mjs <cpu-per-file.jsonl> <dir of a clean run's logs>
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const C = Number(process.env.CORES ?? 2);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const order = JSON.parse(readFileSync(path.join(root, 'test/durations.json'), 'utf8'));
const rows = readFileSync(process.argv[2], 'utf8').trim().split('\n').map(JSON.parse);
const logDir = process.argv[3];
const logs = { unit: 'unit.log', 'system-shared': 'shared.log', system: 'system.log' };
const files = {};
for (const p of Object.keys(logs)) {
  const quiet = {};
  const text = readFileSync(path.join(logDir, logs[p]), 'utf8');
  const lines = [...text.matchAll(/^ [✓×❯↓] \|[\w-]+\| (\S+) .*?(\d+)ms$/gm)];
  const collect = Number(/collect ([\d.]+)s/.exec(text)?.[1] ?? 0) / lines.length;
  for (const m of lines) quiet[m[1]] = Number(m[2]) / 1000 + collect;
  const rs = new Map(rows.filter((r) => r.project === p).map((r) => [r.file, r]));
  // Loaded-run CPU to quiet CPU: unit and system-shared measured 0.79 and 0.84 (clean project CPU ÷ the sum here).
  const k = Number(process.env.SCALE ?? 0.8);
  files[p] = Object.entries(quiet)
    .map(([file, w]) => {
      const r = rs.get(file);
      const c = r ? Math.min(r.cpu * k, w * 2) : 0.3 * w;
      return { file, w, c };
    })
    .sort((a, b) => (order[b.file] ?? 1e9) - (order[a.file] ?? 1e9));
}
// phases: list of [ [project, workers], ... ] run together; phases one after another.
function simulate(phases) {
  let t = 0;
  const out = [];
  for (const phase of phases) {
    const queues = phase.map(([p, n]) => ({ p, n, q: [...files[p]], running: [], end: 0 }));
    const t0 = t;
    let cpu = 0;
    const fill = () => {
      for (const g of queues)
        while (g.running.length < g.n && g.q.length) {
          const f = g.q.shift();
          g.running.push({ ...f, left: 1 });
        }
    };
    fill();
    while (queues.some((g) => g.running.length)) {
      const all = queues.flatMap((g) => g.running);
      const rate = (f, s) => {
        const r = f.c / f.w;
        return 1 / (r / s + 1 - r);
      };
      const use = (s) => all.reduce((n, f) => n + (f.c / f.w) * rate(f, s), 0);
      let s = 1;
      if (use(1) > C) {
        let lo = 1e-3,
          hi = 1;
        for (let i = 0; i < 40; i++) {
          const m = (lo + hi) / 2;
          if (use(m) > C) hi = m;
          else lo = m;
        }
        s = lo;
      }
      // advance to the next file end
      let dt = Infinity;
      for (const f of all) dt = Math.min(dt, (f.left * f.w) / rate(f, s));
      cpu += use(s) * dt;
      t += dt;
      for (const g of queues) {
        for (const f of g.running) f.left -= (dt * rate(f, s)) / f.w;
        g.running = g.running.filter((f) => {
          if (f.left > 1e-9) return true;
          g.end = t - t0;
          return false;
        });
      }
      fill();
    }
    out.push(`${phase.map(([p, n]) => `${p}×${n}`).join(' + ')}: ${(t - t0).toFixed(0)} s (${queues.map((g) => `${g.p} ends ${g.end.toFixed(0)}`).join(', ')}; ${(cpu / (t - t0)).toFixed(2)} cores)`);
  }
  return `${t.toFixed(0)} s  [${out.join(' | ')}]`;
}
/** Each plan: phases one after another, each phase's projects side by side with their workers. */
const sideBySide = (unit, shared, system) => [
  [['unit', unit]],
  [
    ['system-shared', shared],
    ['system', system],
  ],
];
const plans = {
  'sequential 3/3/3 (before)': [[['unit', 3]], [['system-shared', 3]], [['system', 3]]],
  'unit 4, then sequential': [[['unit', 4]], [['system-shared', 3]], [['system', 3]]],
  'unit 3, then 2+2': sideBySide(3, 2, 2),
  'unit 3, then 3+2': sideBySide(3, 3, 2),
  'unit 3, then 2+3': sideBySide(3, 2, 3),
  'unit 3, then 3+3': sideBySide(3, 3, 3),
  'unit 4, then 3+2': sideBySide(4, 3, 2),
};
for (const [name, plan] of Object.entries(plans)) console.log(name.padEnd(28), simulate(plan));
