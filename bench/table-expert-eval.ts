// The Table Expert's evaluation: `npm run eval:table-expert`. Asks every question of
// test/agents/table-expert/eval/ (retail sample + generated support desk) through the planner,
// judges the rows against the gold SQL's and prints CORRECT / ASKED / DECLINED / WRONG for the whole
// set, the tuning part and the held-out part, then the median answer time.
//
// Options: --details   list every question that is not CORRECT in the tuning part
//          --held-out  also list the held-out part's (do not use while tuning the planner)
//          --only <id prefix>  run a subset, e.g. --only retail-01
//          --part sample|public|public-heldout|public-fresh  run one part
//          --llm <baseUrl> --model <name> [--api-key-env VAR]  ask through an OpenAI-compatible model instead
import { PUBLIC_BLIND_RUN, PUBLIC_FRESH_FIRST_RUN, PUBLIC_HELDOUT_FIRST_RUN } from '../test/agents/table-expert/eval/public-record.js';
import { EVAL_SET } from '../test/agents/table-expert/eval/question-set.js';
import { formatTally, median, openEvalSession, tally, type EvalResult } from '../test/agents/table-expert/eval/run-eval.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const only = args.includes('--only') ? (args[args.indexOf('--only') + 1] ?? '') : '';

const value = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const baseUrl = value('llm');
const apiKey = value('api-key-env') ? process.env[value('api-key-env')!] : undefined;
const llm = baseUrl ? { baseUrl, model: value('model') ?? 'gpt-4o-mini', ...(apiKey ? { apiKey } : {}) } : undefined;

const partOnly = value('part');
const questions = EVAL_SET.filter((q) => q.id.startsWith(only) && (!partOnly || q.part === partOnly));
const session = await openEvalSession(llm ? { llm } : {});
const results: EvalResult[] = [];
try {
  // the first question of each dataset opens DuckDB and profiles the tables: not an answer time
  const warm = [...new Set(questions.map((q) => q.dataset))].map((d) => questions.find((q) => q.dataset === d)!);
  await session.run(warm);
  results.push(...(await session.run(questions)));
} finally {
  await session.close();
}

const show = (r: EvalResult) => r.verdict !== 'CORRECT' && (flag('held-out') || !r.q.heldOut) && (flag('all') || (r.q.part !== 'public-heldout' && r.q.part !== 'public-fresh') || flag('held-out'));
if (flag('details') || flag('held-out')) {
  for (const r of results.filter(show)) {
    console.log(`${r.verdict.padEnd(8)} ${r.q.id}${r.q.heldOut ? ' (held out)' : ''}  ${r.q.question}\n         ${r.detail.slice(0, 300)}${r.readAs ? `\n         ${r.readAs}` : ''}`);
  }
  console.log('');
}
const part = (pred: (r: EvalResult) => boolean) => tally(results.filter(pred));
console.log(
  formatTally([
    ['whole set', part(() => true)],
    ['generated samples: tuning part', part((r) => r.q.part === 'sample' && !r.q.heldOut)],
    ['generated samples: held-out part', part((r) => r.q.part === 'sample' && r.q.heldOut)],
    ['  held-out, first set (every 4th)', part((r) => r.q.part === 'sample' && r.q.heldOut && !r.q.id.includes('-h'))],
    ['  held-out, second batch', part((r) => r.q.part === 'sample' && r.q.id.includes('-h'))],
    ['public tables: blind first run (recorded, before tuning)', PUBLIC_BLIND_RUN],
    ['public tables: written before tuning (now, tuned)', part((r) => r.q.part === 'public')],
    ['public tables: held-out part, first run (recorded)', PUBLIC_HELDOUT_FIRST_RUN],
    ['public tables: held-out part (written after tuning), now', part((r) => r.q.part === 'public-heldout')],
    ['public tables: fresh held-out part, first run (recorded)', PUBLIC_FRESH_FIRST_RUN],
    ['public tables: fresh held-out part, now', part((r) => r.q.part === 'public-fresh')],
    ['public tables: all parts, now', part((r) => r.q.part !== 'sample')],
    ...[...new Set(results.map((r) => r.q.dataset))].map((d): [string, ReturnType<typeof tally>] => [`  ${d}`, part((r) => r.q.dataset === d)]),
    ['casual phrasing', part((r) => r.q.casual)],
  ]),
);
const times = results.map((r) => r.ms);
const answered = results.filter((r) => r.verdict === 'CORRECT' || r.verdict === 'WRONG').map((r) => r.ms);
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]?.toFixed(1);
console.log(`\n${llm ? `model ${llm.model} at ${llm.baseUrl}` : 'planner (no model)'}`);
console.log(`median answer time ${median(times).toFixed(1)} ms (p90 ${p90(times)} ms) over all ${times.length} questions;`);
console.log(`${median(answered).toFixed(1)} ms (p90 ${p90(answered)} ms) over the ${answered.length} answered with rows (plan + DuckDB + summary)`);
