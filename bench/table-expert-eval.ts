// The Table Expert's evaluation: `npm run eval:table-expert`. Asks every question of
// test/agents/table-expert/eval/ (retail sample + generated support desk) through the planner,
// judges the rows against the gold SQL's and prints CORRECT / ASKED / DECLINED / WRONG for the whole
// set, the tuning part and the held-out part, then the median answer time.
//
// Options: --details   list every question that is not CORRECT in the tuning part
//          --held-out  also list the held-out part's (do not use while tuning the planner)
//          --only <id prefix>  run a subset, e.g. --only retail-01
import { EVAL_SET } from '../test/agents/table-expert/eval/question-set.js';
import { formatTally, median, openEvalSession, tally, type EvalResult } from '../test/agents/table-expert/eval/run-eval.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] ?? '' : '';

const questions = EVAL_SET.filter((q) => q.id.startsWith(only));
const session = await openEvalSession();
const results: EvalResult[] = [];
try {
  // the first question of each dataset opens DuckDB and profiles the tables: not an answer time
  const warm = [questions.find((q) => q.dataset === 'retail'), questions.find((q) => q.dataset === 'support')].filter((q) => q !== undefined);
  await session.run(warm);
  results.push(...(await session.run(questions)));
} finally {
  await session.close();
}

const show = (r: EvalResult) => r.verdict !== 'CORRECT' && (flag('held-out') || !r.q.heldOut);
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
    ['tuning part', part((r) => !r.q.heldOut)],
    ['held-out part', part((r) => r.q.heldOut)],
    ['  held-out, first set (every 4th)', part((r) => r.q.heldOut && !r.q.id.includes('-h'))],
    ['  held-out, second batch', part((r) => r.q.id.includes('-h'))],
    ['retail sample', part((r) => r.q.dataset === 'retail')],
    ['support desk', part((r) => r.q.dataset === 'support')],
    ['casual phrasing', part((r) => r.q.casual)],
  ]),
);
const times = results.map((r) => r.ms);
console.log(`\nmedian answer time ${median(times).toFixed(1)} ms (p90 ${[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)]?.toFixed(1)} ms) over ${times.length} questions`);
