/**
 * The evaluation set: the retail and support questions with ids, and the held-out part: every
 * fourth question of the first two files (positions 4, 8, 12, …) and the whole second batch
 * (heldout-questions.ts, ids `retail-h…`, `support-h…`). The runner hides held-out details unless
 * asked; docs/table-expert.md records when they were looked at.
 */
import { HELDOUT_RETAIL, HELDOUT_SUPPORT } from './heldout-questions.js';
import { FRESH_PUBLIC } from './public-fresh-questions.js';
import { HELDOUT_PUBLIC } from './public-heldout-questions.js';
import { PUBLIC_BANK, PUBLIC_COUNTRIES, PUBLIC_STOCKS, PUBLIC_SUPERSTORE, PUBLIC_WORLD } from './public-questions.js';
import { RETAIL } from './retail-questions.js';
import { SUPPORT } from './support-questions.js';
import type { DatasetName, EvalQuestion, RawQuestion } from './types.js';

const HELD_OUT_EVERY = 4;

function build(dataset: DatasetName, raw: RawQuestion[], batch = '', allHeldOut = false, part: EvalQuestion['part'] = 'sample'): EvalQuestion[] {
  return raw.map(([question, gold, flags], i) => ({
    id: `${dataset}-${batch}${String(i + 1).padStart(3, '0')}`,
    dataset,
    question,
    gold,
    casual: flags?.c ?? false,
    previous: flags?.prev ?? [],
    heldOut: allHeldOut || (part === 'sample' && (i + 1) % HELD_OUT_EVERY === 0),
    part,
  }));
}

export const EVAL_SET: readonly EvalQuestion[] = [
  ...build('retail', RETAIL),
  ...build('support', SUPPORT),
  ...build('retail', HELDOUT_RETAIL, 'h', true),
  ...build('support', HELDOUT_SUPPORT, 'h', true),
  // real public tables: every question here was written before tuning on them (the blind run)
  ...build('superstore', PUBLIC_SUPERSTORE, 'p', false, 'public'),
  ...build('bank', PUBLIC_BANK, 'p', false, 'public'),
  ...build('stocks', PUBLIC_STOCKS, 'p', false, 'public'),
  ...build('world', PUBLIC_WORLD, 'p', false, 'public'),
  ...build('countries', PUBLIC_COUNTRIES, 'p', false, 'public'),
  // written after tuning on the public questions, run once
  ...HELDOUT_PUBLIC.map(
    ([question, gold, dataset], i): EvalQuestion => ({ id: `${dataset}-ph${String(i + 1).padStart(3, '0')}`, dataset, question, gold, casual: false, previous: [], heldOut: true, part: 'public-heldout' }),
  ),
  // a fresh held-out part, written after the issue-31 follow-up work, committed before its one run
  ...FRESH_PUBLIC.map(
    ([question, gold, dataset], i): EvalQuestion => ({ id: `${dataset}-pf${String(i + 1).padStart(3, '0')}`, dataset, question, gold, casual: false, previous: [], heldOut: true, part: 'public-fresh' }),
  ),
];
