// Loading a CSV with date inference: `npm run bench:table-expert-load [-- --rows N]` (default 1,000,000).
// Writes a CSV of N rows whose dates the reader leaves as text ("Jan 5 2021"), a US date-time
// ("03/15/2021 14:30"), an ISO timestamp (read natively) and an integer year, then times, in this
// process: opening the dataset (views, date inference on a sample and one checking scan per
// inferred column), the first `describe` (profiles every column) and a question that filters on an
// inferred date. A benchmark, not a timed test: figures vary with the machine's load.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { TableEngine } from '../src/agents/table-expert/engine/duckdb-engine.js';
import { createTableExpertAgent, parseTableExpertOptions } from '../src/agents/table-expert/index.js';

const args = process.argv.slice(2);
const rows = Number(args.includes('--rows') ? args[args.indexOf('--rows') + 1] : 1_000_000);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const dir = await mkdtemp(path.join(os.tmpdir(), 'te-load-'));
const file = path.join(dir, 'events.csv');
const out = createWriteStream(file);
out.write('id,day,logged,seen_at,year,amount,kind\n');
const t0Write = performance.now();
for (let i = 0; i < rows; i++) {
  const t = Date.UTC(2015, 0, 1) + (i % 3650) * 86_400_000 + (i % 1440) * 60_000;
  const d = new Date(t);
  const [y, m, day, hh, mm] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
  const pad = (n: number) => String(n).padStart(2, '0');
  const line = `${i},${MONTHS[m]} ${day} ${y},${pad(m + 1)}/${pad(day)}/${y} ${pad(hh)}:${pad(mm)},${d.toISOString().slice(0, 19).replace('T', ' ')},${y},${(i % 997) / 10},${['a', 'b', 'c'][i % 3]}\n`;
  if (!out.write(line)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
console.log(`wrote ${rows.toLocaleString('en-US')} rows in ${((performance.now() - t0Write) / 1000).toFixed(1)} s`);

const options = parseTableExpertOptions({ datasets: [{ name: 'events', path: file }] }, { index: 0, baseDir: dir });
// the load itself: the view over the reader and the date inference (what every start does)
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const engine = await TableEngine.open(options.datasets, options.limits);
const opened = performance.now() - t0;
// CPU time of this process (DuckDB's threads included): less sensitive to a loaded machine than the wall clock
const cpu = process.cpuUsage(cpu0);
engine.close();
const expert = createTableExpertAgent({ options, dataDir: dir }).expert;
try {
  const t1 = performance.now();
  await expert.warmUp();
  const profiled = performance.now() - t1;
  const described = await expert.describe({});
  const t2 = performance.now();
  const answer = await expert.ask({ question: 'How many events in March 2020?', mode: 'planner' });
  const asked = performance.now() - t2;
  const table = described.tables[0]!;
  console.log(`inferred: ${JSON.stringify(table.inferred)}`);
  console.log(`column types: ${table.columns.map((c) => `${c.name} ${c.type}`).join(', ')}`);
  console.log(`load with date inference (view + inference): ${(opened / 1000).toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU`);
  console.log(`first profile of every column (open again + profile, the first describe): ${(profiled / 1000).toFixed(2)} s`);
  console.log(`a question on an inferred date: ${asked.toFixed(0)} ms → ${answer.kind === 'answer' ? JSON.stringify(answer.result.rows) : answer.kind}`);
} finally {
  expert.close();
  await new Promise((r) => setTimeout(r, 100));
  await rm(dir, { recursive: true, force: true });
}
